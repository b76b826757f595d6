#include "passtiming/formats/html_report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "browser/sample_profiles.h"
#include "formats/html/assets.h"
#include "passtiming/engine/timing_state.h"
#include "test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::kAttributeBreakout;
using ::passtiming::testing::kScriptBreakout;
using ::passtiming::testing::pipeline_profile;
using ::passtiming::testing::read_file;
using Json = nlohmann::json;

constexpr std::string_view kDataOpen = "<script type=\"application/json\" id=\"passtiming-data\">";

std::size_t count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

/// The text of the page's data block, exactly as embedded.
std::string data_block(const std::string& html) {
  const std::size_t open = html.find(kDataOpen);
  EXPECT_NE(open, std::string::npos);
  const std::size_t begin = open + kDataOpen.size();
  const std::size_t end = html.find("</script>", begin);
  EXPECT_NE(end, std::string::npos);
  return html.substr(begin, end - begin);
}

/// Compares with tests/golden/html/NAME, or rewrites it when
/// PASSTIMING_UPDATE_GOLDEN is set (then review the diff).
void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(PASSTIMING_GOLDEN_DIR) + "/html/" + name;
  if (std::getenv("PASSTIMING_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << actual;
  EXPECT_EQ(actual, read_file(path)) << "golden file " << path;
}

TEST(HtmlReportTest, PageWithoutMetricsIsTheSkeletonAroundTheGoldenData) {
  // A profile that recorded no metric gives the page it gave before metrics
  // existed: the same data block, byte for byte, in the same markup.
  const std::string html = render_html_report(pipeline_profile());
  const std::string data = data_block(html);
  expect_golden("pipeline.data.json", data);
  const std::string head =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src ";
  ASSERT_EQ(html.rfind(head, 0), 0u);
  const std::size_t title = html.find("; base-uri 'none'; form-action 'none'\">\n<title>");
  ASSERT_NE(title, std::string::npos);
  const std::string tail =
      "; base-uri 'none'; form-action 'none'\">\n<title>Pass timing report</title>\n"
      "<style>" +
      std::string(detail::kReportCss) + "</style>\n</head>\n<body>\n<main id=\"app\"></main>\n" +
      std::string(kDataOpen) + data + "</script>\n<script>" + std::string(detail::kReportJs) +
      "</script>\n</body>\n</html>\n";
  EXPECT_EQ(html.substr(title), tail);
}

TEST(HtmlReportTest, PageIsSelfContained) {
  const std::string html = render_html_report(pipeline_profile());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_EQ(count(html, "<script"), 2u);  // the data block and the page's own script
  EXPECT_EQ(count(html, "</script>"), 2u);
  EXPECT_EQ(count(html, "<style>"), 1u);
  EXPECT_EQ(count(html, "<link"), 0u);
  // No external image, script or frame outside the data (where a hostile name has " src=").
  const std::string data = data_block(html);
  std::string markup = html;
  markup.erase(markup.find(data), data.size());
  EXPECT_EQ(count(markup, " src="), 0u);
  EXPECT_EQ(count(html, "http://"), 0u);
  EXPECT_EQ(count(html, "https://"), 0u);
  EXPECT_EQ(count(html, "@import"), 0u);
  EXPECT_NE(html.find("content=\"default-src 'none'; style-src 'sha256-"), std::string::npos);
  EXPECT_NE(html.find("; script-src 'sha256-"), std::string::npos);
  EXPECT_EQ(html.substr(html.size() - 8), "</html>\n");
}

TEST(HtmlReportTest, DataBlockCannotCloseItsElement) {
  const std::string html = render_html_report(pipeline_profile());
  const std::string data = data_block(html);
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_EQ(data.find('>'), std::string::npos);
  EXPECT_EQ(data.find('&'), std::string::npos);
  EXPECT_NE(data.find("\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e"),
            std::string::npos);
  // The hostile names are still the same strings once parsed.
  const Json page = Json::parse(data);
  const Json& names0 = page.at("sections").at(0).at("names");
  const Json& names1 = page.at("sections").at(1).at("names");
  EXPECT_NE(std::find(names0.begin(), names0.end(), kScriptBreakout), names0.end());
  EXPECT_NE(std::find(names1.begin(), names1.end(), kAttributeBreakout), names1.end());
  EXPECT_NE(std::find(names1.begin(), names1.end(), "<b>matmul</b>"), names1.end());
  EXPECT_EQ(page.at("sections").at(1).at("context"), "stage=codegen, note=</script>");
}

TEST(HtmlReportTest, RecordsAreEmbeddedInStartOrder) {
  const Profile profile = pipeline_profile();
  const Json page = Json::parse(data_block(render_html_report(profile)));
  ASSERT_EQ(page.at("sections").size(), 2u);
  const Json& s0 = page.at("sections").at(0);
  ASSERT_EQ(s0.at("records").size(), 7u);
  // [sequence, parent, thread, depth, name, kernel, start, inclusive, self, flags]
  const Json& lower = s0.at("records").at(0);
  EXPECT_EQ(lower, Json::parse("[0,-1,0,0,1,2,0,4700401,0,0]"));
  EXPECT_EQ(s0.at("names").at(1), "tl.lower");
  EXPECT_EQ(s0.at("names").at(2), "matmul_kernel");
  const Json& vectorize = s0.at("records").at(5);
  EXPECT_EQ(s0.at("names").at(vectorize.at(4).get<int>()), "VectorizeLoop");
  EXPECT_EQ(vectorize.at(1), 2);                  // parent: LowerTileOp
  EXPECT_EQ(vectorize.at(3), 2);                  // depth
  EXPECT_EQ(vectorize.at(6), 1500000 + 2450000);  // start, from the section's first start
  EXPECT_EQ(vectorize.at(7), 400);
  EXPECT_EQ(page.at("top_n"), 10);
  EXPECT_EQ(page.at("metadata").at("command"), "example --kernel matmul");
}

/// Exact metrics for the lowering section of pipeline_profile(): record i
/// (in completion order) gets numbers built from i, instructions stay not
/// measured, and every second record's IR change is known.
Profile profile_with_metrics() {
  Profile profile = pipeline_profile();
  Section& s = profile.sections.at(0);
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    const std::int64_t k = static_cast<std::int64_t>(i);
    RecordMetrics m;
    m.cpu_ns = 1000 * (k + 1);
    m.cpu_self_ns = 500 * (k + 1);
    m.rss_start_bytes = (k + 1) << 20;
    m.rss_end_bytes = (k + 3) << 20;
    m.rss_peak_bytes = (k + 9) << 20;
    m.ir_before = 100 + k;
    m.ir_after = 90 + 2 * k;
    if (i % 2 == 0) m.ir_flags = kIrChangeKnown | (i % 4 == 0 ? kIrChanged : 0);
    s.metrics.push_back(m);
  }
  profile.metrics.recorded = parse_metrics("cpu,rss,ir", "test");
  profile.metrics.unavailable.push_back(
      {Metric::instructions, "perf_event_open: No such file or directory </script>"});
  return profile;
}

TEST(HtmlReportTest, MetricsAreEmbeddedParallelToRecords) {
  const Profile profile = profile_with_metrics();
  const std::string data = data_block(render_html_report(profile));
  EXPECT_EQ(data.find('<'), std::string::npos);
  const Json page = Json::parse(data);
  EXPECT_EQ(page.at("metrics").at("recorded"), Json::parse(R"(["cpu","rss","ir"])"));
  EXPECT_EQ(
      page.at("metrics").at("unavailable"),
      Json::parse(R"({"instructions":"perf_event_open: No such file or directory </script>"})"));
  EXPECT_EQ(page.at("metrics").at("fields"),
            Json::parse(R"(["cpu_ns","cpu_self_ns","rss_start_bytes","rss_end_bytes",
                            "rss_peak_bytes","ir_before","ir_after","instructions",
                            "instructions_self","ir_flags"])"));
  const Section& s = profile.sections.at(0);
  const Json& records = page.at("sections").at(0).at("records");
  const Json& metrics = page.at("sections").at(0).at("metrics");
  ASSERT_EQ(metrics.size(), s.records.size());
  ASSERT_EQ(records.size(), s.records.size());
  // The first record in start order is the Sequential, which completed last.
  const std::int64_t last = static_cast<std::int64_t>(s.records.size()) - 1;
  ASSERT_EQ(records.at(0).at(0), 0);
  EXPECT_EQ(s.records.at(last).sequence, 0u);
  const std::int64_t mib = 1 << 20;
  EXPECT_EQ(metrics.at(0), Json({1000 * (last + 1), 500 * (last + 1), (last + 1) * mib,
                                 (last + 3) * mib, (last + 9) * mib, 100 + last, 90 + 2 * last, -1,
                                 -1, last % 2 == 0 ? (last % 4 == 0 ? 3 : 1) : 0}));
  // Every array stands at its record's place in start order.
  for (std::size_t j = 0; j < records.size(); ++j) {
    const std::uint32_t seq = records.at(j).at(0).get<std::uint32_t>();
    std::size_t i = 0;
    while (s.records.at(i).sequence != seq) ++i;
    const RecordMetrics& m = s.metrics.at(i);
    EXPECT_EQ(metrics.at(j),
              Json({m.cpu_ns, m.cpu_self_ns, m.rss_start_bytes, m.rss_end_bytes, m.rss_peak_bytes,
                    m.ir_before, m.ir_after, -1, -1, static_cast<int>(m.ir_flags)}))
        << "record " << j;
  }
  // The code generation section recorded none: it has no metrics member.
  EXPECT_FALSE(page.at("sections").at(1).contains("metrics"));
  // Still one line per record.
  EXPECT_EQ(count(data, "\n["), 2 * s.records.size() + profile.sections.at(1).records.size());
}

TEST(HtmlReportTest, UnavailableMetricAloneIsNamedWithoutColumns) {
  Profile profile = pipeline_profile();
  profile.metrics.unavailable.push_back({Metric::instructions, "perf_event_open: EACCES"});
  const Json page = Json::parse(data_block(render_html_report(profile)));
  EXPECT_EQ(page.at("metrics").at("recorded"), Json::array());
  EXPECT_EQ(page.at("metrics").at("unavailable").at("instructions"), "perf_event_open: EACCES");
  EXPECT_FALSE(page.at("sections").at(0).contains("metrics"));
}

TEST(HtmlReportTest, TitleIsEscapedAndTopNConfigurable) {
  HtmlOptions options;
  options.title = "<i>a & b</i>";
  options.top_n = 3;
  const std::string html = render_html_report(Profile{}, options);
  EXPECT_NE(html.find("<title>&lt;i&gt;a &amp; b&lt;/i&gt;</title>"), std::string::npos);
  const Json page = Json::parse(data_block(html));
  EXPECT_EQ(page.at("title"), "<i>a & b</i>");
  EXPECT_EQ(page.at("top_n"), 3);
  EXPECT_TRUE(page.at("sections").empty());
}

TEST(HtmlReportTest, InvalidUtf8AndSeparatorsAreEscaped) {
  TimingStateMachine sm;
  sm.enter(0, "ctx\xff");
  const std::string name = "a\xc3\x28 line\u2028para\u2029 \x1b[2J";
  sm.begin(0, {name, ""});
  sm.end(10, {name});
  Profile p;
  p.sections.push_back(sm.take_section());
  const std::string data = data_block(render_html_report(p));
  EXPECT_EQ(data.find("\u2028"), std::string::npos);
  EXPECT_EQ(data.find("\u2029"), std::string::npos);
  // As the profile writer does: U+FFFD for the stray byte, \u escapes for the rest.
  EXPECT_NE(data.find("\"a\ufffd( line\\u2028para\\u2029 \\u001b[2J\""), std::string::npos);
  const Json page = Json::parse(data);
  EXPECT_EQ(page.at("sections").at(0).at("context"), "ctx\ufffd");
}

}  // namespace
}  // namespace passtiming
