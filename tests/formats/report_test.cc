#include "passtiming/formats/report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "passtiming/engine/timing_state.h"
#include "test_support.h"

namespace passtiming {
namespace {

constexpr Nanoseconds kMs = 1'000'000;
constexpr Nanoseconds kS = 1'000'000'000;

/// The section of the spec's first example: parent 0..5 s, child(matmul) 1..3 s.
Section nested_section() {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"parent", ""});
  sm.begin(1 * kS, {"child", "matmul"});
  sm.end(3 * kS, {"child"});
  sm.end(5 * kS, {"parent"});
  sm.exit(5 * kS);
  return sm.take_section();
}

TEST(ReportTest, MatchesSpecExampleWithContext) {
  EXPECT_EQ(render_report(nested_section(), 0.0, "stage=jit-lower, kernel=matmul"),
            testing::golden("report/spec_example_context.txt"));
}

/// Appends a record built by hand, for reports whose shape the state
/// machine would not produce on its own.
void add_record(Section& s, std::string_view name, int depth, std::uint32_t sequence,
                Nanoseconds inclusive, Nanoseconds self) {
  Record r;
  r.name = s.names.intern(name);
  r.depth = static_cast<std::uint16_t>(depth);
  r.sequence = sequence;
  r.inclusive_ns = inclusive;
  r.self_ns = self;
  s.records.push_back(r);
}

TEST(ReportTest, MatchesSpecExampleWithThreshold) {
  // The spec's second example: 25 ms total, "slow" 20 ms inclusive and 15 ms
  // self, "fast" 5 ms and hidden by the 10 ms threshold.
  Section s;
  add_record(s, "slow", 0, 0, 20 * kMs, 15 * kMs);
  add_record(s, "fast", 0, 1, 5 * kMs, 5 * kMs);
  EXPECT_EQ(render_report(s, 10.0, std::nullopt),
            testing::golden("report/spec_example_threshold.txt"));
}

TEST(ReportTest, NoRecords) {
  Section empty;
  EXPECT_EQ(render_report(empty, 0.0, std::nullopt), "[tilelang pass timing] No passes recorded.");
  EXPECT_EQ(render_report(empty, 5.0, "ctx"),
            "[tilelang pass timing] No passes recorded. Context: ctx");
  // An empty context is falsy, as in Python.
  EXPECT_EQ(render_report(empty, 0.0, ""), "[tilelang pass timing] No passes recorded.");
}

TEST(ReportTest, EmptyContextOmitsContextLine) {
  const std::string text = render_report(nested_section(), 0.0, "");
  EXPECT_EQ(text.find("Context:"), std::string::npos);
  EXPECT_EQ(text, render_report(nested_section(), 0.0, std::nullopt));
}

TEST(ReportTest, KernelSuffixPresentAndAbsent) {
  const std::string text = render_report(nested_section(), 0.0, std::nullopt);
  EXPECT_NE(text.find("  1  parent  "), std::string::npos);
  EXPECT_EQ(text.find("parent("), std::string::npos);
  EXPECT_NE(text.find("    child(matmul)  "), std::string::npos);
}

TEST(ReportTest, LongNamesWidenTheTable) {
  TimingStateMachine sm;
  sm.enter(0);
  const std::string long_name(50, 'p');
  sm.begin(0, {"outer", ""});
  sm.begin(0, {long_name, "k"});
  sm.end(kS, {long_name});
  sm.end(2 * kS, {"outer"});
  sm.exit(2 * kS);
  const std::string text = render_report(sm.section(), 0.0, std::nullopt);
  // W = 2 (indent) + 50 + 3 ("(k)") = 55; S = W + 53 = 108.
  EXPECT_EQ(text.substr(0, text.find('\n')), std::string(108, '='));
  EXPECT_NE(text.find("  2    " + long_name + "(k)    1.0000s    1.0000s   50.0%   50.0%"),
            std::string::npos);
  // Top list: display padded to W + 2 = 57 code points.
  EXPECT_NE(text.find("   2. " + long_name + "(k)" + std::string(4, ' ') + "    1.0000s  50.0%"),
            std::string::npos);
}

TEST(ReportTest, WidthCountsCodePointsNotBytes) {
  TimingStateMachine sm;
  sm.enter(0);
  const std::string name = "\xC3\xA9" + std::string(44, 'x');  // "é" + 44 x: 45 code points
  sm.begin(0, {name, ""});
  sm.end(kS, {name});
  sm.exit(kS);
  const std::string text = render_report(sm.section(), 0.0, std::nullopt);
  EXPECT_EQ(text.substr(0, text.find('\n')), std::string(45 + 53, '='));
}

TEST(ReportTest, HiddenRecordsKeepTheirNumbers) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"a", ""});
  sm.end(1 * kMs, {"a"});
  sm.begin(1 * kMs, {"b", ""});
  sm.end(21 * kMs, {"b"});
  sm.exit(21 * kMs);
  const std::string text = render_report(sm.section(), 10.0, std::nullopt);
  EXPECT_EQ(text.find("  1  a"), std::string::npos);
  EXPECT_NE(text.find("  2  b"), std::string::npos);
  EXPECT_NE(text.find("(1 passes skipped - under 10.0ms inclusive threshold)"), std::string::npos);
  EXPECT_NE(text.find("(inclusive threshold: 10.0ms)"), std::string::npos);
}

TEST(ReportTest, ThresholdHidingEverythingHasNoTopList) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"a", ""});
  sm.end(1 * kMs, {"a"});
  sm.exit(1 * kMs);
  const std::string text = render_report(sm.section(), 10.0, std::nullopt);
  EXPECT_EQ(text.find("Top "), std::string::npos);
  EXPECT_NE(text.find("Total: 0.0010s (1 passes)"), std::string::npos);
  EXPECT_NE(text.find("(1 passes skipped"), std::string::npos);
}

TEST(ReportTest, TopListIsTenLongestWithTiesInCompletionOrder) {
  TimingStateMachine sm;
  sm.enter(0);
  Nanoseconds t = 0;
  // 12 top-level passes of 1 s each: all tie, so the top 10 are the first
  // ten to complete.
  for (int i = 0; i < 12; ++i) {
    const std::string name = "p" + std::to_string(i);
    sm.begin(t, {name, ""});
    t += kS;
    sm.end(t, {name});
  }
  sm.exit(t);
  const std::string text = render_report(sm.section(), 0.0, std::nullopt);
  EXPECT_NE(text.find("Top 10 Slowest Passes by Inclusive Time:\n   1. p0 "), std::string::npos);
  EXPECT_NE(text.find("  10. p9 "), std::string::npos);
  EXPECT_EQ(text.find(". p10 "), std::string::npos);
}

TEST(ReportTest, TiesBetweenChildAndParentListTheChildFirst) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"parent", ""});
  sm.begin(0, {"child", ""});
  sm.end(kS, {"child"});
  sm.end(kS, {"parent"});
  sm.exit(kS);
  const std::string text = render_report(sm.section(), 0.0, std::nullopt);
  EXPECT_LT(text.find("   1. child"), text.find("   2. parent"));
}

TEST(ReportTest, ZeroTotalGivesZeroPercent) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"instant", ""});
  sm.end(0, {"instant"});
  sm.exit(0);
  const std::string text = render_report(sm.section(), 0.0, std::nullopt);
  EXPECT_NE(
      text.find(
          "  1  instant                                        0.0000s    0.0000s    0.0%    0.0%"),
      std::string::npos);
}

TEST(ReportTest, RoundsLikePython) {
  // 0.00005 s is not exactly representable: Python's f"{x:.4f}" rounds the
  // binary value 5.00000000000000023960868011929e-05 up to 0.0001.
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"a", ""});
  sm.end(50'000, {"a"});
  sm.begin(50'000, {"b", ""});
  sm.end(50'000 + 150'000, {"b"});  // 0.00015 = 1.49999999999999993e-04 -> 0.0001
  sm.exit(200'000);
  const std::string text = render_report(sm.section(), 0.0, std::nullopt);
  EXPECT_NE(
      text.find(
          "  1  a                                              0.0001s    0.0001s   25.0%   25.0%"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "  2  b                                              0.0001s    0.0001s   75.0%   75.0%"),
      std::string::npos)
      << text;
}

TEST(ReportTest, FastNumberFormattingAgreesWithFmtEverywhere) {
  // The report formats durations and percentages without {fmt} when the
  // digits are certain; every row must still read exactly as {fmt} (and
  // Python) would print the doubles, including on rounding boundaries.
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  Section s;
  const Nanoseconds special[] = {0,
                                 1,
                                 49'999,
                                 50'000,
                                 50'001,
                                 149'999,
                                 150'000,
                                 250'000,
                                 99'999'950'000,
                                 123'456'789'050'000,
                                 3'999'999'999'950'000};
  std::uint32_t seq = 0;
  for (Nanoseconds ns : special) add_record(s, "p", 0, seq++, ns, ns / 3);
  for (int i = 0; i < 3000; ++i) {
    const int scale = static_cast<int>(next() % 12);
    Nanoseconds ns = static_cast<Nanoseconds>(next() % 1'000'000'000'000ull);
    for (int k = 0; k < scale; ++k) ns /= 10;
    if (i % 5 == 0) ns = ns / 50'000 * 50'000;  // land on boundaries often
    add_record(s, "p", 0, seq++, ns, ns / 7 * 3);
  }
  const std::string text = render_report(s, 0.0, std::nullopt);
  const double total = s.total_seconds();
  std::size_t pos = 0;
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    const Record& r = s.records[i];
    const double incl = to_seconds(r.inclusive_ns), self = to_seconds(r.self_ns);
    const std::string expected = fmt::format("{:>9.4f}s {:>9.4f}s {:>6.1f}% {:>6.1f}%\n", incl,
                                             self, incl / total * 100, self / total * 100);
    pos = text.find('\n', text.find(fmt::format("\n{:>3}  p ", i + 1), pos) + 1);
    const std::size_t row_end = pos + 1;
    ASSERT_GE(row_end, expected.size());
    EXPECT_EQ(text.substr(row_end - expected.size(), expected.size()), expected) << "record " << i;
  }
}

TEST(ReportTest, SessionSectionsJoinedByEmptyLine) {
  Profile profile;
  profile.sections.push_back(nested_section());
  profile.sections.back().context = "stage=jit-lower, kernel=matmul";
  profile.sections.push_back(Section{});
  profile.sections.back().context = "stage=codegen";
  EXPECT_EQ(render_session_report(profile, 0.0),
            testing::golden("report/spec_example_context.txt") +
                "\n\n[tilelang pass timing] No passes recorded. Context: stage=codegen");
}

/// A pass manager (inclusive 10 s, self 1 s) running A (6 s) and B (3 s).
Section pass_manager_section() {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"PassManager", ""});
  sm.begin(1 * kS, {"A", "f"});
  sm.end(7 * kS, {"A"});
  sm.begin(7 * kS, {"B", "g"});
  sm.end(10 * kS, {"B"});
  sm.end(10 * kS, {"PassManager"});
  sm.exit(10 * kS);
  return sm.take_section();
}

TEST(ReportTest, OtherCompilersGetANeutralTitleAndTheTopListBySelfTime) {
  const Section s = pass_manager_section();
  const std::string upstream = render_report(s, 0.0, std::nullopt);
  EXPECT_NE(upstream.find("\nTileLang Pass Timing Report\n"), std::string::npos);
  EXPECT_NE(
      upstream.find("Top 3 Slowest Passes by Inclusive Time:\n"
                    "   1. PassManager                                     10.0000s 100.0%\n"
                    "   2. A(f)                                             6.0000s  60.0%\n"
                    "   3. B(g)                                             3.0000s  30.0%\n"),
      std::string::npos)
      << upstream;
  const std::string neutral = render_report(s, 0.0, std::nullopt, report_style("llvm"));
  EXPECT_EQ(neutral.find("TileLang"), std::string::npos) << neutral;
  EXPECT_NE(neutral.find("\nPass Timing Report\n"), std::string::npos) << neutral;
  // The rows are upstream's; only the top list ranks the work itself.
  auto rows = [](const std::string& text) {
    const std::size_t from = text.find("Total:");
    return text.substr(from, text.find("Top 3") - from);
  };
  EXPECT_EQ(rows(neutral), rows(upstream));
  EXPECT_NE(neutral.find("Top 3 Slowest Passes by Self Time:\n"
                         "   1. A(f)                                             6.0000s  60.0%\n"
                         "   2. B(g)                                             3.0000s  30.0%\n"
                         "   3. PassManager                                      1.0000s  10.0%\n"),
            std::string::npos)
      << neutral;
  EXPECT_EQ(render_report(Section{}, 0.0, "x", report_style("mlir")),
            "[passtiming] No passes recorded. Context: x");
}

TEST(ReportTest, AProfilesSourcePicksEachSectionsStyleAndAMergedSectionSaysWhereFrom) {
  Profile profile;
  profile.metadata.source = "llvm";
  profile.sections.push_back(pass_manager_section());
  profile.sections.push_back(nested_section());
  // Merged from a TileLang profile: upstream's style, and its origin.
  profile.sections.back().context = "stage=lower";
  profile.sections.back().origin = {"tl-1.json", {.host = "h", .pid = 42}};
  const std::string text = render_session_report(profile, 0.0);
  const std::size_t second = text.find("\n\n");
  ASSERT_NE(second, std::string::npos);
  EXPECT_NE(text.substr(0, second).find("\nPass Timing Report\n"), std::string::npos) << text;
  EXPECT_NE(text.substr(second).find("\nTileLang Pass Timing Report\nContext: stage=lower\n"
                                     "From: tl-1.json (pid 42 on h)\n"),
            std::string::npos)
      << text;
  Section empty;
  empty.origin = {"x.json", {.pid = 7}};
  EXPECT_EQ(render_report(empty, 0.0, std::nullopt),
            "[tilelang pass timing] No passes recorded. From: x.json (pid 7)");
}

TEST(ReportTest, StreamedReportIsTheSameTextInPieces) {
  // 4,000 records make about 400 KB of report: several pieces.
  Profile profile;
  profile.sections.push_back(Section{});
  Section& big = profile.sections.back();
  big.context = "stage=lower";
  for (std::uint32_t i = 0; i < 4000; ++i) {
    add_record(big, fmt::format("tl.Pass{}", i % 37), static_cast<std::uint16_t>(i % 3 ? 1 : 0), i,
               (i % 97) * kMs + 17, (i % 13) * kMs);
  }
  profile.sections.push_back(nested_section());
  std::vector<std::string> pieces;
  write_session_report(profile, 2.0, [&](std::string_view piece) { pieces.emplace_back(piece); });
  std::string joined;
  for (const std::string& piece : pieces) joined += piece;
  EXPECT_EQ(joined, render_session_report(profile, 2.0));
  ASSERT_GT(pieces.size(), 4u);
  // Pieces are about kTextPieceBytes: at least that, but for the last of a
  // section, and never much more.
  EXPECT_GE(pieces.front().size(), kTextPieceBytes);
  for (const std::string& piece : pieces) EXPECT_LT(piece.size(), kTextPieceBytes + 1024);
}

TEST(EscapeTest, PlainTextIsUnchanged) {
  EXPECT_EQ(escape_for_terminal("tl.LowerTileOp (x) \\ 'q'"), "tl.LowerTileOp (x) \\ 'q'");
  EXPECT_EQ(escape_for_terminal("caf\xC3\xA9 \xE2\x9C\x93"), "caf\xC3\xA9 \xE2\x9C\x93");
}

TEST(EscapeTest, ControlCharactersAndBadBytesAreEscaped) {
  EXPECT_EQ(escape_for_terminal("a\x1b[31mred\x07"), "a\\x1b[31mred\\x07");
  EXPECT_EQ(escape_for_terminal("new\nline\ttab\x7f"), "new\\x0aline\\x09tab\\x7f");
  EXPECT_EQ(escape_for_terminal("\xC2\x9B"
                                "2J"),
            "\\u009b2J");                                             // C1 CSI
  EXPECT_EQ(escape_for_terminal("bad\xFF\xC3"), "bad\\xff\\xc3");     // invalid, truncated
  EXPECT_EQ(escape_for_terminal("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(escape_for_terminal("\xC0\xAF"), "\\xc0\\xaf");           // overlong
}

TEST(ReportTest, HostileNamesCannotReachTheTerminal) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.begin(0, {"evil\x1b]0;owned\x07", "k\x1b[2J"});
  sm.end(kS, {"evil\x1b]0;owned\x07"});
  sm.exit(kS);
  const std::string text = render_report(sm.section(), 0.0, "ctx\x1b[1m");
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_NE(text.find("evil\\x1b]0;owned\\x07(k\\x1b[2J)"), std::string::npos);
  EXPECT_NE(text.find("Context: ctx\\x1b[1m"), std::string::npos);
}

}  // namespace
}  // namespace passtiming
