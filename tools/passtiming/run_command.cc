// `passtiming run [options] -- COMMAND…`: runs a clang, clang++ or opt
// command (or a build such as `make`) with the LLVM pass plugin injected, or
// a Python script with passtiming enabled for every TileLang compile it
// makes, and prints the timing report of every compile it ran.

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "passtiming/analysis/aggregate.h"
#include "passtiming/analysis/measure.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/metrics.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/recorder/path_pattern.h"
#include "passtiming/recorder/settings.h"
#include "phase_text.h"
#include "summary_text.h"

extern char** environ;

namespace passtiming::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPluginFileName = "libpasstiming_llvm.so";

/// The rows of each table of a build's summary.
constexpr std::size_t kBuildSummaryRows = 10;

/// Where the plugin is: $PASSTIMING_LLVM_PLUGIN, else next to this
/// executable (build tree), else in the library directory that belongs to
/// its bin directory (install tree).
std::optional<fs::path> find_plugin(std::vector<std::string>& looked_in) {
  if (const char* override_path = std::getenv("PASSTIMING_LLVM_PLUGIN")) {
    looked_in.push_back(override_path);
    if (fs::exists(override_path)) return fs::path(override_path);
    return std::nullopt;
  }
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  const fs::path dir = exe.parent_path();
  for (const fs::path& candidate :
       {dir / kPluginFileName, dir / PASSTIMING_BIN_TO_LIB_DIR / kPluginFileName}) {
    looked_in.push_back(candidate.lexically_normal().string());
    if (fs::exists(candidate)) return fs::canonical(candidate, error);
  }
  return std::nullopt;
}

/// The directory that holds the `passtiming` Python package:
/// $PASSTIMING_PYTHON_PATH, else <build>/python next to the build tree's
/// tools, else the install tree's lib/pythonX.Y/{dist,site}-packages.
std::optional<fs::path> find_python_package(std::vector<std::string>& looked_in) {
  auto holds_package = [](const fs::path& dir) {
    return fs::exists(dir / "passtiming" / "__init__.py");
  };
  if (const char* override_path = std::getenv("PASSTIMING_PYTHON_PATH")) {
    looked_in.push_back(override_path);
    if (holds_package(override_path)) return fs::path(override_path);
    return std::nullopt;
  }
  std::error_code error;
  const fs::path dir = fs::read_symlink("/proc/self/exe", error).parent_path();
  if (error) return std::nullopt;
  std::vector<fs::path> candidates{dir / ".." / ".." / "python"};
  const fs::path lib = dir / PASSTIMING_BIN_TO_LIB_DIR;
  if (fs::is_directory(lib, error)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(lib, error)) {
      if (entry.path().filename().string().rfind("python3", 0) != 0) continue;
      candidates.push_back(entry.path() / "dist-packages");
      candidates.push_back(entry.path() / "site-packages");
    }
  }
  for (const fs::path& candidate : candidates) {
    looked_in.push_back(candidate.lexically_normal().string());
    if (holds_package(candidate)) return fs::canonical(candidate, error);
  }
  return std::nullopt;
}

enum class CommandKind { clang, opt, python, other };

/// Where the program is in `argv`: after a leading `env NAME=VALUE...`
/// (which sets a variable for one command, as a gate's side may), else 0.
std::size_t program_index(const std::vector<std::string>& argv) {
  if (argv.empty() || fs::path(argv[0]).filename() != "env") return 0;
  std::size_t i = 1;
  while (i < argv.size() && argv[i].find('=') != std::string::npos && argv[i][0] != '-') ++i;
  // `env` with options of its own, or nothing after the assignments: the
  // command is env itself.
  return i < argv.size() && argv[i][0] != '-' ? i : 0;
}

CommandKind kind_of(const std::string& program) {
  const std::string name = fs::path(program).filename().string();
  if (name.rfind("clang", 0) == 0) return CommandKind::clang;
  if (name.rfind("opt", 0) == 0) return CommandKind::opt;
  if (name.rfind("python", 0) == 0) return CommandKind::python;
  return CommandKind::other;
}

/// The environment of the child: ours, with `overrides` (NAME=VALUE) replacing
/// variables of the same name.
std::vector<std::string> child_environment(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry; ++entry) {
    std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool replaced = std::any_of(overrides.begin(), overrides.end(), [&](const std::string& o) {
      return std::string_view(o).substr(0, o.find('=')) == name;
    });
    if (!replaced) env.emplace_back(text);
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// Runs `argv` with `env`; returns its exit status (128 + signal when killed),
/// or nullopt when it cannot be started.
std::optional<int> spawn_and_wait(std::vector<std::string> argv, std::vector<std::string> env) {
  std::vector<char*> args = c_strings(argv);
  std::vector<char*> envp = c_strings(env);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), envp.data());
  if (error != 0) {
    std::fprintf(stderr, "passtiming run: cannot run '%s': %s\n", args[0], std::strerror(error));
    return std::nullopt;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return std::nullopt;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

/// A private directory for the compiles' report files and the status file,
/// removed at the end.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/passtiming-run-XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error(
          fmt::format("cannot create a directory like {}: {}", pattern, std::strerror(errno)));
    }
    path_ = pattern;
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// The reports the compiles wrote, oldest first (a build's compiles in the
/// order they finished).
std::string collect_reports(const fs::path& dir) {
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    files.emplace_back(entry.last_write_time(), entry.path());
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& file : files) {
    std::ifstream in(file.second, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    if (!text.empty()) text += "\n";
    text += content.str();
  }
  return text;
}

/// `pattern` with every `%r` replaced by `run`; `%%` is kept as it is, for
/// the compile to turn into one `%` with the other placeholders.
std::string expand_run_number(std::string_view pattern, unsigned run) {
  return expand_placeholders(pattern, {{'r', std::to_string(run)}}, /*keep_escaped_percent=*/true);
}

bool has_run_number(std::string_view pattern) {
  return expand_run_number(pattern, 0) != expand_run_number(pattern, 1);
}

/// The literal text of a piece of a pattern that holds no placeholder left
/// for the compile (`%p`, `%n`; `%%` is one `%`); nullopt when it holds one.
std::optional<std::string> literal_text(std::string_view pattern) {
  std::string first = expand_path_pattern(pattern, 0, 0);
  if (first != expand_path_pattern(pattern, 1, 1)) return std::nullopt;
  return first;
}

/// A file pattern as the compiles get it: `pattern` (its %r already
/// expanded) made absolute against `cwd` (whose `%` are escaped), so that a
/// compiler working in another directory (`make -C`, CMake's builds) writes
/// where run was asked to; "" and "-" (stdout) are kept as they are.
std::string absolute_pattern(const std::string& pattern, const fs::path& cwd) {
  if (pattern.empty() || pattern == "-" || pattern.front() == '/') return pattern;
  return escape_percent(cwd.string()) + "/" + pattern;
}

/// The deepest directory of `pattern` (absolute, %r expanded) that holds no
/// placeholder left for the compile: the directory part whole, or its
/// parent before the first component with `%p` or `%n` (such a directory
/// differs per compile and cannot be made ahead).
fs::path placeholder_free_directory(std::string_view pattern) {
  const std::size_t last_slash = pattern.rfind('/');
  if (last_slash == std::string_view::npos) return {};
  fs::path dir = "/";
  std::size_t start = 0;
  while (start < last_slash) {
    const std::size_t end = pattern.find('/', start);
    const std::optional<std::string> component = literal_text(pattern.substr(start, end - start));
    if (!component) break;
    if (!component->empty()) dir /= *component;
    start = end + 1;
  }
  return dir;
}

/// Creates the directories a relative file pattern needs (placeholder_free_
/// directory()) under run's working directory. An absolute pattern is used
/// as it is given: run does not create directories elsewhere in the file
/// system. A directory that cannot be made is left to the compiles, whose
/// failures the summary counts.
void create_pattern_directories(const std::string& given, const std::string& absolute) {
  if (given.empty() || given == "-" || given.front() == '/') return;
  std::error_code ignored;
  fs::create_directories(placeholder_free_directory(absolute), ignored);
}

/// What the compiles of the runs so far wrote, from the status file
/// (CompileSession): per file its last outcome.
struct StatusTally {
  std::size_t written = 0;                 ///< profiles whose last outcome is written
  std::vector<std::string> written_paths;  ///< those profiles, as they first appeared
  std::size_t failed = 0;                  ///< files whose last outcome is a failure
  std::string first_failure;               ///< the message of the first file that failed
};

StatusTally tally_status(const fs::path& status) {
  struct Outcome {
    bool written = false;
    std::string message;
  };
  std::map<std::string, Outcome> outcomes;
  std::vector<std::string> order;  // each file, as it first appeared
  std::ifstream in(status, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string state = line.substr(0, tab);
    if (state != "written" && state != "failed") continue;
    const std::size_t message_tab = line.find('\t', tab + 1);
    const std::string path = line.substr(tab + 1, message_tab - (tab + 1));
    auto [entry, added] = outcomes.try_emplace(path);
    if (added) order.push_back(path);
    entry->second.written = state == "written";
    entry->second.message = message_tab == std::string::npos ? "" : line.substr(message_tab + 1);
  }
  StatusTally tally;
  for (const std::string& path : order) {
    const Outcome& outcome = outcomes[path];
    if (outcome.written) {
      ++tally.written;
      tally.written_paths.push_back(path);
    } else if (tally.failed++ == 0) {
      tally.first_failure = outcome.message;
    }
  }
  return tally;
}

std::string profiles_written(std::size_t n) {
  return fmt::format("wrote {} profile{}", n, n == 1 ? "" : "s");
}

/// What `passtiming run` was given.
struct RunOptions {
  std::string threshold = "0";
  std::string profile;
  std::string events;
  std::string context;
  std::optional<std::string> metrics;
  bool analyses = false;
  bool no_report = false;
  bool quiet = false;    ///< with --no-report: not even the count of files written
  bool reports = false;  ///< each compile's report, also for a build
  bool phases = false;   ///< the whole compile: clang's time trace read back as phases
  unsigned repeat = 1;
  std::vector<std::string> command;
};

void add_run_options(CLI::App& sub, RunOptions& options) {
  sub.add_option("--threshold-ms", options.threshold,
                 "hide passes whose inclusive time is under this many milliseconds")
      ->type_name("MS")
      ->check(non_negative_number());
  sub.add_option("-o,--profile", options.profile,
                 "write each compile's JSON profile here (%p = the compiler's pid, %n = the "
                 "compile's number within a Python process, %r = the run's number with "
                 "--repeat)");
  sub.add_option("--events", options.events,
                 "stream each compile's JSONL event log here (%p = pid, %n and %r as above)");
  sub.add_option("--repeat", options.repeat,
                 "run the command this many times, one after the other (default 1); each run "
                 "needs its own files, so --profile and --events then contain %r")
      ->check(CLI::Range(1u, 1000000u));
  sub.add_option("--context", options.context, "context line of the reports");
  sub.add_option("--metrics", options.metrics,
                 "record these metrics per pass besides wall time, into the profiles and event "
                 "logs: a comma-separated list of cpu, rss, ir, instructions (or all); sets "
                 "PASSTIMING_METRICS for the command");
  sub.add_flag("--analyses", options.analyses, "record analyses as well as passes");
  sub.add_flag("--no-report", options.no_report, "print no report (files only)");
  sub.add_flag("--quiet", options.quiet,
               "with --no-report: do not say how many files were written (errors still are)");
  sub.add_flag("--reports", options.reports,
               "print each compile's report, also for a build (by default a build of several "
               "compiles ends with one summary of them all)");
  sub.add_flag("--phases", options.phases,
               "time the whole compile, not only the optimizer's passes: the front end, the "
               "back end and code generation's passes per function, from clang's own "
               "-ftime-trace (docs/llvm.md)");
  sub.add_option("COMMAND", options.command, "the command, after --")->required();
  sub.positionals_at_end();
}

/// Refuses, once and before anything runs, what every compile would refuse:
/// a bad threshold or metric list (given, or inherited from the
/// environment), and --repeat without %r in a file pattern. True when the
/// options are fine; otherwise the message is on stderr.
bool check_run_options(const RunOptions& options) {
  try {
    parse_threshold_ms(options.threshold, "--threshold-ms");
    if (options.metrics) {
      parse_metrics(*options.metrics, "--metrics");
    } else if (const char* inherited =
                   std::getenv(std::string(kMetricsSetting.environment).c_str())) {
      // The command would see it: a bad value is refused here, once,
      // rather than by every compile it runs.
      parse_metrics(inherited, kMetricsSetting.environment);
    }
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "passtiming run: %s\n", e.what());
    return false;
  }
  if (options.repeat <= 1) return true;
  for (const auto& [pattern, option] :
       {std::pair{&options.profile, "--profile"}, std::pair{&options.events, "--events"}}) {
    if (pattern->empty() || has_run_number(*pattern)) continue;
    std::fprintf(stderr,
                 "passtiming run: --repeat %u needs %%r in %s ('%s'), so each run writes "
                 "its own file: e.g. 'base-%%r.json'\n",
                 options.repeat, option, pattern->c_str());
    return false;
  }
  return true;
}

/// The places a search looked in, for its message: "a, b, c".
std::string joined_places(const std::vector<std::string>& looked_in) {
  std::string text;
  for (const std::string& p : looked_in) text += (text.empty() ? "" : ", ") + p;
  return text;
}

/// The command line and the environment variables that turn timing on for
/// the command.
struct TimedCommand {
  std::vector<std::string> argv;
  std::vector<std::string> overrides;
};

/// A Python script: a start-up hook on the child's PYTHONPATH enables
/// passtiming when the script imports tilelang
/// (passtiming/_startup/sitecustomize.py). False (after the message) when
/// the package cannot be found.
bool enable_python_hook(const RunOptions& options, TimedCommand& command) {
  std::vector<std::string> looked_in;
  const std::optional<fs::path> package = find_python_package(looked_in);
  if (!package) {
    std::fprintf(stderr,
                 "passtiming run: cannot find the passtiming Python package (looked in: "
                 "%s); set PASSTIMING_PYTHON_PATH to the directory that holds it\n",
                 joined_places(looked_in).c_str());
    return false;
  }
  const char* existing = std::getenv("PYTHONPATH");
  command.overrides.push_back(
      fmt::format("PYTHONPATH={}:{}{}{}", (*package / "passtiming" / "_startup").string(),
                  package->string(), existing && *existing ? ":" : "", existing ? existing : ""));
  command.overrides.push_back("PASSTIMING_PYTHON_HOOK=tilelang");
  for (const std::string* pattern : {&options.profile, &options.events}) {
    if (!pattern->empty() && pattern->find("%n") == std::string::npos) {
      std::fprintf(stderr,
                   "passtiming run: warning: '%s' has no %%n, so each TileLang compile of "
                   "the script replaces the previous one's file\n",
                   pattern->c_str());
    }
  }
  return true;
}

/// A clang or opt command gets the LLVM pass plugin on its command line; a
/// build, in CCC_OVERRIDE_OPTIONS, which every clang it starts reads. False
/// (after the message) when the plugin cannot be found.
bool inject_llvm_plugin(const RunOptions& options, CommandKind kind, TimedCommand& command) {
  std::vector<std::string> looked_in;
  const std::optional<fs::path> plugin = find_plugin(looked_in);
  if (!plugin) {
    std::fprintf(stderr,
                 "passtiming run: cannot find the LLVM pass plugin %s (looked in: %s); set "
                 "PASSTIMING_LLVM_PLUGIN to its path\n",
                 kPluginFileName, joined_places(looked_in).c_str());
    return false;
  }
  std::vector<std::string>& argv = command.argv;
  // The plugin's argument goes right after the program, past `env`'s
  // assignments.
  const auto after_program = argv.begin() + static_cast<std::ptrdiff_t>(program_index(argv)) + 1;
  if (kind == CommandKind::clang) {
    argv.insert(after_program, "-fpass-plugin=" + plugin->string());
  } else if (kind == CommandKind::opt) {
    argv.insert(after_program, "-load-pass-plugin=" + plugin->string());
  } else {
    // '#' keeps the driver quiet about the edit, '+' appends the argument.
    const char* existing = std::getenv("CCC_OVERRIDE_OPTIONS");
    command.overrides.push_back(fmt::format("CCC_OVERRIDE_OPTIONS={} +-fpass-plugin={}",
                                            existing && *existing ? existing : "#",
                                            plugin->string()));
    if (!options.profile.empty() && options.profile.find("%p") == std::string::npos) {
      std::fprintf(stderr,
                   "passtiming run: warning: --profile has no %%p, so with several compiles "
                   "each one replaces the previous profile\n");
    }
  }
  return true;
}

/// With --phases, every clang of the command writes its time trace into
/// `traces` (`-ftime-trace=DIR/`, granularity 0: every event), where the
/// plugin (loaded with `-fplugin=` as well, so before the front end) finds
/// it at the compiler's exit, reads it into the compile's profile and
/// removes it. The options come first, so that a user's own
/// `-ftime-trace` on the command line wins; the plugin then reads that
/// file and leaves it.
void inject_time_trace(CommandKind kind, const fs::path& traces, TimedCommand& command) {
  const std::string folder = traces.string() + "/";
  std::vector<std::string> options = {"-ftime-trace=" + folder, "-ftime-trace-granularity=0"};
  // Loaded as a clang plugin too, the pass plugin is in the compiler before
  // its front end: a compile that fails there still gets its phases.
  std::vector<std::string> looked_in;
  if (const std::optional<fs::path> plugin = find_plugin(looked_in)) {
    options.push_back("-fplugin=" + plugin->string());
  }
  command.overrides.push_back(fmt::format("PASSTIMING_TIME_TRACE_DIR={}", traces.string()));
  if (kind == CommandKind::clang) {
    std::vector<std::string>& argv = command.argv;
    argv.insert(argv.begin() + static_cast<std::ptrdiff_t>(program_index(argv)) + 1,
                options.begin(), options.end());
    return;
  }
  // A build: '^' puts each option first on every clang's command line.
  for (std::string& assignment : command.overrides) {
    if (!assignment.starts_with("CCC_OVERRIDE_OPTIONS=")) continue;
    for (const std::string& option : options) assignment += " ^" + option;
  }
}

/// The settings every compile of the command reads from its environment,
/// but the files (their patterns hold the run's number): the threshold, the
/// report (a file per compile in `reports`, or off), the context, the
/// analyses switch and, when given, the metrics; without --metrics the
/// command sees the caller's PASSTIMING_METRICS.
void add_setting_overrides(const RunOptions& options, const fs::path& reports,
                           std::vector<std::string>& overrides) {
  overrides.push_back(environment_assignment(kThresholdSetting, options.threshold));
  overrides.push_back(environment_assignment(
      kReportSetting, options.no_report ? std::string("off")
                                        : escape_percent(reports.string()) + "/report-%p-%n.txt"));
  overrides.push_back(environment_assignment(kContextSetting, options.context));
  overrides.push_back(environment_assignment(kAnalysesSetting, options.analyses ? "1" : "0"));
  if (options.metrics) {
    overrides.push_back(environment_assignment(kMetricsSetting, *options.metrics));
  }
}

/// Removes the files of `dir` (the reports of a run, read), for the next run.
void clear_directory(const fs::path& dir) {
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) fs::remove(entry.path());
}

/// Prints the reports the compiles of one run wrote into `reports` (saying
/// so when none did), then empties the directory for the next run.
void print_run_reports(const fs::path& reports, CommandKind kind, const std::string& program) {
  const std::string text = collect_reports(reports);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (text.empty()) {
    std::fprintf(stderr,
                 kind == CommandKind::python
                     ? "passtiming run: no TileLang compile ran in '%s'\n"
                     : "passtiming run: no LLVM pass pipeline ran in '%s'\n",
                 program.c_str());
  }
  clear_directory(reports);
}

/// Whether the command's compiles end in one summary rather than a report
/// each: a build (make, ninja, a script), unless asked otherwise.
bool summarises(const RunOptions& options, CommandKind kind) {
  return kind == CommandKind::other && !options.no_report && !options.reports;
}

/// One summary of a build's compiles, from the profiles they wrote: the
/// passes, the contexts (for clang, the translation units) and the kernels
/// (functions) with the most self time, by CPU time
/// when every profile recorded it. A build of one compile prints its
/// report instead, as a compiler does. Either way the reports of the run
/// are removed.
void print_build_summary(const fs::path& reports, const std::vector<std::string>& profiles,
                         const std::string& program) {
  if (profiles.size() <= 1) {
    print_run_reports(reports, CommandKind::other, program);
    return;
  }
  clear_directory(reports);
  std::vector<Profile> loaded;
  for (const std::string& path : profiles) {
    try {
      loaded.push_back(load_profile(path));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "passtiming run: %s\n", e.what());
    }
  }
  const bool cpu = std::all_of(loaded.begin(), loaded.end(), [](const Profile& p) {
    return profile_has_measure(p, Measure::cpu);
  });
  std::string text = fmt::format(
      "passtiming run: {} compiles timed; the passes, the files and the functions with the most "
      "self {} time among them (each compile's report: --reports)\n",
      loaded.size(), cpu ? "CPU" : "wall");
  for (GroupBy by : {GroupBy::pass, GroupBy::context, GroupBy::kernel}) {
    Aggregator agg(by, cpu ? Measure::cpu : Measure::wall);
    for (const Profile& p : loaded) agg.add(p);
    std::vector<AggregateRow> rows = agg.rows();
    const std::size_t all = rows.size();
    if (rows.size() > kBuildSummaryRows) rows.resize(kBuildSummaryRows);
    if (by != GroupBy::pass) text += "\n";
    text += render_summary_text(rows, agg, all - rows.size(), 0.0);
  }
  // With --phases, where the build's time went besides the passes.
  PhaseTotals phases;
  for (const Profile& p : loaded) phases.add(p);
  if (!phases.empty()) text += "\n" + render_phase_totals_text(phases);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

/// The file pattern of one run for the compiles: %r expanded, absolute,
/// its directories made when it was given relative.
std::string run_file_pattern(const std::string& given, unsigned run, const fs::path& cwd) {
  const std::string pattern = absolute_pattern(expand_run_number(given, run), cwd);
  create_pattern_directories(given, pattern);
  return pattern;
}

/// The end of `run`: the summary of the files the compiles wrote, on
/// stderr, and the exit status. When a file could not be written:
/// "passtiming run: wrote N profiles, M failed: FIRST MESSAGE" and the
/// command's own status when it failed, else kExitIncomplete. When every
/// file was written: "passtiming run: wrote N profiles" with --no-report
/// and -o (nothing else would say so), else nothing. Every source's compile
/// session reports to the status file, TileLang's in a Python script too.
int finish_run(const RunOptions& options, const StatusTally& tally, int command_status) {
  if (tally.failed > 0) {
    std::fprintf(stderr, "passtiming run: %s, %zu failed: %s\n",
                 profiles_written(tally.written).c_str(), tally.failed,
                 tally.first_failure.c_str());
    return command_status != 0 ? command_status : kExitIncomplete;
  }
  if (options.no_report && !options.quiet && !options.profile.empty()) {
    std::fprintf(stderr, "passtiming run: %s\n", profiles_written(tally.written).c_str());
  }
  return command_status;
}

/// Runs the timed command options.repeat times, one after the other, each
/// run with its own files; a run that fails, or whose compiles could not
/// write a file, ends the series (what the earlier runs wrote stays). Then
/// finish_run().
int run_series(const RunOptions& options, CommandKind kind, const TimedCommand& command,
               const fs::path& reports, const fs::path& status_file) {
  const fs::path cwd = fs::current_path();
  // A build's summary is made from the compiles' profiles: without -o they
  // go beside the reports, for run alone.
  std::string profile = options.profile;
  if (profile.empty() && summarises(options, kind)) {
    const fs::path own = reports.parent_path() / "profiles";
    fs::create_directories(own);
    profile = escape_percent(own.string()) + "/tu-%p-%n.json";
  }
  StatusTally tally;
  for (unsigned run = 1; run <= options.repeat; ++run) {
    std::vector<std::string> overrides = command.overrides;
    overrides.push_back(
        environment_assignment(kProfileSetting, run_file_pattern(profile, run, cwd)));
    overrides.push_back(
        environment_assignment(kEventsSetting, run_file_pattern(options.events, run, cwd)));
    const std::optional<int> status = spawn_and_wait(command.argv, child_environment(overrides));
    if (!status) return kExitUsage;
    const StatusTally before = tally;
    tally = tally_status(status_file);
    if (summarises(options, kind)) {
      // This run's profiles: those the status file names beyond the runs before.
      const std::vector<std::string> written(
          tally.written_paths.begin() +
              static_cast<std::ptrdiff_t>(
                  std::min(before.written_paths.size(), tally.written_paths.size())),
          tally.written_paths.end());
      print_build_summary(reports, written, command.argv[0]);
    } else if (!options.no_report) {
      print_run_reports(reports, kind, command.argv[0]);
    }
    if (*status != 0) {
      if (options.repeat > 1) {
        std::fprintf(stderr, "passtiming run: run %u of %u exited with status %d; stopped\n", run,
                     options.repeat, *status);
      }
      return finish_run(options, tally, *status);
    }
    if (tally.failed > 0 && run < options.repeat) {
      std::fprintf(stderr, "passtiming run: run %u of %u could not write every file; stopped\n",
                   run, options.repeat);
      break;
    }
  }
  return finish_run(options, tally, kExitOk);
}

int run_timed(const RunOptions& options) {
  if (!check_run_options(options)) return kExitUsage;
  const CommandKind kind = kind_of(options.command[program_index(options.command)]);
  TimedCommand command{options.command, {}};
  const bool injected = kind == CommandKind::python ? enable_python_hook(options, command)
                                                    : inject_llvm_plugin(options, kind, command);
  if (!injected) return kExitUsage;
  TemporaryDirectory work;
  const fs::path reports = work.path() / "reports";
  const fs::path status_file = work.path() / "status.tsv";
  fs::create_directory(reports);
  if (options.phases && (kind == CommandKind::clang || kind == CommandKind::other)) {
    const fs::path traces = work.path() / "time-traces";
    fs::create_directory(traces);
    inject_time_trace(kind, traces, command);
  }
  add_setting_overrides(options, reports, command.overrides);
  command.overrides.push_back(
      environment_assignment(kStatusSetting, escape_percent(status_file.string())));
  return run_series(options, kind, command, reports, status_file);
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand(
      "run",
      "Run a clang/clang++/opt command, or a build that calls clang (make), with the LLVM pass "
      "plugin, or a Python script with passtiming enabled for its TileLang compiles, and print "
      "each compile's timing report (a build of several compiles: one summary of them all)");
  add_run_options(*sub, *options);
  return [options]() -> int { return run_timed(*options); };
}

}  // namespace passtiming::cli
