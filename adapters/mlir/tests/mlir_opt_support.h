#pragma once
/// \file
/// What the end-to-end tests of `passtiming-mlir-opt` share: the bundled
/// example and its pipeline, and running a program through the shell with
/// its output and errors collected.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace passtiming::testing {

/// The whole file at `path` ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// A file of examples/mlir.
inline std::string example(const std::string& name) {
  return std::string(PASSTIMING_MLIR_EXAMPLE_DIR) + "/" + name;
}

/// The example's pipeline as one shell-quoted `--pass-pipeline=` argument.
inline std::string pipeline_arg() {
  std::string text = read_text(example("pipeline.txt"));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return "'--pass-pipeline=" + text + "'";
}

struct ToolRun {
  int status = -1;  ///< exit status, or -1 when it did not exit
  std::string out;
  std::string err;
};

/// Runs `program` with `args` (already shell-quoted), its output and errors
/// collected through files in `dir`.
inline ToolRun run_program(const std::string& program, const std::string& args,
                           const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const std::string command =
      program + " " + args + " >" + (dir / "out").string() + " 2>" + (dir / "err").string();
  const int raw = std::system(command.c_str());
  ToolRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_text(dir / "out");
  r.err = read_text(dir / "err");
  return r;
}

}  // namespace passtiming::testing
