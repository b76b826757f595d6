#pragma once
/// \file
/// Runs the `passtiming` tool in-process and captures what it prints.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"

namespace passtiming::testing {

struct CliRun {
  int status;
  std::string out;
  std::string err;
};

inline CliRun run_tool(std::vector<std::string> args) {
  args.insert(args.begin(), "passtiming");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = cli::run_cli(static_cast<int>(argv.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  CliRun r{status, ::testing::internal::GetCapturedStdout(),
           ::testing::internal::GetCapturedStderr()};
  return r;
}

}  // namespace passtiming::testing
