// `passtiming diff --gate` on profile files written here: the verdict in
// JSON and Markdown against golden files, the measure chosen, and exit
// status 2 for each kind of bad input.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli_test_support.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "profile_fixtures.h"

namespace passtiming {
namespace {

using testing::golden;
using testing::run_tool;
using testing::ScratchDir;

constexpr Nanoseconds kMs = 1'000'000;

/// A one-section profile: one top-level record per pass, self time as
/// given. With `cpu`, the profile records the cpu metric and each record's
/// CPU time is `cpu_share` of its wall time.
Profile make_profile(const std::vector<std::pair<std::string, Nanoseconds>>& passes,
                     bool cpu = false, double cpu_share = 0.5, std::int64_t pid = 4242) {
  Profile profile;
  profile.metadata = {"passtiming 0.1.0", "clang-19 -O2 -c a.c", "build-host",
                      "2024-05-01T12:00:00Z", pid};
  Section& s = profile.sections.emplace_back();
  s.context = "stage=codegen";
  s.threads = {1};
  Nanoseconds start = 0;
  for (const auto& [name, self] : passes) {
    Record r;
    r.name = s.names.intern(name);
    r.sequence = static_cast<std::uint32_t>(s.records.size());
    r.start_ns = start;
    r.inclusive_ns = r.self_ns = self;
    start += self;
    s.records.push_back(r);
    if (cpu) {
      RecordMetrics m;
      m.cpu_ns = m.cpu_self_ns = static_cast<std::int64_t>(static_cast<double>(self) * cpu_share);
      s.metrics.push_back(m);
    }
  }
  if (cpu) profile.metrics.recorded.insert(Metric::cpu);
  return profile;
}

/// Five profiles per side: InstCombinePass 10..14 ms against 20..24 ms (a
/// regression), GVNPass interleaved around 30 ms (tested, no change),
/// SROAPass 0.1 -> 0.4 ms (under the floor), LoopUnrollPass only in the base,
/// LICMPass only in the new runs.
struct GateFiles {
  std::vector<std::string> base, next;
};
GateFiles write_sides(const ScratchDir& dir, bool cpu = false) {
  GateFiles files;
  const Nanoseconds gvn_base[] = {28, 30, 32, 29, 31};
  const Nanoseconds gvn_new[] = {31, 29, 30, 32, 28};
  for (int i = 0; i < 5; ++i) {
    const std::string b = dir.file("base-" + std::to_string(i + 1) + ".json");
    write_profile_file(make_profile({{"InstCombinePass", (10 + i) * kMs},
                                     {"GVNPass", gvn_base[i] * kMs},
                                     {"SROAPass", kMs / 10},
                                     {"LoopUnrollPass", 2 * kMs}},
                                    cpu, 0.5, 1000 + i),
                       b);
    const std::string n = dir.file("new-" + std::to_string(i + 1) + ".json");
    write_profile_file(make_profile({{"InstCombinePass", (20 + i) * kMs},
                                     {"GVNPass", gvn_new[i] * kMs},
                                     {"SROAPass", 4 * kMs / 10},
                                     {"LICMPass", 3 * kMs}},
                                    cpu, 0.5, 2000 + i),
                       n);
    files.base.push_back(b);
    files.next.push_back(n);
  }
  return files;
}

std::vector<std::string> gate_args(const GateFiles& f, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"diff", "--gate", "--base"};
  args.insert(args.end(), f.base.begin(), f.base.end());
  args.push_back("--new");
  args.insert(args.end(), f.next.begin(), f.next.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(CliGateTest, RegressionInJsonAndMarkdown) {
  ScratchDir dir;
  const GateFiles f = write_sides(dir);
  const auto json = run_tool(gate_args(f, {"--format", "json"}));
  EXPECT_EQ(json.status, 1) << json.err;
  EXPECT_EQ(json.out, golden("profile/gate_regression.json"));
  const auto markdown = run_tool(gate_args(f, {"--format", "markdown"}));
  EXPECT_EQ(markdown.status, 1) << markdown.err;
  EXPECT_EQ(markdown.out, golden("profile/gate_regression.md"));
  const auto text = run_tool(gate_args(f));
  EXPECT_EQ(text.status, 1) << text.err;
  EXPECT_NE(text.out.find("Verdict: 1 regression\n"), std::string::npos) << text.out;
  // GVNPass's runs spread by 5 %: with 5 runs a side, +10 % would be missed.
  EXPECT_NE(text.out.find("Too noisy to judge with these runs, 1 pass: a change of +10% (twice "
                          "the threshold) would be flagged with less than 95% chance:\n  GVNPass: "
                          "detectable +19.1%, about 37 runs per side for +10%\n"),
            std::string::npos)
      << text.out;
}

TEST(CliGateTest, SettingsDecide) {
  ScratchDir dir;
  const GateFiles f = write_sides(dir);
  // +83 % of InstCombinePass: not above a threshold of 90 %; 10 ms: not above
  // a floor of 10 ms; p = 1/252 before Holm's factor 2: not below 0.005.
  EXPECT_EQ(run_tool(gate_args(f, {"--threshold-pct", "90"})).status, 0);
  EXPECT_EQ(run_tool(gate_args(f, {"--floor-ms", "10"})).status, 0);
  // The test asks whether the new runs exceed the base runs grown by the
  // floor: 20..24 ms against 19.9..23.9 ms is no evidence of a change above
  // 9.9 ms (the medians' 10 ms alone would have been flagged before);
  // against 15..19 ms, it is evidence of one above 5 ms.
  EXPECT_EQ(run_tool(gate_args(f, {"--floor-ms", "9.9"})).status, 0);
  EXPECT_EQ(run_tool(gate_args(f, {"--floor-ms", "5"})).status, 1);
  EXPECT_EQ(run_tool(gate_args(f, {"--floor", "10000000"})).status, 0);
  // Two passes tested (InstCombinePass, GVNPass): Holm doubles 1/252.
  EXPECT_EQ(run_tool(gate_args(f, {"--alpha", "0.008"})).status, 1);  // 2/252 = 0.0079
  // Below 2/252 nothing could be flagged with 5 runs per side: status 2.
  EXPECT_EQ(run_tool(gate_args(f, {"--alpha", "0.0075"})).status, 2);
  // The same runs the other way round: faster is no regression.
  GateFiles swapped{f.next, f.base};
  EXPECT_EQ(run_tool(gate_args(swapped)).status, 0);
  // By context, one group of five executions (one per pass): about 44 ms
  // against 55 ms, a regression by either statistic. Matched, its runs'
  // mean ranks over the five executions (InstCombinePass, SROAPass and
  // LICMPass rank every new run above every grown base run) reach the
  // observed split's in 2 of the 252 splits; by size, GVNPass (30 ms,
  // unchanged) weighs most and the observed split stands 0.18 above the
  // mean, where 2 other splits stand above the first lens's 2.29: the
  // larger of the two standardised reaches the observed one in 4 splits
  // (by enumeration): p 4/252.
  const auto by_context = run_tool(gate_args(f, {"--by", "context", "--format", "json"}));
  EXPECT_EQ(by_context.status, 1) << by_context.err;
  EXPECT_NE(by_context.out.find("\"key\":\"stage=codegen\",\"status\":\"regression\""),
            std::string::npos)
      << by_context.out;
  EXPECT_NE(by_context.out.find("\"p_value\":0.015873015873015872,"), std::string::npos)
      << by_context.out;
  const auto by_context_runs =
      run_tool(gate_args(f, {"--by", "context", "--statistic", "runs", "--format", "json"}));
  EXPECT_EQ(by_context_runs.status, 1) << by_context_runs.err;
  EXPECT_NE(by_context_runs.out.find("\"key\":\"stage=codegen\",\"status\":\"regression\""),
            std::string::npos)
      << by_context_runs.out;
}

TEST(CliGateTest, CpuIsTheDefaultMeasureWhenEveryProfileHasIt) {
  ScratchDir dir;
  const GateFiles f = write_sides(dir, /*cpu=*/true);
  const auto cpu = run_tool(gate_args(f, {"--format", "json"}));
  EXPECT_EQ(cpu.status, 1) << cpu.err;
  // CPU time is half the wall time here: InstCombinePass 6 -> 11 ms.
  EXPECT_NE(cpu.out.find("\"measure\":\"cpu\""), std::string::npos) << cpu.out;
  EXPECT_NE(cpu.out.find("{\"key\":\"InstCombinePass\",\"status\":\"regression\","
                         "\"base_median\":6000000,\"new_median\":11000000"),
            std::string::npos)
      << cpu.out;
  const auto wall = run_tool(gate_args(f, {"--format", "json", "--measure", "wall"}));
  EXPECT_NE(wall.out.find("\"measure\":\"wall\""), std::string::npos) << wall.out;
  EXPECT_NE(wall.out.find("\"base_median\":12000000,\"new_median\":22000000"), std::string::npos)
      << wall.out;
}

TEST(CliGateTest, BadInputExitsWith2NamingTheFileOrSetting) {
  ScratchDir dir;
  const GateFiles f = write_sides(dir);
  // A measure the profiles did not record.
  auto r = run_tool(gate_args(f, {"--measure", "cpu"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "passtiming diff: " + f.base[0] +
                       " did not record the cpu metric that --measure cpu needs (it recorded: "
                       "none); record it with PASSTIMING_METRICS=cpu\n");
  // The sides recorded different metrics.
  const std::string with_cpu = dir.file("cpu.json");
  write_profile_file(make_profile({{"InstCombinePass", 20 * kMs}}, /*cpu=*/true), with_cpu);
  GateFiles mixed = f;
  mixed.next[2] = with_cpu;
  r = run_tool(gate_args(mixed));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "passtiming diff: " + f.base[0] + " recorded the metrics none but " + with_cpu +
                       " recorded cpu: the profiles compared by --gate must all record the same "
                       "metrics (PASSTIMING_METRICS)\n");
  // Too few runs: 2 against 2 can give no p-value under 1/6.
  GateFiles two{{f.base[0], f.base[1]}, {f.next[0], f.next[1]}};
  r = run_tool(gate_args(two));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "passtiming diff: --gate with 2 --base and 2 --new profile(s): the smallest p-value "
            "the greater matched rank test can give is 0.167, above --alpha 0.05, so no pass "
            "could ever be flagged; give at least 3 profiles per side\n");
  r = run_tool(gate_args(two, {"--statistic", "runs"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the greater Mann-Whitney test can give is 0.167"), std::string::npos)
      << r.err;
  EXPECT_EQ(run_tool({"diff", "--gate", f.base[0], f.next[0]}).status, 2);  // 1 against 1
  // 3 against 3 two-sided: 0.1, and 4 per side are needed.
  GateFiles three{{f.base[0], f.base[1], f.base[2]}, {f.next[0], f.next[1], f.next[2]}};
  r = run_tool(gate_args(three, {"--alternative", "two-sided"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give at least 4 profiles per side"), std::string::npos) << r.err;
  // Enough for one test, not for the two tested passes after Holm: 3 against
  // 3 give 0.05, and two passes need 0.025.
  r = run_tool(gate_args(three));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "passtiming diff: --gate with 3 --base and 3 --new profile(s) tested 2 passes: after "
            "Holm's correction a p-value must be at most 0.025 (--alpha 0.05 / 2), and the "
            "smallest these runs can give is 0.05, so none could be flagged; give at least 4 "
            "profiles per side\n");
  // Settings.
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"--alpha", "0"},
                                             {"--alpha", "1"},
                                             {"--alpha", "x"},
                                             {"--threshold-pct", "-1"},
                                             {"--floor-ms", "-1"},
                                             {"--floor-ms", "1", "--floor", "5"},
                                             {"--measure", "rss", "--floor-ms", "1"},
                                             {"--measure", "bogus"},
                                             {"--fail-above", "10"},
                                             {"--alternative", "less"}}) {
    r = run_tool(gate_args(f, bad));
    EXPECT_EQ(r.status, 2) << bad[0] << " " << bad[1];
    EXPECT_FALSE(r.err.empty());
  }
  // The gate's options without --gate, and Markdown without it.
  EXPECT_EQ(run_tool({"diff", f.base[0], f.next[0], "--alpha", "0.01"}).status, 2);
  EXPECT_EQ(run_tool({"diff", f.base[0], f.next[0], "--format", "markdown"}).status, 2);
  EXPECT_EQ(run_tool({"diff", f.base[0], f.next[0]}).status, 0);  // the median diff is unchanged
}

/// `f`'s profiles rewritten with `edit` applied to each one's metadata (its
/// side and index given), into new files; the new sides.
template <typename Edit>
GateFiles rewritten(const ScratchDir& dir, const GateFiles& f, Edit edit) {
  GateFiles out;
  for (const auto& [from, to, side] :
       {std::tuple{&f.base, &out.base, "base"}, std::tuple{&f.next, &out.next, "new"}}) {
    for (std::size_t i = 0; i < from->size(); ++i) {
      Profile profile = load_profile((*from)[i]);
      edit(profile.metadata, std::string(side), i);
      const std::string path =
          dir.file(std::string("edited-") + side + std::to_string(i) + ".json");
      write_profile_file(profile, path);
      to->push_back(path);
    }
  }
  return out;
}

TEST(CliGateTest, EachRunMustBeAProfileOfItsOwn) {
  ScratchDir dir;
  const GateFiles f = write_sides(dir);
  // One file five times on a side.
  GateFiles repeated = f;
  repeated.base = std::vector<std::string>(5, f.base[0]);
  auto r = run_tool(gate_args(repeated));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "passtiming diff: " + f.base[0] +
                       " is given more than once (--base and --new together): each run must be "
                       "a profile of its own\n");
  // A copy of a run under another name: the same process, host and start.
  const std::string copy = dir.file("copy.json");
  std::filesystem::copy_file(f.next[1], copy);
  GateFiles copied = f;
  copied.next[4] = copy;
  r = run_tool(gate_args(copied));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "passtiming diff: " + f.next[1] + " and " + copy +
                       " are the same run (pid 2001 on build-host, started "
                       "2024-05-01T12:00:00Z): each run must be a profile of its own\n");
}

TEST(CliGateTest, SidesThatDifferAreWarnedOfAndRefusedWhenStrict) {
  ScratchDir dir;
  const GateFiles f = write_sides(dir);
  // Another compiler is the change itself: no warning.
  const GateFiles other_program =
      rewritten(dir, f, [](ProfileMetadata& m, const std::string& side, std::size_t) {
        if (side == "new") m.command = "/opt/new/bin/clang -O2 -c a.c";
      });
  auto r = run_tool(gate_args(other_program));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "");
  // Another input compiled: a warning, and with --strict a refusal.
  const GateFiles other_input =
      rewritten(dir, f, [](ProfileMetadata& m, const std::string& side, std::size_t) {
        if (side == "new") m.command = "clang-19 -O2 -c b.c";
      });
  r = run_tool(gate_args(other_input, {"--format", "json"}));
  EXPECT_EQ(r.status, 1);
  const std::string warning = "the sides ran different commands: " + other_input.base[0] +
                              " ran 'clang-19 -O2 -c a.c', " + other_input.next[0] +
                              " ran 'clang-19 -O2 -c b.c'";
  EXPECT_EQ(r.err, "passtiming diff: warning: " + warning + "\n");
  EXPECT_NE(r.out.find("\"warnings\":[\"" + warning + "\"]"), std::string::npos) << r.out;
  r = run_tool(gate_args(other_input, {"--strict"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "passtiming diff: " + warning + " (--strict)\n");
  // Every base run before every new run: two blocks, a warning (never
  // refused: only the gate's own runs can be alternated).
  const GateFiles blocks =
      rewritten(dir, f, [](ProfileMetadata& m, const std::string& side, std::size_t i) {
        m.start_time = fmt::format("2024-05-01T12:{:02}:00Z", (side == "base" ? 0 : 10) + i);
      });
  r = run_tool(gate_args(blocks, {"--strict"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "passtiming diff: warning: the sides were not interleaved: every base run started "
            "before every new run, so a change of the machine between them reads as a change "
            "of the compiler; alternate them (passtiming gate does)\n");
  // Alternated: no warning.
  const GateFiles alternated =
      rewritten(dir, f, [](ProfileMetadata& m, const std::string& side, std::size_t i) {
        m.start_time = fmt::format("2024-05-01T12:{:02}:00Z", 2 * i + (side == "base" ? 0 : 1));
      });
  r = run_tool(gate_args(alternated));
  EXPECT_EQ(r.err, "");
}

TEST(CliGateTest, TheBestRecordedMeasureIsChosenAndSaid) {
  ScratchDir dir;
  const GateFiles f = write_sides(dir, /*cpu=*/true);
  const auto text = run_tool(gate_args(f));
  EXPECT_NE(text.out.find("Measure: cpu, the best every run recorded (instructions, then cpu, "
                          "then wall).\n"),
            std::string::npos)
      << text.out;
  const auto given = run_tool(gate_args(f, {"--measure", "cpu"}));
  EXPECT_EQ(given.out.find("Measure: "), std::string::npos) << given.out;
}

}  // namespace
}  // namespace passtiming
