/// \file
/// `passtiming gate`: runs the base and the new command alternately, in
/// pairs whose order is drawn at random, each run recorded by `passtiming
/// run`, then judges the profiles as `diff --gate` does. Alternating is what
/// makes the sides comparable on a shared machine: a change of the
/// machine's load falls on both sides alike instead of on one block. The
/// runs get the highest priority the gate may give them (--nice), so that
/// the machine's other processes preempt them less. After the first
/// --runs pairs it looks at how much each pass's runs spread, and runs more
/// pairs, up to --max-runs, where a pass needs them to be judged
/// (include/passtiming/analysis/gate_runs.h); the test is made once, on
/// every run.

#include <fmt/format.h>
#include <sys/resource.h>
#include <wordexp.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "commands.h"
#include "diff_gate.h"
#include "passtiming/analysis/gate_runs.h"
#include "passtiming/formats/profile_json.h"
#include "profile_inputs.h"
#include "profile_merge.h"

namespace passtiming::cli {
namespace {

namespace fs = std::filesystem;

struct GateRunOptions {
  std::string base_command;
  std::string new_command;
  unsigned runs = 10;
  /// The most runs per side the series may extend to; unset: 5 × runs.
  std::optional<unsigned> max_runs;
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

/// Removes the profiles of an earlier gate from `dir`, and the compiles'
/// files of a run it did not finish combining, so that only this series is
/// judged.
void clear_earlier_runs(const fs::path& dir) {
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("base-") && !name.starts_with("new-")) continue;
    if (name.ends_with(".json")) fs::remove(entry.path());
    if (name.ends_with(".parts")) fs::remove_all(entry.path());
  }
}

/// Where one run's compiles write their profiles: a directory beside the
/// run's profile, one file per compile (%p the compiler's pid, %n its
/// compile number in the process).
fs::path parts_of(const fs::path& profile) {
  return fs::path(profile.string() + ".parts");
}

/// One recorded run of `argv`, its compiles' profiles in parts_of(profile);
/// the exit status of `run`.
int record_run(const std::vector<std::string>& argv, const fs::path& profile,
               const std::string& metrics) {
  fs::create_directories(parts_of(profile));
  // `run` expands %p and %n in the pattern: a literal % in the directory
  // is doubled.
  std::vector<std::string> args{
      "passtiming", "run", "--no-report",
      "--quiet",    "-o",  escape_percent(parts_of(profile).string()) + "/%p-%n.json"};
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

/// The (pid, compile number) of a compile's file "PID-N.json"; files of
/// another name sort last.
std::pair<unsigned long, unsigned long> process_and_compile(const fs::path& file) {
  unsigned long pid = ~0ul, compile = ~0ul;
  std::sscanf(file.filename().string().c_str(), "%lu-%lu.json", &pid, &compile);
  return {pid, compile};
}

/// Makes `profile` of the run's compiles' files: the one file as it is,
/// or several (a build, a script compiling several kernels) merged into one
/// (profile_merge.h) with the first compile's metadata, the sections
/// ordered by context and, within one, by process and compile number, so
/// that the runs' executions line up for the matched statistic whatever
/// order a parallel build finished in. Nullopt when done; else what went
/// wrong.
std::optional<std::string> combine_parts(const fs::path& profile) {
  const fs::path parts = parts_of(profile);
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(parts)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  if (files.empty()) {
    return "it wrote no profile: nothing in it was timed (a clang, opt, MLIR or TileLang "
           "compile, or a build or script running them)";
  }
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return process_and_compile(a) < process_and_compile(b);
  });
  if (files.size() == 1) {
    fs::rename(files.front(), profile);
  } else {
    std::vector<std::string> paths;
    for (const fs::path& file : files) paths.push_back(file.string());
    Profile merged;
    std::size_t index = 0;
    try {
      for_each_profile(paths, [&](Profile&& part) {
        if (index == 0) merged.metadata = part.metadata;
        merge_into(merged, std::move(part), paths[index++]);
      });
      std::stable_sort(merged.sections.begin(), merged.sections.end(),
                       [](const Section& a, const Section& b) { return a.context < b.context; });
      write_profile_file(merged, profile.string());
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  fs::remove_all(parts);
  return std::nullopt;
}

/// The series so far: the commands, the order's draw and the runs made.
struct Series {
  const GateRunOptions& options;
  std::vector<std::string> base;
  std::vector<std::string> next;
  std::mt19937_64 draw;
  unsigned runs = 0;  ///< per side, so far
};

/// Runs pairs until each side has `runs` runs, each pair's order drawn,
/// each profile added to the gate's sides; the exit status of a failed
/// run (after a message naming the side and the run), else nullopt.
std::optional<int> run_pairs_until(Series& series, unsigned runs, GateOptions& gate) {
  const fs::path dir(series.options.dir);
  for (unsigned run = series.runs + 1; run <= runs; ++run) {
    const bool base_first = (series.draw() & 1) == 0;
    for (int turn = 0; turn < 2; ++turn) {
      const bool is_base = (turn == 0) == base_first;
      const char* side = is_base ? "base" : "new";
      const fs::path profile = dir / fmt::format("{}-{:03}.json", side, run);
      const int status =
          record_run(is_base ? series.base : series.next, profile, series.options.metrics);
      if (status != kExitOk) {
        std::fprintf(stderr,
                     "passtiming gate: the %s command's run %u of %u exited with status %d; "
                     "stopped (the profiles so far are in %s)\n",
                     side, run, runs, status, series.options.dir.c_str());
        return kExitUsage;
      }
      if (std::optional<std::string> failed = combine_parts(profile)) {
        fmt::print(stderr,
                   "passtiming gate: the {} command's run {} of {}: {}; stopped (the profiles so "
                   "far are in {})\n",
                   side, run, runs, *failed, series.options.dir);
        return kExitUsage;
      }
      (is_base ? gate.base : gate.next).push_back(profile.string());
    }
    series.runs = run;
  }
  return std::nullopt;
}

/// "GVNPass 25, LICMPass 18" for the first few of `groups`, "and N more"
/// after them.
std::string describe_needs(const std::vector<RunsNeeded>& groups) {
  constexpr std::size_t kNamed = 3;
  std::string text;
  for (std::size_t i = 0; i < groups.size() && i < kNamed; ++i) {
    text += fmt::format("{}{} {}", i ? ", " : "", groups[i].key, groups[i].runs);
  }
  if (groups.size() > kNamed) text += fmt::format(" and {} more", groups.size() - kNamed);
  return text;
}

/// The groups of --by `by`, plural: "passes", "kernels", "contexts".
std::string plural_of(const std::string& by) {
  return by == "pass" ? "passes" : by + "s";
}

/// "1 pass", "3 passes", "2 kernels": `count` groups of --by `by`.
std::string count_groups(std::size_t count, const std::string& by) {
  return fmt::format("{} {}", count, count == 1 ? by : plural_of(by));
}

int run_gate_series(GateRunOptions& o) {
  const unsigned max_runs = o.max_runs ? *o.max_runs : 5 * o.runs;
  if (max_runs < o.runs) {
    std::fprintf(stderr, "passtiming gate: --max-runs %u is below --runs %u\n", max_runs, o.runs);
    return kExitUsage;
  }
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
  // Back to the nice value the gate started with when it returns, whether
  // the runs all succeeded or not (raising a nice value needs no privilege).
  struct RestorePriority {
    int nice;
    ~RestorePriority() { ::setpriority(PRIO_PROCESS, 0, nice); }
  } restore{raise_priority(o.nice)};
  Series series{o, *base, *next, std::mt19937_64(seed)};
  if (std::optional<int> failed = run_pairs_until(series, o.runs, o.gate)) return *failed;
  // The change each pass should be seen at: twice the threshold (read by
  // the gate itself, which refuses a bad one before this is used).
  const double twice = 2 * std::strtod(o.gate.threshold_pct.c_str(), nullptr);
  for (;;) {
    std::variant<int, EvaluatedGate> gate = evaluate_diff_gate(o.gate);
    if (const int* refused = std::get_if<int>(&gate)) return *refused;
    const RunsWanted wanted = runs_wanted(std::get<EvaluatedGate>(gate).result, max_runs);
    if (wanted.runs <= series.runs) {
      if (!wanted.beyond.empty()) {
        fmt::print(stderr,
                   "passtiming gate: not extended for the {} that need more than --max-runs "
                   "{} runs per side to see +{:g}%: {}\n",
                   plural_of(o.gate.by), max_runs, twice, describe_needs(wanted.beyond));
      }
      fmt::print(stderr,
                 "passtiming gate: {} runs per side{}, alternated in pairs of random order "
                 "(--seed {}); the profiles are in {}\n",
                 series.runs,
                 series.runs > o.runs ? fmt::format(" (extended from {})", o.runs) : "", seed,
                 o.dir);
      return write_diff_gate(std::get<EvaluatedGate>(gate), o.gate);
    }
    const auto more = static_cast<unsigned>(wanted.runs) - series.runs;
    fmt::print(stderr,
               "passtiming gate: with {} runs per side, {} would miss +{:g}% more than 1 "
               "time in 20 (runs per side needed: {}); running {} more per side (--max-runs "
               "{})\n",
               series.runs, count_groups(wanted.within.size(), o.gate.by), twice,
               describe_needs(wanted.within), more, max_runs);
    if (std::optional<int> failed =
            run_pairs_until(series, static_cast<unsigned>(wanted.runs), o.gate)) {
      return *failed;
    }
  }
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
  sub->add_option("--runs", o.runs, "runs per side to begin with (default 10)")
      ->check(CLI::Range(1u, 100000u));
  sub->add_option("--max-runs", o.max_runs,
                  "the most runs per side the gate extends to where a pass's runs spread too "
                  "much to see a change of twice the threshold (default: 5 x --runs; --runs: "
                  "never extend)")
      ->check(CLI::Range(1u, 100000u));
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
