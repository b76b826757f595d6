#include "time_trace.h"

#include <dirent.h>
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
  std::optional<std::string> option;
  std::string output;
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "-ftime-trace") option = "";
    if (a.starts_with("-ftime-trace=")) option = a.substr(13);
    if (a == "-o" && i + 1 < arguments.size()) output = arguments[++i];
  }
  if (!option || output.empty() || output == "-") return std::nullopt;
  const fs::path out(output);
  fs::path name = out.filename();
  name.replace_extension(".json");
  if (option->empty()) return (out.parent_path() / name).string();
  std::error_code ec;
  if (option->ends_with('/') || fs::is_directory(*option, ec)) {
    return (fs::path(*option) / name).string();
  }
  return *option;
}

/// Adds one trace's phases, and its code generation's passes as a section
/// of their own, to `s`.
void add_time_trace(CompileSession& s, const std::string& text, const std::string& path,
                    const std::string* translation_unit) {
  // The trace's times are the system clock's; the session's, the steady
  // clock's. Both read now give the offset between them.
  const Nanoseconds system_now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
  const Nanoseconds steady_now = SteadyClock::read();
  const ImportedTimeTrace trace =
      import_clang_time_trace(text, path, {steady_now - system_now},
                              translation_unit != nullptr ? *translation_unit : std::string());
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
    for (const TimeTraceFile& file : find_time_traces(folder, arguments, ::getpid())) {
      const std::string text = read_text(file.path);
      if (file.owned) {
        std::error_code ec;
        fs::remove(file.path, ec);
      }
      add_time_trace(s, text, file.path, translation_unit);
    }
    s.place_sections_by_time();
  });
}

}  // namespace passtiming::llvm_plugin
