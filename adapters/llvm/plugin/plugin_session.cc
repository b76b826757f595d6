#include "plugin_session.h"

#include <mutex>

#include "passtiming/recorder/compile_session.h"
#include "time_trace.h"
#include "translation_unit.h"

namespace passtiming::llvm_plugin {
namespace {

/// The translation unit of the process's last pipeline, as its section's
/// context names it ("" until one is known). Never destroyed, as the
/// session that reads it at exit.
std::string& translation_unit() {
  static std::string* unit = new std::string();
  return *unit;
}

/// The process's session, made by the first pipeline. Never destroyed: it
/// finishes at process exit (CompileSession::finish_all), which may run
/// after static destructors.
CompileSession& process_session(const Settings& settings) {
  static std::mutex mutex;
  static CompileSession* session = nullptr;
  std::lock_guard lock(mutex);
  if (session == nullptr) {
    session = new CompileSession(settings);
    import_time_trace_at_finish(*session, &translation_unit());
  }
  return *session;
}

}  // namespace

Settings plugin_defaults() {
  return Settings{
      .report = ReportTarget::standard_error, .write_each_section = true, .source = "llvm"};
}

PipelineSession::PipelineSession(std::shared_ptr<Recorder> section,
                                 llvm::PassTiming::ModuleContext module_context)
    : instrument_(std::move(section), std::move(module_context)) {}

std::shared_ptr<PipelineSession> PipelineSession::start(const Settings& settings) {
  CompileSession& session = process_session(settings);
  llvm::PassTiming::ModuleContext module_context;
  if (settings.context.empty()) {
    // Without a label of the user's, the section names its translation
    // unit, so that the profiles of a whole build say which file is which.
    module_context = [](std::string_view module) {
      std::string context = translation_unit_context(module, process_arguments());
      translation_unit() = context;
      return context;
    };
  }
  return std::shared_ptr<PipelineSession>(
      new PipelineSession(session.new_section(), std::move(module_context)));
}

PipelineSession::~PipelineSession() {
  try {
    instrument_.finish();
  } catch (...) {
    // finish() reports its own failures; the compile is over either way.
  }
}

}  // namespace passtiming::llvm_plugin
