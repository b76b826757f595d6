# cmake -DOUTPUT=file.cc -DCSS=report.css -DJS=report.js -P embed_assets.cmake
#
# Turns the report's CSS and JavaScript into C++ string constants, with the
# SHA-256 of each: the page's Content-Security-Policy allows exactly the
# script and style whose hashes it names, so the hashes must be taken from the
# very bytes that get embedded.
set(body "// Generated from src/html by embed_assets.cmake; do not edit.\n")
string(APPEND body "#include \"formats/html/assets.h\"\n\nnamespace passtiming::detail {\n")
foreach(name kReportCss kReportJs)
  if(name STREQUAL "kReportCss")
    set(path "${CSS}")
  else()
    set(path "${JS}")
  endif()
  file(READ "${path}" content)
  file(SHA256 "${path}" digest)
  foreach(forbidden ")pt_asset\"" "</script" "</style" "<!--")
    string(FIND "${content}" "${forbidden}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${path} must not contain '${forbidden}'")
    endif()
  endforeach()
  string(APPEND body "const std::string_view ${name} = R\"pt_asset(${content})pt_asset\";\n")
  string(APPEND body "const std::string_view ${name}Sha256 = \"${digest}\";\n")
endforeach()
string(APPEND body "}  // namespace passtiming::detail\n")
# Rewrite only on change, so an unchanged asset does not recompile the report.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL body)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${body}")
