#include "formats/html/html_json.h"

#include "passtiming/formats/profile_json.h"

namespace passtiming::detail {

void append_html_json_string(std::string& out, std::string_view text) {
  std::string json;
  append_json_string(json, text);
  // The JSON string is valid UTF-8 and escapes nothing as `<`, `>` or `&`,
  // so these characters (and the bytes of U+2028/U+2029) are literal text.
  out.reserve(out.size() + json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
               (json[i + 2] == '\xA8' || json[i + 2] == '\xA9')) {
      out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out.push_back(c);
    }
  }
}

}  // namespace passtiming::detail
