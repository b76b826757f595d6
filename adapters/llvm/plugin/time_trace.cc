#include "time_trace.h"

#include <dirent.h>
#include <fcntl.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/TimeProfiler.h>
#include <llvm/Support/raw_ostream.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "passtiming/engine/clock.h"
#include "passtiming/formats/clang_time_trace.h"
#include "passtiming/recorder/compile_session.h"
#include "translation_unit.h"

namespace passtiming::llvm_plugin {
namespace {

namespace fs = std::filesystem;

/// The trace file opened at load (hold_time_trace_at_load), or -1.
int held_fd = -1;
std::string held_path;
void (*held_session_at_exit)() = nullptr;

/// The text of the held file, "" when clang wrote nothing into it.
std::string held_text() {
  std::string text;
  if (held_fd < 0) return text;
  char buffer[1 << 16];
  off_t at = 0;
  for (;;) {
    const ssize_t n = ::pread(held_fd, buffer, sizeof buffer, at);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  return text;
}

/// The command line's last `-ftime-trace` ("") or `-ftime-trace=VALUE`
/// (VALUE), the one clang's driver takes; none when it has neither.
std::optional<std::string> time_trace_option(std::span<const std::string> arguments) {
  std::optional<std::string> option;
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    if (arguments[i] == "-ftime-trace") option = "";
    if (arguments[i].starts_with("-ftime-trace=")) option = arguments[i].substr(13);
  }
  return option;
}

/// The name clang's driver gives the trace of a compile to `output` in a
/// folder: the output's file name with `.json`.
fs::path trace_name(const std::string& output) {
  fs::path name = fs::path(output).filename();
  name.replace_extension(".json");
  return name;
}

/// The file clang will write run's trace to, from the command line: cc1's
/// `-ftime-trace=FILE` in a cc1 process; in the driver (whose cc1 runs in
/// its process), run's folder and the output's name with `.json`, unless a
/// later `-ftime-trace` of the user's wins. "" when it cannot be told.
std::string run_trace_path(std::span<const std::string> arguments, const std::string& folder) {
  const bool cc1 = arguments.size() > 1 && arguments[1] == "-cc1";
  const std::optional<std::string> option = time_trace_option(arguments);
  if (!option || option->empty() || !option->starts_with(folder)) return {};
  if (cc1) return *option;
  const std::string output = output_file(arguments);
  if (output.empty()) return {};
  return (fs::path(folder) / trace_name(output)).string();
}

std::string read_text(const std::string& path, std::size_t limit = std::string::npos) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  if (limit != std::string::npos) {
    std::string head(limit, '\0');
    in.read(head.data(), static_cast<std::streamsize>(limit));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head;
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The file clang writes for the user's `-ftime-trace[=PATH]`, as its
/// driver names it: PATH when it is a file; in PATH (a folder, or ending in
/// '/') or beside the output, the output's name with `.json`.
std::optional<std::string> users_trace(std::span<const std::string> arguments) {
  const std::optional<std::string> option = time_trace_option(arguments);
  const std::string output = output_file(arguments);
  if (!option || output.empty()) return std::nullopt;
  const fs::path name = trace_name(output);
  if (option->empty()) return (fs::path(output).parent_path() / name).string();
  std::error_code ec;
  if (option->ends_with('/') || fs::is_directory(*option, ec)) {
    return (fs::path(*option) / name).string();
  }
  return *option;
}

/// Adds one trace's phases, and its code generation's passes as a section
/// of their own, to `s`.
/// What clang's profiler holds of a compile that a crash or a fatal error
/// stopped before clang wrote its trace: the completed events, written from
/// memory. "" when the profiler is not running on this thread.
std::string unwritten_trace() {
  if (!::llvm::timeTraceProfilerEnabled()) return {};
  ::llvm::SmallString<0> buffer;
  ::llvm::raw_svector_ostream out(buffer);
  ::llvm::timeTraceProfilerWrite(out);
  return std::string(buffer.str());
}

void add_time_trace(CompileSession& s, const std::string& text, const std::string& path,
                    const std::string* translation_unit, bool failed, bool cut_short = false) {
  // The trace's times are the system clock's; the session's, the steady
  // clock's. Both read now give the offset between them.
  const Nanoseconds system_now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
  const Nanoseconds steady_now = SteadyClock::read();
  ImportedTimeTrace trace =
      import_clang_time_trace(text, path, {steady_now - system_now},
                              translation_unit != nullptr ? *translation_unit : std::string(),
                              /*with_optimizer_passes=*/false, cut_short ? steady_now : -1);
  if (failed) mark_failed_compile(trace.phases);
  // Indices of the trace's phases in the session's.
  std::vector<PhaseIndex> index(trace.phases.size(), kNoPhase);
  for (std::size_t i = 0; i < trace.phases.size(); ++i) {
    Phase p = trace.phases[i];
    if (p.parent != kNoPhase) p.parent = index[p.parent];
    index[i] = s.add_phase(std::move(p));
  }
  if (!trace.code_generation.records.empty()) {
    Section codegen = trace.code_generation;
    codegen.context = translation_unit != nullptr ? *translation_unit : std::string();
    if (codegen.phase != kNoPhase) codegen.phase = index[codegen.phase];
    s.add_section(std::move(codegen));
  }
}

}  // namespace

std::vector<TimeTraceFile> find_time_traces(const char* folder,
                                            std::span<const std::string> arguments, long pid) {
  std::vector<TimeTraceFile> found;
  if (held_fd >= 0) {
    // The compile's own file, known from the start: the folder's other
    // files of this process are not this compile's (a crash reproducer's
    // preprocessing job writes one too).
    std::string text = held_text();
    if (!text.empty() && time_trace_pid(text.substr(0, 512)) == pid) {
      return {TimeTraceFile{held_path, true, std::move(text)}};
    }
    return found;
  }
  if (auto users = users_trace(arguments)) {
    if (time_trace_pid(read_text(*users, 512)) == pid) return {TimeTraceFile{*users, false}};
  }
  if (folder == nullptr || *folder == '\0') return found;
  // Run's folder holds the traces of the compiles still finishing, each
  // removed by its own compiler, so it stays small.
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() != ".json") continue;
    const std::string path = entry.path().string();
    if (time_trace_pid(read_text(path, 512)) == pid) found.push_back({path, true});
  }
  std::sort(found.begin(), found.end(),
            [](const TimeTraceFile& a, const TimeTraceFile& b) { return a.path < b.path; });
  return found;
}

void import_time_trace_at_finish(CompileSession& session, const std::string* translation_unit) {
  session.before_finish([translation_unit](CompileSession& s) {
    const char* folder = std::getenv(kTimeTraceDirVariable);
    const std::vector<std::string> arguments = process_arguments();
    const std::vector<TimeTraceFile> files = find_time_traces(folder, arguments, ::getpid());
    // Clang removes a failed compile's output: a compile of one unit whose
    // output is missing now failed, in the last phase its trace shows.
    const std::string output = output_file(arguments);
    std::error_code missing;
    const bool failed = files.size() == 1 && !output.empty() && !fs::exists(output, missing);
    for (const TimeTraceFile& file : files) {
      const std::string text = file.text.empty() ? read_text(file.path) : file.text;
      if (file.owned) {
        std::error_code ec;
        fs::remove(file.path, ec);
      }
      add_time_trace(s, text, file.path, translation_unit, failed);
    }
    if (files.empty() && held_fd >= 0) {
      // Clang wrote no trace: the compile is being cut short (a fatal error
      // or a crash finishes the session). What completed is in its memory.
      const std::string text = unwritten_trace();
      if (!text.empty()) {
        add_time_trace(s, text, held_path, translation_unit, false, /*cut_short=*/true);
      }
    }
    s.place_sections_by_time();
  });
}

void mark_failed_compile(std::vector<Phase>& phases) {
  PhaseIndex at = kNoPhase;
  for (PhaseIndex i = 0; i < phases.size(); ++i) {
    if (phases[i].parent == kNoPhase) at = i;
  }
  static constexpr std::string_view kStructural[] = {"front end", "back end", "optimizer",
                                                     "code generation"};
  while (at != kNoPhase) {
    phases[at].flags |= kPhaseFailed;
    PhaseIndex last = kNoPhase;
    for (PhaseIndex i = at + 1; i < phases.size(); ++i) {
      if (phases[i].parent != at) continue;
      if (std::find(std::begin(kStructural), std::end(kStructural), phases[i].name) ==
          std::end(kStructural)) {
        continue;
      }
      if (last == kNoPhase || phases[i].start_ns >= phases[last].start_ns) last = i;
    }
    at = last;
  }
}

void hold_time_trace_at_load(void (*session_at_exit)()) {
  static bool done = false;
  if (done) return;
  done = true;
  const char* folder = std::getenv(kTimeTraceDirVariable);
  if (folder == nullptr || *folder == '\0') return;
  const std::string path = run_trace_path(process_arguments(), folder);
  if (path.empty()) return;
  // Opened without truncating: clang opens the same file and writes it from
  // the start; whoever removes the name, this descriptor keeps the text.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  held_fd = fd;
  held_path = path;
  held_session_at_exit = session_at_exit;
  std::atexit([] {
    if (held_session_at_exit != nullptr && holds_written_time_trace()) held_session_at_exit();
    std::error_code ec;
    // A compile that wrote nothing (it stopped before clang writes traces)
    // leaves no empty file behind.
    if (fs::exists(held_path, ec) && fs::file_size(held_path, ec) == 0) fs::remove(held_path, ec);
  });
}

bool holds_written_time_trace() {
  if (held_fd < 0) return false;
  struct stat st;
  return ::fstat(held_fd, &st) == 0 && st.st_size > 0;
}

}  // namespace passtiming::llvm_plugin
