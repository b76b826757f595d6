#pragma once
/// \file
/// The life of the plugin's timing in a compiler process. Each pipeline (one
/// `llvm::PassInstrumentationCallbacks`, i.e. one compile) gets a
/// PipelineSession owned by its callbacks. The session writes its outputs
/// exactly once: when the callbacks are destroyed (the pipeline is over), or
/// at process exit for a compile that stopped half-way (a fatal error exits
/// without unwinding), in which case the passes that completed are still
/// reported. Free of LLVM headers apart from the adapter's own.

#include <memory>

#include "passtiming/llvm.h"
#include "plugin_settings.h"

namespace passtiming::llvm_plugin {

class PipelineSession {
 public:
  /// A session for one pipeline. Opens the event log when the settings ask
  /// for one (shared by every pipeline of the process). Throws
  /// std::runtime_error naming the file and the setting when it cannot be
  /// opened.
  static std::shared_ptr<PipelineSession> start(const PluginSettings& settings);

  PipelineSession(const PipelineSession&) = delete;
  PipelineSession& operator=(const PipelineSession&) = delete;
  /// Calls finish().
  ~PipelineSession();

  llvm::PassTiming& instrument() { return instrument_; }

  /// Ends the section and writes the report and the profile; only the first
  /// call does anything. Never throws: a file that cannot be written is one
  /// message on stderr naming the file and the setting.
  void finish() noexcept;

  /// Finishes every session still running; the process-exit hook.
  static void finish_all() noexcept;

 private:
  PipelineSession(const PluginSettings& settings, EventObserver* observer);

  PluginSettings settings_;
  llvm::PassTiming instrument_;
  bool finished_ = false;
};

}  // namespace passtiming::llvm_plugin
