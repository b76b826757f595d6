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

#include "passtiming/engine/phase.h"

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
  std::string text;    ///< its text when read already (from the held file), else ""
};

/// Called as the plugin is loaded. Under `run --phases` clang also loads it
/// with `-fplugin=`, at the start of cc1, before the front end: it then
/// opens, ahead of clang, the file in run's folder where clang will write
/// this compile's trace, and keeps it open. A compile that fails has its
/// trace removed by clang's driver before the process exits; the open file
/// still holds what clang wrote, so the profile still gets the phases that
/// completed. It also makes sure such a compile, which never reached the
/// pass plugin's pipeline, still gets a profile of its phases at exit
/// (`session_at_exit`, called only when no pipeline made one).
void hold_time_trace_at_load(void (*session_at_exit)());

/// Whether this process holds a trace that clang wrote (see above).
bool holds_written_time_trace();

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

/// Marks the compile failed in `phases` (one trace's, a parent before its
/// children): the root and, down from it, the last of each level's
/// structural phases (front end, back end, optimizer, code generation), the
/// one the compile stopped in.
void mark_failed_compile(std::vector<Phase>& phases);

}  // namespace passtiming::llvm_plugin
