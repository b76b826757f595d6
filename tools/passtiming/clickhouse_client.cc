#include "clickhouse_client.h"

#include <curl/curl.h>

#include <cmath>
#include <mutex>
#include <stdexcept>

namespace passtiming::cli {
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

/// `base` with the parameters `query` and `query_id` added, URL-encoded.
std::string url_with(CURL* curl, const std::string& base, std::string_view query,
                     std::string_view query_id) {
  if (query.empty() && query_id.empty()) return base;
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
  if (!query.empty()) url += "query=" + escaped(curl, query);
  if (!query.empty() && !query_id.empty()) url += '&';
  if (!query_id.empty()) url += "query_id=" + escaped(curl, query_id);
  return url;
}

}  // namespace

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
                               std::string_view query_id) {
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_reset(curl);
  HttpReply reply;
  char error[CURL_ERROR_SIZE] = {};
  const std::string url = url_with(curl, url_, query, query_id);
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

}  // namespace passtiming::cli
