// read_fleet_rows: hand-written rows back into profiles, with exact values
// (completion order of nested records, duplicates dropped, runs in order of
// first appearance, quoted 64-bit integers), the pid found in a run id,
// write_rows of what was read giving the rows again, and each refusal
// naming the source and the line.

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "passtiming/engine/environment.h"
#include "passtiming/engine/errors.h"
#include "passtiming/formats/fleet.h"

namespace passtiming {
namespace {

using ::testing::HasSubstr;

/// The columns of a row before `section`, for run `run`.
std::string head(std::string_view run = "r1", std::string_view start = "2025-01-02 03:04:05") {
  return fmt::format(
      R"({{"schema_version":2,"run_id":"{}","host":"h","start_time":"{}","command":"clang -O2 a.c",)"
      R"("tool":"clang","commit":"c0ffee","build_id":"b-9","meta_keys":["team"],"meta_values":["x"],)",
      run, start);
}

/// A row of section `section`: pass `pass`, sequence, parent, depth,
/// thread, start, inclusive, self (64-bit ones quoted as ClickHouse does).
std::string row(std::string_view run, int section, std::string_view pass, int sequence, int parent,
                int depth, std::string_view thread, std::string_view start,
                std::string_view inclusive, std::string_view self, int failed = 0) {
  return head(run) +
         fmt::format(
             R"("section":{},"context":"ctx{}","sequence":{},"parent_sequence":"{}","pass":"{}",)"
             R"("kernel":"k","depth":{},"thread":{},"start_ns":{},"inclusive_ns":{},"self_ns":{},)"
             R"("failed":{}}})",
             section, section, sequence, parent, pass, depth, thread, start, inclusive, self,
             failed) +
         "\n";
}

TEST(FleetRowsReader, NestedRecordsInCompletionOrderAndDuplicatesDropped) {
  // As the table orders them (by section, sequence), with the child that
  // ends when its parent does, and row 2 twice (an unmerged part).
  const std::string rows =
      row("r1", 0, "outer", 0, -1, 0, "\"7\"", "\"100\"", "\"50\"", "\"10\"") +
      row("r1", 0, "inner", 1, 0, 1, "\"7\"", "\"110\"", "\"40\"", "\"25\"") +
      row("r1", 0, "leaf", 2, 1, 2, "\"9\"", "\"120\"", "\"15\"", "\"15\"", 1) +
      row("r1", 0, "leaf", 2, 1, 2, "\"9\"", "\"120\"", "\"15\"", "\"15\"", 1) +
      row("r1", 0, "next", 3, -1, 0, "7", "150", "5", "5") + "\n" +
      row("r1", 2, "late", 0, -1, 0, "7", "200", "1", "1");
  const std::vector<StoredRun> runs = read_fleet_rows(rows, "rows.jsonl");
  ASSERT_EQ(runs.size(), 1u);
  const StoredRun& run = runs[0];
  EXPECT_EQ(run.rows, 5u);
  EXPECT_EQ(run.identity.run_id, "r1");
  EXPECT_EQ(run.identity.start_time, "2025-01-02 03:04:05");
  EXPECT_EQ(run.identity.tool, "clang");
  EXPECT_EQ(run.identity.commit, "c0ffee");
  EXPECT_EQ(run.identity.build_id, "b-9");
  EXPECT_EQ(run.identity.meta, (MetaPairs{{"team", "x"}}));
  const ProfileMetadata& m = run.profile.metadata;
  EXPECT_EQ(m.host, "h");
  EXPECT_EQ(m.command, "clang -O2 a.c");
  EXPECT_EQ(m.start_time, "2025-01-02T03:04:05Z");
  EXPECT_EQ(m.source, "llvm");
  EXPECT_EQ(m.pid, 0);  // "r1" is no hash
  EXPECT_THAT(m.tool, HasSubstr("passtiming "));
  EXPECT_TRUE(run.profile.metrics.empty());
  EXPECT_TRUE(run.profile.phases.empty());

  // Section 1 had no rows: an empty section keeps section 2's number.
  ASSERT_EQ(run.profile.sections.size(), 3u);
  EXPECT_TRUE(run.profile.sections[1].records.empty());
  EXPECT_EQ(run.profile.sections[2].context, "ctx2");
  const Section& s = run.profile.sections[0];
  EXPECT_EQ(s.context, "ctx0");
  EXPECT_EQ(s.threads, (std::vector<std::uint64_t>{7, 9}));
  EXPECT_TRUE(s.metrics.empty());
  // leaf ends at 135, inner at 150 with next starting there, outer at 150:
  // by end, the deeper first.
  ASSERT_EQ(s.records.size(), 4u);
  std::vector<std::string> order;
  for (const Record& r : s.records) order.emplace_back(s.name_of(r));
  EXPECT_EQ(order, (std::vector<std::string>{"leaf", "inner", "outer", "next"}));
  const Record& leaf = s.records[0];
  EXPECT_EQ(leaf.sequence, 2u);
  EXPECT_EQ(leaf.parent, 1u);
  EXPECT_EQ(leaf.depth, 2);
  EXPECT_EQ(leaf.thread, 1u);  // key 9
  EXPECT_EQ(leaf.flags, kRecordFailed);
  EXPECT_EQ(leaf.start_ns, 120);
  EXPECT_EQ(leaf.inclusive_ns, 15);
  EXPECT_EQ(leaf.self_ns, 15);
  EXPECT_EQ(s.kernel_of(leaf), "k");
  const Record& outer = s.records[2];
  EXPECT_EQ(outer.parent, kNoParent);
  EXPECT_EQ(outer.thread, 0u);
  EXPECT_EQ(outer.flags, 0);
  EXPECT_EQ(outer.self_ns, 10);
}

TEST(FleetRowsReader, RunsInOrderOfFirstAppearance) {
  const std::string rows = row("b", 0, "p", 0, -1, 0, "0", "1", "1", "1") +
                           row("a", 0, "p", 0, -1, 0, "0", "1", "1", "1") +
                           row("b", 0, "q", 1, -1, 0, "0", "2", "1", "1");
  const std::vector<StoredRun> runs = read_fleet_rows(rows, "x");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].identity.run_id, "b");
  EXPECT_EQ(runs[0].rows, 2u);
  EXPECT_EQ(runs[1].identity.run_id, "a");
  EXPECT_EQ(runs[1].rows, 1u);
}

TEST(FleetRowsReader, TheHashedRunIdComesBackAndSoDoTheRows) {
  // A recorded profile's rows, as export --to rows writes them.
  Profile recorded;
  recorded.metadata = {
      "passtiming 0.1.0", "clang-19 -O2 -c p.c", "build-7", "2026-12-06T04:39:43Z", 31337, "llvm"};
  Section& s = recorded.sections.emplace_back();
  s.context = "compile";
  s.threads = {0};
  Record child{s.names.intern("Inner"), s.names.intern("main"), 1, 0, 0, 1, 0, 10, 5, 5};
  Record parent{s.names.intern("Outer"), 0, 0, kNoParent, 0, 0, 0, 0, 20, 15};
  s.records = {child, parent};
  const MapEnvironment no_ci;
  const MetaPairs meta = {{"commit", "abc"}, {"team", "compilers"}};
  std::string original;
  write_rows(recorded, fleet_runs(recorded, meta, no_ci),
             [&](std::string_view t) { original += t; });

  const std::vector<StoredRun> runs = read_fleet_rows(original, "rows");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].profile.metadata.pid, 31337);
  EXPECT_EQ(runs[0].profile.metadata.start_time, "2026-12-06T04:39:43Z");
  // The columns no profile holds, as --meta pairs.
  EXPECT_EQ(reproduce_meta(runs[0]), (MetaPairs{{"commit", "abc"}, {"team", "compilers"}}));
  std::string again;
  write_rows(runs[0].profile, fleet_runs(runs[0].profile, reproduce_meta(runs[0]), no_ci),
             [&](std::string_view t) { again += t; });
  EXPECT_EQ(again, original);
}

TEST(FleetRowsReader, AnUnknownStartTimeComesBackUnknown) {
  Profile recorded;
  recorded.metadata.command = "opt -O2";
  recorded.metadata.pid = 12;
  Section& s = recorded.sections.emplace_back();
  s.threads = {0};
  s.records = {Record{s.names.intern("P"), 0, 0, kNoParent, 0, 0, 0, 0, 1, 1}};
  std::string original;
  write_rows(recorded, fleet_runs(recorded, {}, MapEnvironment{}),
             [&](std::string_view t) { original += t; });
  const std::vector<StoredRun> runs = read_fleet_rows(original, "rows");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].identity.start_time, "1970-01-01 00:00:00");
  EXPECT_EQ(runs[0].profile.metadata.start_time, "");
  EXPECT_EQ(runs[0].profile.metadata.pid, 12);
  EXPECT_TRUE(reproduce_meta(runs[0]).empty());
}

/// The message read_fleet_rows throws for `rows`.
std::string refusal(const std::string& rows) {
  try {
    read_fleet_rows(rows, "fleet.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FleetRowsReader, RefusalsNameTheSourceAndLine) {
  const std::string good = row("r1", 0, "p", 0, -1, 0, "0", "1", "1", "1");
  EXPECT_EQ(refusal(good + "not json\n"),
            "fleet.jsonl:2: not a JSON object (a row of JSONEachRow)");
  std::string missing = good;
  missing.replace(missing.find("\"kernel\":\"k\","), 13, "");
  EXPECT_EQ(refusal(good + "\n" + missing), "fleet.jsonl:3: missing column 'kernel'");
  std::string wrong = good;
  wrong.replace(wrong.find("\"depth\":0"), 9, "\"depth\":\"deep\"");
  EXPECT_EQ(refusal(wrong), "fleet.jsonl:1: column 'depth' must be an integer from 0 to 65535");
  std::string negative = good;
  negative.replace(negative.find("\"start_ns\":1"), 12, "\"start_ns\":-1");
  EXPECT_EQ(refusal(negative),
            "fleet.jsonl:1: column 'start_ns' must be an integer from 0 to 9223372036854775807");
  std::string named = good;
  named.replace(named.find("\"pass\":\"p\""), 10, "\"pass\":7");
  EXPECT_EQ(refusal(named), "fleet.jsonl:1: column 'pass' must be a string");
  std::string version = good;
  version.replace(0, 19, "{\"schema_version\":1");
  EXPECT_EQ(refusal(good + version),
            "fleet.jsonl:2: schema_version 1: this passtiming reads rows of schema version 2");
  std::string time = good;
  time.replace(time.find("2025-01-02 03:04:05"), 19, "2025-01-02T03:04:05");
  EXPECT_EQ(refusal(time),
            "fleet.jsonl:1: column 'start_time' must be \"YYYY-MM-DD hh:mm:ss\" (got "
            "'2025-01-02T03:04:05')");
  EXPECT_EQ(refusal("[1,2]\n"), "fleet.jsonl:1: not a JSON object (a row of JSONEachRow)");
}

TEST(FleetRowsReader, NothingReadFromNothing) {
  EXPECT_TRUE(read_fleet_rows("", "x").empty());
  EXPECT_TRUE(read_fleet_rows("\n\n", "x").empty());
}

}  // namespace
}  // namespace passtiming
