# passtiming_set_warnings(target): the project's warning flags, applied PRIVATE
# so that they never leak into a consumer's build.
function(passtiming_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wold-style-cast)
endfunction()
