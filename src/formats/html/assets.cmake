# Included from src/CMakeLists.txt: compiles the HTML report's CSS and
# JavaScript, kept here as ordinary files for editing, into the library as
# string constants (the custom command must live in the library's directory).
set(_passtiming_html_dir ${CMAKE_CURRENT_LIST_DIR})
add_custom_command(
  OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/html_assets.cc
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${CMAKE_CURRENT_BINARY_DIR}/html_assets.cc
          -DCSS=${_passtiming_html_dir}/report.css -DJS=${_passtiming_html_dir}/report.js
          -P ${_passtiming_html_dir}/embed_assets.cmake
  DEPENDS ${_passtiming_html_dir}/report.css ${_passtiming_html_dir}/report.js
          ${_passtiming_html_dir}/embed_assets.cmake
  COMMENT "Embedding the HTML report's CSS and JavaScript"
  VERBATIM)
target_sources(passtiming_formats PRIVATE
  ${CMAKE_CURRENT_BINARY_DIR}/html_assets.cc
  ${_passtiming_html_dir}/html_json.cc)

