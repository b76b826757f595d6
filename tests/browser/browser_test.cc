/// The HTML report in a real browser. Each test renders a profile made by
/// the library, opens it in headless Chromium with the `#selftest` fragment
/// (the page then measures its own bars with getBoundingClientRect and writes
/// the figures into the DOM), and reads the DOM Chromium dumps.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "browser/sample_profiles.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/formats/html_report.h"
#include "phase_fixtures.h"

namespace passtiming {
namespace {

namespace fs = std::filesystem;
using ::passtiming::testing::kMicro;
using ::passtiming::testing::kMilli;
using ::passtiming::testing::metrics_profile;
using ::passtiming::testing::pipeline_profile;
using ::passtiming::testing::sequence;
using ::passtiming::testing::TimedPass;
using Json = nlohmann::json;

/// A fresh directory for one browser run (page and Chromium profile),
/// removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "passtiming-browser-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// What Chromium made of a page.
struct BrowserRun {
  std::string dom;  ///< the serialised DOM after the page's script ran
  Json selftest;    ///< what the page measured
};

std::string unescape_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
    } else if (text.substr(i, 5) == "&amp;") {
      out.push_back('&'), i += 4;
    } else if (text.substr(i, 4) == "&lt;") {
      out.push_back('<'), i += 3;
    } else if (text.substr(i, 4) == "&gt;") {
      out.push_back('>'), i += 3;
    } else if (text.substr(i, 6) == "&nbsp;") {
      out.push_back(' '), i += 5;
    } else {
      out.push_back('&');
    }
  }
  return out;
}

/// Opens `html` in headless Chromium at `#selftest` and returns its DOM.
/// Fails the test (never skips it) when Chromium is missing or fails.
BrowserRun open_in_chromium(const std::string& html) {
  const std::string chromium = PASSTIMING_CHROMIUM;
  if (chromium.empty() || access(chromium.c_str(), X_OK) != 0) {
    ADD_FAILURE() << "Chromium is not installed (looked for '" << chromium
                  << "'): install Debian's 'chromium' package, or configure with "
                     "-DPASSTIMING_BROWSER_TESTS=OFF to leave this test out";
    return {};
  }
  TempDir dir;
  const fs::path page = dir.path() / "report.html";
  std::ofstream(page, std::ios::binary) << html;
  const fs::path log = dir.path() / "chromium.log";
  const std::string command =
      "timeout 60 '" + chromium +
      "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --window-size=1280,1000 --user-data-dir='" +
      (dir.path() / "chromium-profile").string() + "' --dump-dom 'file://" + page.string() +
      "#selftest' 2>'" + log.string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return {};
  }
  BrowserRun run;
  char buffer[1 << 16];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.dom.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0) {
    std::ifstream in(log);
    std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Status 124 is the timeout: a page whose script opened a dialog (an
    // injected alert()) never finishes loading.
    ADD_FAILURE() << "chromium exited with status " << status << ":\n" << err;
    return run;
  }
  const std::string open = "<pre id=\"passtiming-selftest\">";
  const std::size_t begin = run.dom.find(open);
  const std::size_t end = run.dom.find("</pre>", begin);
  if (begin == std::string::npos || end == std::string::npos) {
    ADD_FAILURE() << "the page did not write its self-test; its script did not run:\n"
                  << run.dom.substr(0, 2000);
    return run;
  }
  run.selftest = Json::parse(unescape_text(
      std::string_view(run.dom).substr(begin + open.size(), end - begin - open.size())));
  return run;
}

/// The layout assertions every page must pass: every record drawn or
/// counted in a merged bar, children inside their parent and no wider than
/// it, top-level bars filling the lane; and, zoomed into a bar, the bar
/// filling the lane with all its records accounted for, until zoomed out.
void expect_consistent_layout(const Json& t, std::size_t records) {
  EXPECT_EQ(t.at("bars").get<std::size_t>(), records) << t;
  EXPECT_EQ(t.at("records").get<std::size_t>(), records) << t;
  EXPECT_EQ(t.at("unnestedBars"), 0) << t;
  EXPECT_EQ(t.at("containmentViolations"), 0) << t;
  EXPECT_LE(t.at("maxChildExcessPx").get<double>(), 0.5) << t;
  EXPECT_LE(t.at("maxLevelErrorPx").get<double>(), 1.0) << t;
  for (const Json& lane : t.at("lanes")) {
    EXPECT_GT(lane.at("widthPx").get<double>(), 600) << lane;
    EXPECT_EQ(lane.at("bars"), lane.at("expectedBars")) << lane;
  }
  if (!t.contains("zoomTarget")) return;
  const Json& target = t.at("zoomTarget");
  const Json& zoomed = t.at("zoomed");
  EXPECT_EQ(zoomed.at("zoomDepth"), target.at("depth")) << t;
  EXPECT_EQ(zoomed.at("bars"), target.at("count")) << t;
  EXPECT_EQ(zoomed.at("expectedBars"), target.at("count")) << t;
  EXPECT_NEAR(zoomed.at("levelSumPx").get<double>(), zoomed.at("widthPx").get<double>(), 1.0) << t;
  EXPECT_EQ(zoomed.at("containmentViolations"), 0) << t;
  EXPECT_EQ(zoomed.at("unnestedBars"), 0) << t;
  EXPECT_LE(zoomed.at("maxChildExcessPx").get<double>(), 0.5) << t;
  EXPECT_NE(t.at("zoomedTitle").get<std::string>(), "") << t;
  const Json& before = t.at("lanes").at(0);
  const Json& after = t.at("afterZoomOut");
  EXPECT_EQ(after.at("elements"), before.at("elements")) << t;
  EXPECT_EQ(after.at("bars"), before.at("bars")) << t;
  EXPECT_EQ(after.at("zoomDepth"), 0) << t;
}

/// The pipeline profile's page, opened once for the tests that look at it.
const BrowserRun& pipeline_run() {
  static const BrowserRun run = open_in_chromium(render_html_report(pipeline_profile()));
  return run;
}

/// The page of a profile of `section` alone, opened.
BrowserRun open_section(Section section) {
  Profile profile;
  profile.sections.push_back(std::move(section));
  return open_in_chromium(render_html_report(profile));
}

TEST(BrowserTest, PipelineReportRendersOneBarPerRecordAndWidthsAddUp) {
  const Profile profile = pipeline_profile();
  const BrowserRun& run = pipeline_run();
  ASSERT_FALSE(run.selftest.is_null());
  const Json& t = run.selftest;
  expect_consistent_layout(t, profile.record_count());
  // One thread per section: each lane's top-level bars span the whole lane.
  ASSERT_EQ(t.at("lanes").size(), 2u);
  for (const Json& lane : t.at("lanes")) {
    EXPECT_NEAR(lane.at("levelSumPx").get<double>(), lane.at("widthPx").get<double>(), 1.0) << lane;
  }
  EXPECT_EQ(t.at("lanes").at(0).at("bars"), 7);
  EXPECT_EQ(t.at("lanes").at(1).at("bars"), 4);
  EXPECT_EQ(t.at("elements"), 11);
  // Distinct pass names: 6 in the lowering section, 4 in code generation.
  EXPECT_EQ(t.at("tableRows"), 10);
}

TEST(BrowserTest, PhasesAreALaneAboveTheSectionsWithTheUntimedTimeShown) {
  const BrowserRun run = open_in_chromium(render_html_report(testing::phased_profile()));
  ASSERT_FALSE(run.selftest.is_null());
  const Json& t = run.selftest;
  // The sections' flame charts as they always were.
  expect_consistent_layout(t, 4);
  const Json& lane = t.at("phaseLane");
  ASSERT_TRUE(lane.is_object()) << t;
  // Four phases and the two stretches of the compile that none of them
  // covers (6..10 s, 11.5..12 s: its 4.5 s untimed).
  EXPECT_EQ(lane.at("bars"), 6) << lane;
  EXPECT_EQ(lane.at("untimed"), 2) << lane;
  EXPECT_EQ(lane.at("failed"), 1) << lane;
  EXPECT_EQ(lane.at("hidden"), 0) << lane;
  EXPECT_EQ(lane.at("outsideParent"), 0) << lane;
  EXPECT_EQ(lane.at("overlaps"), 0) << lane;
  EXPECT_EQ(lane.at("rows"), 2) << lane;
  EXPECT_EQ(lane.at("labels"), Json::parse(R"([
      "compile matmul.py \u00b7 12.000 s \u00b7 100.0%",
      "untimed \u00b7 4.000 s \u00b7 33.3%",
      "untimed \u00b7 500.000 ms \u00b7 4.2%",
      "lower \u00b7 6.000 s \u00b7 50.0%",
      "codegen \u00b7 1.000 s \u00b7 8.3%",
      "nvcc kernel.cu \u00b7 500.000 ms \u00b7 4.2%"])"))
      << lane;
  EXPECT_EQ(lane.at("inPhase"), Json::parse(R"(["in phase lower", "in phase codegen"])")) << lane;
}

TEST(BrowserTest, ConcurrentCompilesGetBandsOfTheirOwnInThePhaseLane) {
  // Three compiles: two at once on threads 7 and 8 (an autotuner), then one
  // after both on thread 7 again, which shares the first band.
  Profile profile = testing::phased_profile();
  const Nanoseconds s = testing::kSecond;
  profile.phases.push_back({"compile", "other.py", kNoPhase, 8, 2 * s, 6 * s, -1, 0});
  profile.phases.push_back({"lower", "", 4, 8, 2 * s, 5 * s, -1, 0});
  profile.phases.push_back({"compile", "late.py", kNoPhase, 7, 13 * s, 2 * s, -1, 0});
  const BrowserRun run = open_in_chromium(render_html_report(profile));
  ASSERT_FALSE(run.selftest.is_null());
  const Json& lane = run.selftest.at("phaseLane");
  EXPECT_EQ(lane.at("overlaps"), 0) << lane;
  EXPECT_EQ(lane.at("outsideParent"), 0) << lane;
  EXPECT_EQ(lane.at("rows"), 4) << lane;  // two bands of two rows
  EXPECT_EQ(lane.at("bars"), 10) << lane;
}

TEST(BrowserTest, WithoutPhasesThereIsNoPhaseLane) {
  EXPECT_TRUE(pipeline_run().selftest.at("phaseLane").is_null()) << pipeline_run().selftest;
}

TEST(BrowserTest, HostileNamesShowAsTextAndRunNoScript) {
  const BrowserRun& run = pipeline_run();
  ASSERT_FALSE(run.selftest.is_null());
  const Json& t = run.selftest;
  EXPECT_EQ(t.at("hostileNames"), 2) << t;
  EXPECT_EQ(t.at("hostileShownAsText"), 2) << t;  // as bar label and table cell text
  EXPECT_EQ(t.at("images"), 0) << t;
  EXPECT_EQ(t.at("scripts"), 2) << t;
  // In the serialised DOM, the names are escaped text, never elements.
  EXPECT_NE(run.dom.find("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(run.dom.find("&lt;b&gt;matmul&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(run.dom.find("<img"), std::string::npos);
  EXPECT_EQ(run.dom.find("<svg"), std::string::npos);
  EXPECT_EQ(run.dom.find("<b>matmul"), std::string::npos);
  EXPECT_EQ(run.dom.find("data-pwned"), std::string::npos);
}

/// The table of `kind` ("aggregate" or "top") of section `index`, as the
/// self-test read it: {head: [...], rows: [[...], ...]}.
Json table_of(const Json& t, const std::string& kind, std::size_t index) {
  std::size_t seen = 0;
  for (const Json& table : t.at("tables")) {
    if (table.at("kind") == kind && seen++ == index) return table;
  }
  ADD_FAILURE() << "no " << kind << " table " << index << " in " << t;
  return Json::object();
}

Json row_named(const Json& table, const std::string& name, std::size_t column) {
  for (const Json& row : table.at("rows")) {
    if (row.at(column) == name) return row;
  }
  ADD_FAILURE() << "no row " << name << " in " << table;
  return Json::array();
}

/// The cells of `row` from `first` on.
Json cells_from(const Json& row, std::size_t first) {
  return Json(std::vector<Json>(row.begin() + static_cast<std::ptrdiff_t>(first), row.end()));
}

TEST(BrowserTest, WithoutMetricsNoMetricColumnsNoSwitch) {
  const BrowserRun& run = pipeline_run();
  ASSERT_FALSE(run.selftest.is_null());
  const Json& t = run.selftest;
  EXPECT_TRUE(t.at("colourSwitch").is_null()) << t;
  EXPECT_EQ(t.at("unavailable"), Json::array()) << t;
  EXPECT_EQ(
      table_of(t, "aggregate", 0).at("head"),
      Json({"Pass", "Runs", "Inclusive (ms)", "Self (ms)", "Mean (ms)", "Max (ms)", "Self share"}));
  EXPECT_EQ(table_of(t, "top", 0).at("head"), Json({"#", "Pass", "Kernel", "Self (ms)", "Share"}));
  // Without CPU time, the top list ranks by wall self time.
  const Json titles = t.at("tableTitles");
  EXPECT_NE(std::find(titles.begin(), titles.end(), "Top 7 by self time"), titles.end()) << titles;
  EXPECT_EQ(run.dom.find("id=\"colour-by\""), std::string::npos);
  EXPECT_EQ(run.dom.find("<select"), std::string::npos);
  // Kernel, inclusive, self, depth, sequence, passes inside: no metric rows.
  EXPECT_EQ(t.at("tooltip").size(), 6u) << t;
  EXPECT_EQ(run.dom.find("class=\"legend"), std::string::npos);
}

/// The metrics profile's page, opened once.
const BrowserRun& metrics_run() {
  static const BrowserRun run = open_in_chromium(render_html_report(metrics_profile()));
  return run;
}

TEST(BrowserTest, MetricColumnsShowTheExactValues) {
  const Profile profile = metrics_profile();
  const BrowserRun& run = metrics_run();
  ASSERT_FALSE(run.selftest.is_null());
  const Json& t = run.selftest;
  expect_consistent_layout(t, profile.record_count());
  EXPECT_EQ(t.at("unavailable"),
            Json({"instructions: unavailable \u2014 perf_event_open: No such file or directory"}));
  const Json aggregate = table_of(t, "aggregate", 0);
  EXPECT_EQ(aggregate.at("head"),
            Json({"Pass", "Runs", "Inclusive (ms)", "Self (ms)", "Mean (ms)", "Max (ms)",
                  "Self share", "CPU self (ms)", "CPU/wall %", "RSS growth (MiB)", "RSS peak (MiB)",
                  "IR before\u2192after", "IR changed (runs)"}));
  // Simplify ran as records 0 and 5: CPU self 750,000 + 375,000 ns of
  // 2,250,001 ns self, growth 0 + 1.25 MiB, peaks 100 and 105 MiB, IR
  // 1000→1000 (unchanged) and 1050→1045.
  EXPECT_EQ(cells_from(row_named(aggregate, "Simplify", 0), 7),
            Json({"1.125", "50.0%", "+1.25", "105.00", "2050\u21922045", "1 of 2"}));
  // The Sequential, record 6: half of its 4.700401 ms on the CPU, none self.
  EXPECT_EQ(cells_from(row_named(aggregate, "tl.lower", 0), 7),
            Json({"0.000", "\u2013", "+1.50", "106.00", "1060\u21921054", "1 of 1"}));
  const Json top = table_of(t, "top", 0);
  EXPECT_EQ(top.at("head"),
            Json({"#", "Pass", "Kernel", "Self (ms)", "Share", "CPU self (ms)", "CPU/wall %",
                  "RSS growth (MiB)", "RSS peak (MiB)", "IR before\u2192after", "IR changed"}));
  // The longest self time is LayoutInference, record 1.
  const Json first = top.at("rows").at(0);
  EXPECT_EQ(first.at(1), "LayoutInference");
  EXPECT_EQ(cells_from(first, 5),
            Json({"1.000", "50.0%", "+0.25", "101.00", "1010\u21921009", "yes"}));
  // Code generation: SplitHostDevice is its record 0, unchanged.
  EXPECT_EQ(cells_from(row_named(table_of(t, "top", 1), "SplitHostDevice", 1), 5),
            Json({"1.500", "50.0%", "+0.00", "100.00", "1000\u21921000", "no"}));
}

/// With CPU time recorded, a section's tables rank by it: wall time also
/// counts the waits for a processor. Here the pass with the least wall self
/// time of the first section did the most work.
TEST(BrowserTest, TablesRankByCpuTimeWhenItWasRecordedAndMergedSectionsSayWhereFrom) {
  Profile profile = metrics_profile();
  Section& s = profile.sections[0];
  std::size_t least = 0;
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    if (s.records[i].self_ns < s.records[least].self_ns) least = i;
  }
  s.metrics[least].cpu_self_ns = 50 * kMilli;
  const std::string busiest(s.name_of(s.records[least]));
  profile.sections[1].origin = {"profiles/tu-77.json",
                                {.command = "clang-19 -c b.c", .host = "farm-3", .pid = 77}};
  const BrowserRun run = open_in_chromium(render_html_report(profile));
  ASSERT_FALSE(run.selftest.is_null());
  const Json& t = run.selftest;
  EXPECT_EQ(table_of(t, "top", 0).at("rows").at(0).at(1), busiest) << t;
  EXPECT_EQ(table_of(t, "aggregate", 0).at("rows").at(0).at(0), busiest) << t;
  const Json titles = t.at("tableTitles");
  EXPECT_NE(std::find(titles.begin(), titles.end(),
                      "Top " + std::to_string(std::min<std::size_t>(10, s.records.size())) +
                          " by CPU self time"),
            titles.end())
      << titles;
  const Json heads = t.at("sectionHeads");
  ASSERT_EQ(heads.size(), 2u) << heads;
  EXPECT_EQ(heads.at(0), "Section 1stage=lower");
  EXPECT_EQ(heads.at(1),
            "Section 2stage=codegen, note=</script>from profiles/tu-77.json (farm-3, pid 77)");
}

TEST(BrowserTest, ColourSwitchOffersTheRecordedMetricsAndRecoloursBars) {
  const BrowserRun& run = metrics_run();
  ASSERT_FALSE(run.selftest.is_null());
  const Json& sw = run.selftest.at("colourSwitch");
  ASSERT_TRUE(sw.is_object()) << run.selftest;
  EXPECT_EQ(sw.at("label"), "Colour by");
  EXPECT_EQ(sw.at("options"), Json({"name", "cpu", "rss", "ir"}));  // no instructions
  EXPECT_EQ(sw.at("labels"),
            Json({"pass name (default)", "CPU share of wall", "RSS growth", "IR change"}));
  // The first bar is the lowering Sequential (record 6): CPU half its wall
  // time, the middle of the 0–100% scale; the most RSS growth of the page
  // (1.5 MiB), the dark end; the most IR shrunk (−6), the light end.
  const Json& modes = sw.at("modes");
  EXPECT_EQ(sw.at("seq"), "0");
  EXPECT_FALSE(modes.at("name").at("legendShown"));
  EXPECT_EQ(modes.at("cpu").at("background"), "rgb(232, 107, 63)");
  EXPECT_EQ(modes.at("rss").at("background"), "rgb(110, 25, 84)");
  EXPECT_EQ(modes.at("ir").at("background"), "rgb(253, 237, 176)");
  for (const char* metric : {"cpu", "rss", "ir"}) {
    const Json& mode = modes.at(metric);
    EXPECT_NE(mode.at("background"), modes.at("name").at("background")) << metric;
    EXPECT_TRUE(mode.at("legendShown")) << metric;
    EXPECT_EQ(mode.at("unmeasured"), 0) << metric;
  }
  EXPECT_NE(modes.at("cpu").at("legend").get<std::string>().find("0%100%"), std::string::npos)
      << modes.at("cpu");
  EXPECT_NE(modes.at("rss").at("legend").get<std::string>().find("+0.00 MiB+1.50 MiB"),
            std::string::npos)
      << modes.at("rss");
  EXPECT_NE(modes.at("ir").at("legend").get<std::string>().find("\u22126+0"), std::string::npos)
      << modes.at("ir");
  // Hovering the Sequential (record 6: 4.700401 ms) shows its metrics.
  const Json& tooltip = run.selftest.at("tooltip");
  auto row = [&](const std::string& label) {
    for (const Json& r : tooltip) {
      if (r.at(0) == label) return r.at(1).get<std::string>();
    }
    ADD_FAILURE() << "no tooltip row " << label << " in " << tooltip;
    return std::string();
  };
  EXPECT_EQ(row("CPU"), "2.350 ms  (self 0 ns)");
  EXPECT_EQ(row("CPU / wall"), "50.0%");
  EXPECT_EQ(row("RSS"), "70.00 \u2192 71.50 MiB  (+1.50)");
  EXPECT_EQ(row("RSS peak"), "106.00 MiB");
  EXPECT_EQ(row("IR size"), "1060 \u2192 1054  (changed)");
  // Back to the pass name: the bar's own colour again, no legend.
  EXPECT_EQ(sw.at("restored").at("background"), modes.at("name").at("background"));
  EXPECT_FALSE(sw.at("restored").at("legendShown"));
}

TEST(BrowserTest, ThreadsGetLanesScaledToTheLongestThread) {
  TimingStateMachine sm;
  sm.enter(0, "threads");
  sm.begin(0, {"outer", "k", 1});
  sm.begin(0, {"inner", "k", 1});
  sm.end(3 * kMilli, {"inner", 1});
  sm.end(4 * kMilli, {"outer", 1});
  sm.begin(kMilli, {"worker", "k", 2});  // the second thread's pass takes half as long
  sm.end(3 * kMilli, {"worker", 2});
  sm.exit(4 * kMilli);
  const BrowserRun run = open_section(sm.take_section());
  ASSERT_FALSE(run.selftest.is_null());
  const Json& t = run.selftest;
  expect_consistent_layout(t, 3);
  ASSERT_EQ(t.at("lanes").size(), 2u);
  const Json& main = t.at("lanes").at(0);
  const Json& worker = t.at("lanes").at(1);
  EXPECT_NEAR(main.at("levelSumPx").get<double>(), main.at("widthPx").get<double>(), 1.0);
  EXPECT_NEAR(worker.at("levelSumPx").get<double>(), worker.at("widthPx").get<double>() / 2, 1.0);
}

// MLIR forks nested pipelines onto worker threads: their records name a
// parent on another thread (the pass adaptor). Each worker's lane draws its
// own pipelines, as roots of that lane.
TEST(BrowserTest, PipelinesForkedOntoWorkerThreadsAreDrawnInTheirLanes) {
  TimingStateMachine sm;
  const int adaptor = 0;
  sm.enter(0, "threaded");
  sm.begin(0, BeginEvent<>{.pass = "adaptor", .kernel = "m", .thread = 1, .key = &adaptor});
  for (ThreadKey worker : {2, 3}) {
    const Nanoseconds t = static_cast<Nanoseconds>(worker - 1) * kMilli;
    sm.begin(t, BeginEvent<>{
                    .pass = "pipeline", .kernel = "f", .thread = worker, .parent = {1, &adaptor}});
    sm.begin(t, BeginEvent<>{.pass = "canonicalize", .kernel = "f", .thread = worker});
    sm.end(t + kMilli, {"canonicalize", worker});
    sm.begin(t + kMilli, BeginEvent<>{.pass = "cse", .kernel = "f", .thread = worker});
    sm.end(t + 2 * kMilli, {"cse", worker});
    sm.end(t + 2 * kMilli, {"pipeline", worker});
  }
  sm.end(5 * kMilli, {"adaptor", 1});
  sm.exit(5 * kMilli);
  const BrowserRun run = open_section(sm.take_section());
  ASSERT_FALSE(run.selftest.is_null());
  const Json& t = run.selftest;
  expect_consistent_layout(t, 7);
  ASSERT_EQ(t.at("lanes").size(), 3u);
  EXPECT_EQ(t.at("lanes").at(0).at("bars"), 1);
  EXPECT_EQ(t.at("lanes").at(1).at("bars"), 3);
  EXPECT_EQ(t.at("lanes").at(2).at("bars"), 3);
  // Each worker's pipeline (2 ms) against the adaptor's 5 ms: 2/5 of the lane.
  const Json& worker = t.at("lanes").at(1);
  EXPECT_NEAR(worker.at("levelSumPx").get<double>(), worker.at("widthPx").get<double>() * 2 / 5,
              1.0);
}

TEST(BrowserTest, DeepAndWidePipelineAccountsForEveryRecord) {
  // 4 stages × 25 passes, each pass with 2 children of unequal length and
  // every second pass shorter than a microsecond.
  ManualClock clock;
  std::vector<TimedPass> stages;
  for (int s = 0; s < 4; ++s) {
    std::vector<TimedPass> passes;
    for (int p = 0; p < 25; ++p) {
      const Nanoseconds ns = p % 2 ? 300 : (p + 1) * 37 * kMicro;
      passes.push_back({"pass" + std::to_string(p), ns, {{"lower", ns / 3}, {"verify", ns / 5}}});
    }
    stages.push_back(sequence("stage" + std::to_string(s), std::move(passes)));
  }
  const Profile profile = {
      {}, {testing::run_section(clock, sequence("pipeline", std::move(stages)), "k", "deep")}};
  ASSERT_EQ(profile.record_count(), 1u + 4 + 4 * 25 * 3);
  const BrowserRun run = open_in_chromium(render_html_report(profile));
  ASSERT_FALSE(run.selftest.is_null());
  expect_consistent_layout(run.selftest, profile.record_count());
  // The sub-microsecond passes are under a pixel: merged, not drawn singly.
  EXPECT_GT(run.selftest.at("merged"), 0) << run.selftest;
  EXPECT_LT(run.selftest.at("elements"), profile.record_count()) << run.selftest;
}

TEST(BrowserTest, LargeCompileDrawsAFewElementsAndZoomsIntoMergedPasses) {
  // One module pass over 2000 functions of 25 passes each (52,001 records),
  // the passes 2 µs long except that every hundredth function's first pass
  // takes 4 ms: most functions are narrower than a pixel.
  TimingStateMachine sm;
  sm.enter(0, "large");
  Nanoseconds t = 0;
  sm.begin(t, {"ModuleToFunctionPassAdaptor", "module.c", 1});
  for (int f = 0; f < 2000; ++f) {
    const std::string kernel = "f" + std::to_string(f);
    sm.begin(t, {"FunctionPassManager", kernel, 1});
    for (int p = 0; p < 25; ++p) {
      sm.begin(t, {"Pass" + std::to_string(p), kernel, 1});
      t += (f % 100 == 0 && p == 0) ? 4 * kMilli : 2 * kMicro;
      sm.end(t, {"Pass" + std::to_string(p), 1});
    }
    sm.end(t, {"FunctionPassManager", 1});
  }
  sm.end(t, {"ModuleToFunctionPassAdaptor", 1});
  sm.exit(t);
  Profile profile;
  profile.sections.push_back(sm.take_section());
  ASSERT_EQ(profile.record_count(), 1u + 2000 * 26);
  const BrowserRun run = open_in_chromium(render_html_report(profile));
  ASSERT_FALSE(run.selftest.is_null());
  const Json& page = run.selftest;
  expect_consistent_layout(page, profile.record_count());
  // The module, the 20 long functions and their 4 ms passes, a merged bar
  // for each run of short functions and for each long function's short
  // passes: about 80 elements stand for 52,001 records.
  EXPECT_LT(page.at("elements").get<int>(), 200) << page;
  EXPECT_GT(page.at("merged").get<int>(), 20) << page;
  // Zoomed into the first run of 99 short functions (99 × 26 records),
  // each function is wide enough to draw and its passes merge again.
  ASSERT_TRUE(page.contains("zoomTarget")) << page;
  EXPECT_EQ(page.at("zoomTarget").at("merged"), true) << page;
  EXPECT_EQ(page.at("zoomTarget").at("depth"), 1) << page;
  EXPECT_EQ(page.at("zoomTarget").at("count"), 99 * 26) << page;
  EXPECT_EQ(page.at("zoomed").at("elements"), 1 + 99 + 99) << page;
  EXPECT_EQ(page.at("zoomed").at("merged"), 99) << page;
}

}  // namespace
}  // namespace passtiming
