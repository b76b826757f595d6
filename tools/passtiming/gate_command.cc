/// \file
/// `passtiming gate`: runs the base and the new command alternately, in
/// pairs whose order is drawn at random, each run recorded by `passtiming
/// run`, then judges the profiles as `diff --gate` does. Alternating is what
/// makes the sides comparable on a shared machine: a change of the
/// machine's load falls on both sides alike instead of on one block. The
/// runs get the highest priority the gate may give them (--nice), so that
/// the machine's other processes preempt them less.

#include <fmt/format.h>
#include <sys/resource.h>
#include <wordexp.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "commands.h"
#include "diff_gate.h"

namespace passtiming::cli {
namespace {

namespace fs = std::filesystem;

struct GateRunOptions {
  std::string base_command;
  std::string new_command;
  unsigned runs = 10;
  std::optional<std::uint64_t> seed;
  std::string dir = "passtiming-gate";
  std::string metrics;
  /// The nice value the runs get; -20 by default (see raise_priority).
  int nice = -20;
  GateOptions gate;
};

/// Gives this process, and so the runs it starts, the nice value `nice`,
/// and returns the one it had, to restore after the runs. On a shared
/// machine every preemption of a compile by another process costs the
/// compile's passes CPU time of their own (the caches and the branch
/// predictors refilled): at the highest priority a compile is preempted
/// less, and its passes' CPU time moves less from run to run (measured on
/// a two-core machine at load 6: GVNPass's interquartile range over 30
/// compiles 18.8 % at nice 0, 12.4 % at -20). Lowering a nice value needs
/// the privilege to (root, CAP_SYS_NICE): without it the runs keep this
/// process's, and a warning says so.
int raise_priority(int nice) {
  errno = 0;
  const int before = ::getpriority(PRIO_PROCESS, 0);
  if (errno != 0 || before == nice) return before;
  if (::setpriority(PRIO_PROCESS, 0, nice) != 0) {
    std::fprintf(stderr,
                 "passtiming gate: warning: the runs keep the nice value %d, as --nice %d was "
                 "refused (%s): other processes preempt them as often as each other, which "
                 "spreads the passes' times (run as root or with CAP_SYS_NICE for a lower value)\n",
                 before, nice, std::strerror(errno));
  }
  return before;
}

/// `command` split into words as the shell splits them (quotes, escapes,
/// variables), without running anything: command substitution is refused.
/// Nullopt, after a message naming the option, when it cannot be split.
std::optional<std::vector<std::string>> words_of(const std::string& command,
                                                 std::string_view option) {
  wordexp_t words;
  const int status = ::wordexp(command.c_str(), &words, WRDE_NOCMD);
  if (status != 0) {
    if (status == WRDE_NOSPACE) ::wordfree(&words);
    std::fprintf(stderr,
                 "passtiming gate: %.*s '%s' is not a command this tool can split into words "
                 "(unquoted special characters or a command substitution)\n",
                 static_cast<int>(option.size()), option.data(), command.c_str());
    return std::nullopt;
  }
  std::vector<std::string> out(words.we_wordv, words.we_wordv + words.we_wordc);
  ::wordfree(&words);
  if (out.empty()) {
    std::fprintf(stderr, "passtiming gate: %.*s is empty\n", static_cast<int>(option.size()),
                 option.data());
    return std::nullopt;
  }
  return out;
}

/// Removes the profiles of an earlier gate from `dir`, so that only this
/// series is judged.
void clear_earlier_runs(const fs::path& dir) {
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if ((name.starts_with("base-") || name.starts_with("new-")) && name.ends_with(".json")) {
      fs::remove(entry.path());
    }
  }
}

/// One recorded run of `argv` into `profile`; the exit status of `run`.
int record_run(const std::vector<std::string>& argv, const fs::path& profile,
               const std::string& metrics) {
  // `run` expands %p and friends in the pattern: a literal % is doubled.
  std::vector<std::string> args{"passtiming", "run", "--no-report",
                                "--quiet",    "-o",  escape_percent(profile.string())};
  if (!metrics.empty()) {
    args.push_back("--metrics");
    args.push_back(metrics);
  }
  args.push_back("--");
  args.insert(args.end(), argv.begin(), argv.end());
  std::vector<const char*> c_args;
  for (const std::string& arg : args) c_args.push_back(arg.c_str());
  return run_cli(static_cast<int>(c_args.size()), c_args.data());
}

int run_gate_series(GateRunOptions& o) {
  const std::optional<std::vector<std::string>> base = words_of(o.base_command, "--base");
  const std::optional<std::vector<std::string>> next = words_of(o.new_command, "--new");
  if (!base || !next) return kExitUsage;
  const fs::path dir(o.dir);
  try {
    fs::create_directories(dir);
    clear_earlier_runs(dir);
  } catch (const fs::filesystem_error& e) {
    std::fprintf(stderr, "passtiming gate: --dir %s: %s\n", o.dir.c_str(), e.what());
    return kExitUsage;
  }
  const std::uint64_t seed = o.seed ? *o.seed : std::random_device{}();
  std::mt19937_64 draw(seed);
  // Back to the nice value the gate started with when it returns, whether
  // the runs all succeeded or not (raising a nice value needs no privilege).
  struct RestorePriority {
    int nice;
    ~RestorePriority() { ::setpriority(PRIO_PROCESS, 0, nice); }
  } restore{raise_priority(o.nice)};
  for (unsigned run = 1; run <= o.runs; ++run) {
    const bool base_first = (draw() & 1) == 0;
    for (int turn = 0; turn < 2; ++turn) {
      const bool is_base = (turn == 0) == base_first;
      const char* side = is_base ? "base" : "new";
      const fs::path profile = dir / fmt::format("{}-{:03}.json", side, run);
      const int status = record_run(is_base ? *base : *next, profile, o.metrics);
      if (status != kExitOk) {
        std::fprintf(stderr,
                     "passtiming gate: the %s command's run %u of %u exited with status %d; "
                     "stopped (the profiles so far are in %s)\n",
                     side, run, o.runs, status, o.dir.c_str());
        return kExitUsage;
      }
      (is_base ? o.gate.base : o.gate.next).push_back(profile.string());
    }
  }
  std::fprintf(stderr,
               "passtiming gate: %u runs per side, alternated in pairs of random order (--seed "
               "%llu); the profiles are in %s\n",
               o.runs, static_cast<unsigned long long>(seed), o.dir.c_str());
  return run_diff_gate(o.gate);
}

}  // namespace

Action add_gate_command(CLI::App& app) {
  auto options = std::make_shared<GateRunOptions>();
  CLI::App* sub = app.add_subcommand(
      "gate",
      "Run a base and a new command (a compile or a Python script) alternately, in pairs of "
      "random order, each recorded as `passtiming run` records it, then judge the profiles as "
      "`diff --gate` does: exit 1 on a regression");
  GateRunOptions& o = *options;
  sub->add_option("--base", o.base_command, "the base command, as one shell-quoted string")
      ->required();
  sub->add_option("--new", o.new_command, "the new command, as one shell-quoted string")
      ->required();
  sub->add_option("--runs", o.runs, "runs per side (default 10)")->check(CLI::Range(1u, 100000u));
  sub->add_option("--seed", o.seed, "the seed of the pairs' order (default: drawn and printed)");
  sub->add_option("--dir", o.dir,
                  "where the profiles go, base-NNN.json and new-NNN.json (default "
                  "passtiming-gate; an earlier gate's profiles there are removed)");
  sub->add_option("--nice", o.nice,
                  "the nice value of the runs (default -20, the highest priority, so that "
                  "other processes preempt them less; lower than the current one needs root or "
                  "CAP_SYS_NICE, else the current one is kept, with a warning)")
      ->check(CLI::Range(-20, 19));
  sub->add_option("--metrics", o.metrics,
                  "record these metrics too (as `run --metrics`), e.g. instructions or cpu");
  sub->add_option("--by", o.gate.by, "compare by pass (default), kernel or context")
      ->check(CLI::IsMember({"pass", "kernel", "context"}));
  sub->add_option("--format", o.gate.format, "text (default), json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  sub->add_option("-o,--output", o.gate.output, "the verdict's file (default '-': stdout)");
  add_gate_settings(*sub, o.gate, "");
  return [options]() -> int { return run_gate_series(*options); };
}

}  // namespace passtiming::cli
