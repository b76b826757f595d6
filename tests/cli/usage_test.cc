// What a user who mistypes sees: a mistyped command names the nearest one,
// a usage error is one line naming the command and its help, and diff's
// usage line names its two positionals.

#include <gtest/gtest.h>

#include "cli_test_support.h"

namespace passtiming {
namespace {

using ::passtiming::testing::run_tool;

TEST(Usage, AMistypedCommandSuggestsTheNearestOne) {
  const auto r = run_tool({"sumary", "a.json"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "passtiming: unknown command 'sumary'; did you mean 'summary'? (passtiming --help "
            "lists the commands)\n");
  EXPECT_EQ(r.out, "");
  EXPECT_NE(run_tool({"dif"}).err.find("did you mean 'diff'?"), std::string::npos);
  EXPECT_NE(run_tool({"reprot"}).err.find("did you mean 'report'?"), std::string::npos);
}

TEST(Usage, ACommandNothingLikeAnyNamesNone) {
  const auto r = run_tool({"xyzzy"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "passtiming: unknown command 'xyzzy' (passtiming --help lists the commands)\n");
}

TEST(Usage, AnUnknownOptionIsOneLineNotTheHelp) {
  const auto r = run_tool({"summary", "a.json", "--bogus"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "passtiming summary: The following argument was not expected: --bogus (see "
            "'passtiming summary --help')\n");
  EXPECT_EQ(r.out, "");
}

TEST(Usage, NoCommandIsOneLine) {
  const auto r = run_tool({});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "passtiming: A subcommand is required (see 'passtiming --help')\n");
}

TEST(Usage, DiffsUsageLineNamesBaseAndNew) {
  const auto r = run_tool({"diff", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Usage: passtiming diff [OPTIONS] [BASE] [NEW]\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("(0x)"), std::string::npos);
}

TEST(Usage, DiffWithOneFileAsksForBoth) {
  const auto r = run_tool({"diff", "only.json"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give BASE NEW, or --base FILE... --new FILE..."), std::string::npos)
      << r.err;
}

TEST(Usage, NumericOptionsNameTheirUnitAndAreCheckedWhileParsing) {
  const auto help = run_tool({"diff", "--help"});
  EXPECT_NE(help.out.find("--fail-above PCT "), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--min-ms MS "), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--alpha RATE "), std::string::npos) << help.out;
  for (const char* option :
       {"--fail-above", "--min-ms", "--alpha", "--threshold-pct", "--floor-ms", "--floor"}) {
    const auto r = run_tool({"diff", "a.json", "b.json", option, "-2"});
    EXPECT_EQ(r.status, 2) << option;
    EXPECT_EQ(r.err, std::string("passtiming diff: ") + option +
                         ": must be a finite non-negative number (got '-2') (see 'passtiming "
                         "diff --help')\n");
  }
  EXPECT_EQ(run_tool({"summary", "a.json", "--threshold-ms", "fast"}).status, 2);
  EXPECT_EQ(run_tool({"push", "a.json", "--timeout-s", "soon"}).status, 2);
}

}  // namespace
}  // namespace passtiming
