#include "passtiming/fleet/clickhouse_http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace passtiming::fleet {
namespace {

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::string escaped(CURL* curl, std::string_view text) {
  char* escaped = curl_easy_escape(curl, text.data(), static_cast<int>(text.size()));
  if (!escaped) throw std::bad_alloc();
  std::string out(escaped);
  curl_free(escaped);
  return out;
}

/// `base` with the parameters `query`, `query_id` and `settings` added,
/// URL-encoded.
std::string url_with(CURL* curl, const std::string& base, std::string_view query,
                     std::string_view query_id,
                     const std::vector<std::pair<std::string, std::string>>& settings) {
  if (query.empty() && query_id.empty() && settings.empty()) return base;
  std::string url = base;
  if (url.find('?') != std::string::npos) {
    url += '&';
  } else {
    // `http://host:8123` and `http://host:8123/` both become `http://host:8123/?`.
    const std::size_t scheme = url.find("://");
    const std::size_t path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    if (path == std::string::npos) url += '/';
    url += '?';
  }
  std::string_view separator;
  auto add = [&](std::string_view name, std::string_view value) {
    url += separator;
    url += name;
    url += '=';
    url += escaped(curl, value);
    separator = "&";
  };
  if (!query.empty()) add("query", query);
  if (!query_id.empty()) add("query_id", query_id);
  for (const auto& [name, value] : settings) add(name, value);
  return url;
}

/// Whether a query parameter of this name holds a secret.
bool secret_parameter(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view word : {"password", "passwd", "pwd", "token", "key", "secret"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

/// `query` with the values of its secret parameters replaced by `***`.
std::string redacted_query(std::string_view query) {
  std::string out;
  while (true) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos && secret_parameter(pair.substr(0, eq))) {
      out.append(pair.substr(0, eq + 1));
      out += "***";
    } else {
      out.append(pair);
    }
    if (amp == std::string_view::npos) break;
    out += '&';
    query.remove_prefix(amp + 1);
  }
  return out;
}

/// A curl_url_get() part, or nullopt when the URL has none.
std::optional<std::string> url_part(CURLU* url, CURLUPart part) {
  char* text = nullptr;
  if (curl_url_get(url, part, &text, 0) != CURLUE_OK || text == nullptr) return std::nullopt;
  std::string value(text);
  curl_free(text);
  return value;
}

}  // namespace

std::string redacted_url(const std::string& url) {
  constexpr const char* kUnparsed = "<the --clickhouse URL>";
  // libcurl's URL parser, the one that sends the requests, says what the
  // password and the query are.
  CURLU* parsed = curl_url();
  if (parsed == nullptr) return kUnparsed;
  std::string shown = kUnparsed;
  if (curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    bool ok = true, changed = false;
    if (url_part(parsed, CURLUPART_PASSWORD)) {
      ok = curl_url_set(parsed, CURLUPART_PASSWORD, "***", 0) == CURLUE_OK;
      changed = true;
    }
    if (const std::optional<std::string> query = url_part(parsed, CURLUPART_QUERY)) {
      const std::string redacted = redacted_query(*query);
      ok = ok && curl_url_set(parsed, CURLUPART_QUERY, redacted.c_str(), 0) == CURLUE_OK;
      changed = changed || redacted != *query;
    }
    // Without a secret the URL is shown as given, not as libcurl writes it.
    if (!changed) {
      shown = url;
    } else if (const std::optional<std::string> whole = url_part(parsed, CURLUPART_URL);
               ok && whole) {
      shown = *whole;
    }
  }
  curl_url_cleanup(parsed);
  return shown;
}

std::vector<std::string> url_secrets(const std::string& url) {
  std::vector<std::string> secrets;
  CURLU* parsed = curl_url();
  if (parsed == nullptr) return secrets;
  auto add = [&secrets](std::string value) {
    if (value.empty()) return;
    // As written and as decoded: a message may quote either.
    if (char* decoded =
            curl_easy_unescape(nullptr, value.data(), static_cast<int>(value.size()), nullptr)) {
      if (decoded[0] != '\0' && value != decoded) secrets.emplace_back(decoded);
      curl_free(decoded);
    }
    secrets.push_back(std::move(value));
  };
  if (curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    if (std::optional<std::string> password = url_part(parsed, CURLUPART_PASSWORD)) {
      add(*password);
    }
    if (std::optional<std::string> query = url_part(parsed, CURLUPART_QUERY)) {
      std::string_view rest(*query);
      while (!rest.empty()) {
        const std::string_view pair = rest.substr(0, rest.find('&'));
        rest.remove_prefix(std::min(rest.size(), pair.size() + 1));
        const std::size_t eq = pair.find('=');
        if (eq != std::string_view::npos && secret_parameter(pair.substr(0, eq))) {
          add(std::string(pair.substr(eq + 1)));
        }
      }
    }
  } else {
    // Unparsed: what follows `:` before `@` may be a password.
    const std::size_t at = url.find('@');
    const std::size_t scheme = url.find("://");
    const std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
    if (at != std::string::npos && at > start) {
      const std::size_t colon = url.find(':', start);
      if (colon != std::string::npos && colon < at) add(url.substr(colon + 1, at - colon - 1));
    }
  }
  curl_url_cleanup(parsed);
  return secrets;
}

std::string scrubbed(std::string text, const std::vector<std::string>& secrets) {
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    for (std::size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + 3)) {
      text.replace(at, secret.size(), "***");
    }
  }
  return text;
}

std::string HttpReply::message() const {
  if (!transported) return error;
  std::string_view text(body);
  while (!text.empty() && (text.front() == '\n' || text.front() == ' ')) text.remove_prefix(1);
  text = text.substr(0, text.find('\n'));
  if (text.empty()) return "HTTP status " + std::to_string(status);
  return std::string(text);
}

ClickHouseHttp::ClickHouseHttp(std::string url, double timeout_s)
    : url_(std::move(url)),
      shown_url_(redacted_url(url_)),
      timeout_ms_(std::max(1L, std::lround(timeout_s * 1000.0))),
      curl_(nullptr),
      headers_(nullptr) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
  if (!curl_) throw std::runtime_error("libcurl could not be initialised");
  // No `Expect: 100-continue` wait before a large body; plain text.
  curl_slist* headers = curl_slist_append(nullptr, "Expect:");
  headers = curl_slist_append(headers, "Content-Type: text/plain; charset=utf-8");
  headers_ = headers;
}

ClickHouseHttp::~ClickHouseHttp() {
  curl_slist_free_all(static_cast<curl_slist*>(headers_));
  curl_easy_cleanup(static_cast<CURL*>(curl_));
}

HttpReply ClickHouseHttp::post(std::string_view query, std::string_view body,
                               std::string_view query_id,
                               const std::vector<std::pair<std::string, std::string>>& settings) {
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_reset(curl);
  HttpReply reply;
  char error[CURL_ERROR_SIZE] = {};
  const std::string url = url_with(curl, url_, query, query_id, settings);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(headers_));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms_);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms_);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  // A statement with data (an INSERT) goes on a connection of its own:
  // libcurl sends a request again by itself when a reused connection dies
  // before the reply, and an INSERT the server had already stored would then
  // be stored twice. The caller decides what to send again.
  if (!query.empty()) curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
  const CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) {
    reply.error = error[0] ? error : curl_easy_strerror(code);
    return reply;
  }
  reply.transported = true;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

std::string sql_string(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  out += '\'';
  return out;
}

}  // namespace passtiming::fleet
