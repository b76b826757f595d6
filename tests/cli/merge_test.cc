#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cli_test_support.h"
#include "host_support.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"

namespace passtiming {
namespace {

using testing::LogCapture;
using testing::run_sample_session;
using testing::run_tool;
using testing::sample_session_profile;
using testing::ScratchDir;

TEST(CliMergeTest, MergesSectionsOfProfilesAndEventLogsInOrder) {
  ScratchDir dir;
  const Settings outputs = testing::output_settings("", dir.file("b.jsonl"));
  {
    LogCapture quiet;
    write_profile_file(sample_session_profile(0.25), dir.file("a.json"));
    run_sample_session(outputs, 0.5);
  }
  const auto r =
      run_tool({"merge", dir.file("a.json"), dir.file("b.jsonl"), "-o", dir.file("m.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const Profile merged = load_profile(dir.file("m.json"));
  EXPECT_EQ(merged.metadata.pid, ::getpid());
  ASSERT_EQ(merged.sections.size(), 4u);
  EXPECT_EQ(merged.sections[0].context, "stage=jit-lower, kernel=matmul");
  EXPECT_EQ(merged.sections[1].context, "stage=codegen");
  EXPECT_EQ(merged.sections[3].records[0].inclusive_ns, 500'000'000);
  EXPECT_EQ(merged.record_count(), 8u);
  // The merge of a merge, printed to stdout, is the same profile again.
  const auto again = run_tool({"merge", dir.file("m.json")});
  EXPECT_EQ(again.status, 0);
  Profile reread = parse_profile_json(again.out, "stdout");
  reread.metadata = merged.metadata;
  EXPECT_EQ(profile_to_json(reread), profile_to_json(merged));
}

TEST(CliMergeTest, ABadInputLeavesNoOutputFile) {
  ScratchDir dir;
  write_profile_file(sample_session_profile(), dir.file("a.json"));
  const std::string bad =
      dir.write("bad.json", "{\"format\":\"passtiming-profile\",\"version\":1,\n\"sections\":[{]}");
  const auto r = run_tool({"merge", dir.file("a.json"), bad, "-o", dir.file("m.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.substr(0, bad.size() + 3), bad + ":2:") << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.json")));
  EXPECT_EQ(run_tool({"merge", "-o", dir.file("m.json")}).status, 2);  // FILE is required
}

}  // namespace
}  // namespace passtiming
