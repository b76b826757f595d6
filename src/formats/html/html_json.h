#pragma once
/// \file
/// JSON strings that can sit inside an HTML `<script>` element.

#include <string>
#include <string_view>

namespace passtiming::detail {

/// Appends `text` as a quoted JSON string, escaped as the profile writer
/// escapes names (src/json_text.h: control characters, quotes, backslashes;
/// each byte that is not UTF-8 becomes U+FFFD), and in addition with `<`,
/// `>`, `&`, U+2028 and U+2029 as `\uXXXX`, so no name can close the element
/// (`</script>`), open a comment, or end a line of script.
void append_html_json_string(std::string& out, std::string_view text);

}  // namespace passtiming::detail
