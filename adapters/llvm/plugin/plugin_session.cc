#include "plugin_session.h"

#include <mutex>

#include "passtiming/recorder/compile_session.h"

namespace passtiming::llvm_plugin {
namespace {

/// The process's session, made by the first pipeline. Never destroyed: it
/// finishes at process exit (CompileSession::finish_all), which may run
/// after static destructors.
CompileSession& process_session(const Settings& settings) {
  static std::mutex mutex;
  static CompileSession* session = nullptr;
  std::lock_guard lock(mutex);
  if (session == nullptr) {
    session = new CompileSession(settings);
  }
  return *session;
}

}  // namespace

Settings plugin_defaults() {
  return Settings{.report = ReportTarget::standard_error, .write_each_section = true};
}

PipelineSession::PipelineSession(std::shared_ptr<Recorder> section)
    : instrument_(std::move(section)) {}

std::shared_ptr<PipelineSession> PipelineSession::start(const Settings& settings) {
  CompileSession& session = process_session(settings);
  return std::shared_ptr<PipelineSession>(new PipelineSession(session.new_section()));
}

PipelineSession::~PipelineSession() {
  try {
    instrument_.finish();
  } catch (...) {
    // finish() reports its own failures; the compile is over either way.
  }
}

}  // namespace passtiming::llvm_plugin
