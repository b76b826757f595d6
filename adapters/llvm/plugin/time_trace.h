#pragma once
/// \file
/// The whole compile, from clang's own time trace: `passtiming run` asks
/// every clang for `-ftime-trace` into a folder of its own
/// (PASSTIMING_TIME_TRACE_DIR) at granularity 0, and the plugin, as its
/// session finishes at the compiler's exit, finds the trace this process
/// wrote, adds its phases and code generation's passes to the session, and
/// removes the file. A trace the user asked for (their own `-ftime-trace`,
/// which wins over run's) is read where clang put it and left there.

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace passtiming {
class CompileSession;
}

namespace passtiming::llvm_plugin {

/// The environment variable naming run's folder of time traces.
inline constexpr const char* kTimeTraceDirVariable = "PASSTIMING_TIME_TRACE_DIR";

/// Where this process's time trace is, and whether it is ours to remove.
struct TimeTraceFile {
  std::string path;
  bool owned = false;  ///< in run's folder: removed once read
};

/// This process's trace: in `folder` (run's), the `.json` whose first event
/// names process `pid`; else the one the user's own `-ftime-trace[=PATH]`
/// among `arguments` names (beside the `-o` output, or in PATH). None when
/// neither exists.
std::optional<TimeTraceFile> find_time_trace(const char* folder,
                                             std::span<const std::string> arguments, long pid);

/// Makes `session` add the phases and code generation's passes of this
/// process's time trace when it finishes; `translation_unit` (as the
/// section's context names it) becomes the compile phase's detail. A trace
/// that cannot be read is one message on stderr: the compile and its passes
/// are kept.
void import_time_trace_at_finish(CompileSession& session, const std::string* translation_unit);

}  // namespace passtiming::llvm_plugin
