#pragma once
/// \file
/// ClickHouse's HTTP interface through libcurl: one POST at a time, each
/// bounded by a timeout; statements reuse a kept-alive connection, and each
/// INSERT (a POST with a `query`) takes a fresh one, since libcurl silently
/// sends a request again on a reused connection that dies before the reply.
/// No retries here; the caller decides what a failure means (push.h).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace passtiming::fleet {

/// What one HTTP exchange gave.
struct HttpReply {
  /// A complete HTTP response arrived (whatever its status). False on a
  /// transport failure: refused, reset, timed out, cut off.
  bool transported = false;
  long status = 0;    ///< the HTTP status, when transported
  std::string body;   ///< the response body (ClickHouse's result or error text)
  std::string error;  ///< the transport error, when !transported

  /// Status 200.
  bool ok() const { return transported && status == 200; }
  /// Worth sending again: a transport failure, or 502, 503, 504 (a proxy or
  /// load balancer in front of a server that is away).
  bool transient() const { return !transported || status == 502 || status == 503 || status == 504; }
  /// The first line of the body, or the transport error.
  std::string message() const;
};

/// A ClickHouse server at an http:// or https:// URL.
class ClickHouseHttp {
 public:
  /// `url` as given (`http://127.0.0.1:8123`, a path or parameters
  /// allowed); every exchange ends after `timeout_s` seconds.
  ClickHouseHttp(std::string url, double timeout_s);
  ~ClickHouseHttp();
  ClickHouseHttp(const ClickHouseHttp&) = delete;
  ClickHouseHttp& operator=(const ClickHouseHttp&) = delete;

  /// POSTs `body`. A non-empty `query` goes in the URL's `query` parameter:
  /// ClickHouse runs it with the body as its data (`INSERT … FORMAT …`);
  /// otherwise the body is the statement. A non-empty `query_id` names the
  /// query (`system.processes`; the server refuses a second query of an id
  /// while the first runs). `settings` are ClickHouse settings for this
  /// query, sent as URL parameters (`max_insert_block_size`).
  HttpReply post(std::string_view query, std::string_view body, std::string_view query_id = {},
                 const std::vector<std::pair<std::string, std::string>>& settings = {});

  /// The URL as messages may show it: redacted_url().
  const std::string& url() const { return shown_url_; }

 private:
  std::string url_;
  std::string shown_url_;
  long timeout_ms_;
  void* curl_;     ///< CURL*, kept for its connection
  void* headers_;  ///< curl_slist*
};

/// `text` as a ClickHouse string literal: quoted, with `\` and `'` escaped.
std::string sql_string(std::string_view text);

/// `url` with its secrets replaced by `***`: the password of its user
/// information (`user:***@host`) and the values of query parameters whose
/// names say they are secret (password, token, key, secret, in any case
/// and as part of a longer name: `password`, `access_token`). What cannot be
/// parsed as a URL is shown as `<the --clickhouse URL>`. For every message
/// that names the server: CI logs keep them.
std::string redacted_url(const std::string& url);

/// The secrets of `url` as they may appear in a text: the password of its
/// user information and the values of its secret query parameters
/// (redacted_url's), each as written and URL-decoded. Empty ones are left
/// out.
std::vector<std::string> url_secrets(const std::string& url);

/// `text` with every occurrence of each of `secrets` replaced by `***`: the
/// last guard of a message that quotes a server's reply or a transport
/// error, which may echo what was sent.
std::string scrubbed(std::string text, const std::vector<std::string>& secrets);

}  // namespace passtiming::fleet
