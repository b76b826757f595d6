#pragma once
/// \file
/// A Profile as one self-contained HTML page: per section a flame chart of
/// the pass tree, a sortable table aggregated by pass name, and the top-N
/// executions by self time. No network, no external script; the page builds
/// its DOM from an embedded JSON block with textContent only, and a
/// Content-Security-Policy lets nothing but its own script run.

#include <cstddef>
#include <string>

#include "passtiming/engine/profile.h"

namespace passtiming {

/// What the HTML report shows besides the profile itself.
struct HtmlOptions {
  std::string title = "Pass timing report";  ///< the page's heading and <title>
  std::size_t top_n = 10;                    ///< rows of each section's top-N list
};

/// The page for `profile`. Opened with the fragment `#selftest`, the page
/// also measures its own layout and writes the result, as JSON, into
/// `<pre id="passtiming-selftest">` (what the headless-Chromium test reads).
///
///     passtiming::HtmlOptions options;
///     options.top_n = 20;
///     std::string html = passtiming::render_html_report(session.profile(), options);
std::string render_html_report(const Profile& profile, const HtmlOptions& options = {});

}  // namespace passtiming
