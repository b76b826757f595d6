#include "server_reply.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <string>

#include "passtiming/fleet/push.h"

namespace passtiming::fleet {

std::vector<std::vector<std::string_view>> tsv_rows(std::string_view text) {
  std::vector<std::vector<std::string_view>> rows;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    std::vector<std::string_view>& fields = rows.emplace_back();
    while (true) {
      const std::size_t tab = line.find('\t');
      fields.push_back(line.substr(0, tab));
      if (tab == std::string_view::npos) break;
      line.remove_prefix(tab + 1);
    }
  }
  return rows;
}

std::uint64_t tsv_number(std::string_view field, std::string_view what) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) {
    throw PushStopped(fmt::format("unexpected reply to {}: '{}'", what, field));
  }
  return value;
}

bool has_error_code(const HttpReply& reply, int code) {
  const std::string prefix = fmt::format("Code: {}", code);
  std::string_view body(reply.body);
  while (!body.empty() && (body.front() == '\n' || body.front() == ' ')) body.remove_prefix(1);
  return body.starts_with(prefix) && body.size() > prefix.size() &&
         !std::isdigit(static_cast<unsigned char>(body[prefix.size()]));
}

}  // namespace passtiming::fleet
