#pragma once
/// \file
/// The HTML report's stylesheet and script, embedded at build time from
/// src/html/report.css and src/html/report.js (see embed_assets.cmake), each
/// with the hex SHA-256 of its bytes for the page's Content-Security-Policy.

#include <string_view>

namespace passtiming::detail {

extern const std::string_view kReportCss;
extern const std::string_view kReportCssSha256;
extern const std::string_view kReportJs;
extern const std::string_view kReportJsSha256;

}  // namespace passtiming::detail
