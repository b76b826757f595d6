#include "passtiming/recorder/settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace passtiming {
namespace {

std::string_view trim(std::string_view text) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

/// Whether `text` is a plain decimal literal: digits with an optional
/// fraction and exponent. std::from_chars would also take "inf", "nan" and
/// hexadecimal forms; those are rejected here by shape.
bool is_decimal_literal(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i - start;
  };
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

std::string_view source_text(std::string_view text) {
  // Long or binary garbage is cut for the message; the source name is what
  // tells the user where to look.
  return text.substr(0, 64);
}

}  // namespace

bool is_truthy(std::string_view text) noexcept {
  text = trim(text);
  if (text.size() > 5) return false;
  std::string lower;
  for (char c : text)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower == "1" || lower == "true" || lower == "yes" || lower == "on";
}

std::string environment_assignment(SettingName setting, std::string_view value) {
  std::string out(setting.environment);
  out += '=';
  out += value;
  return out;
}

double check_threshold_ms(double value, std::string_view setting) {
  if (!std::isfinite(value) || value < 0) {
    throw ConfigError(
        fmt::format("{} must be a finite non-negative number (got {})", setting, value));
  }
  return value == 0.0 ? 0.0 : value;
}

double parse_threshold_ms(std::string_view text, std::string_view source) {
  std::string_view body = trim(text);
  bool negative = false;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  double value = 0.0;
  bool ok = is_decimal_literal(body);
  if (ok) {
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
    ok = ec == std::errc() && end == body.data() + body.size() && std::isfinite(value) &&
         (!negative || value == 0.0);
  }
  if (!ok) {
    throw ConfigError(fmt::format("{} must be a finite non-negative number (got '{}')", source,
                                  source_text(text)));
  }
  return value;  // "-0" reads as +0
}

std::optional<double> pass_timing_threshold(const PassConfig& config, const Environment& env) {
  bool enabled = config_bool(config, kPassProfileKey).value_or(false);
  if (!enabled) {
    auto flag = env.get(kPassProfileEnv);
    enabled = flag && is_truthy(*flag);
  }
  if (!enabled) return std::nullopt;

  if (auto threshold = config_number(config, kPassProfileThresholdKey)) {
    return check_threshold_ms(*threshold, kPassProfileThresholdKey);
  }
  auto text = env.get(kPassProfileThresholdEnv);
  if (!text || trim(*text).empty()) return 0.0;
  return parse_threshold_ms(*text, kPassProfileThresholdEnv);
}

}  // namespace passtiming
