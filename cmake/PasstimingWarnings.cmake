# passtiming_set_warnings(target): the project's warning flags, applied PRIVATE
# so that they never leak into a consumer's build. Designated initializers
# that leave members at their defaults (`{.instruments = ...}`) are the
# intended way to build options structs, so GCC's warning about them is off.
function(passtiming_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wold-style-cast
                                           -Wno-missing-field-initializers)
endfunction()
