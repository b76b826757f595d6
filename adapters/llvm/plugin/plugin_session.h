#pragma once
/// \file
/// The plugin's timing in a compiler process. The process has one
/// CompileSession, made from the settings of its first pipeline, and each
/// pipeline (one `llvm::PassInstrumentationCallbacks`, i.e. one compile) is
/// one of its sections. A section's report and the profile of every section
/// so far are written when its pipeline's callbacks are destroyed, and at
/// process exit or on a fatal signal for a compile that stopped half-way.
/// Free of LLVM headers apart from the adapter's own.

#include <memory>

#include "passtiming/llvm.h"
#include "passtiming/recorder/settings.h"

namespace passtiming::llvm_plugin {

class PipelineSession {
 public:
  /// A section for one pipeline in the process's session, which the first
  /// call opens from `settings`. Without a context setting, the section is
  /// labelled by its translation unit (translation_unit.h). Throws ConfigError naming the setting
  /// and the file when the event log cannot be created.
  static std::shared_ptr<PipelineSession> start(const Settings& settings);

  PipelineSession(const PipelineSession&) = delete;
  PipelineSession& operator=(const PipelineSession&) = delete;
  /// Ends the section (the session writes the report and the profile).
  ~PipelineSession();

  llvm::PassTiming& instrument() { return instrument_; }

 private:
  PipelineSession(std::shared_ptr<Recorder> section,
                  llvm::PassTiming::ModuleContext module_context);

  llvm::PassTiming instrument_;
};

/// The plugin's defaults: the report on stderr, and the files written after
/// each pipeline.
Settings plugin_defaults();

/// At exit, for a compile that never reached a pass pipeline (it failed in
/// the front end) but whose time trace run's `--phases` holds: makes the
/// process's session from the environment's settings and finishes it, so
/// the compile's phases are written. Does nothing when a pipeline made the
/// session, or for a preprocessing job (`-E`, `-M`, `-MM`). Never throws.
void whole_compile_session_at_exit() noexcept;

}  // namespace passtiming::llvm_plugin
