#include "plugin_session.h"

#include <algorithm>
#include <cstdio>
#include <exception>
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

/// The process's session, made by the first pipeline (or, for a compile
/// that never reached one, at exit). Never destroyed: it finishes at
/// process exit (CompileSession::finish_all), which may run after static
/// destructors.
struct ProcessSession {
  std::mutex mutex;
  CompileSession* session = nullptr;
};

ProcessSession& process() {
  static ProcessSession* p = new ProcessSession();
  return *p;
}

CompileSession& process_session(const Settings& settings) {
  ProcessSession& p = process();
  std::lock_guard lock(p.mutex);
  if (p.session == nullptr) {
    p.session = new CompileSession(settings);
    import_time_trace_at_finish(*p.session, &translation_unit());
  }
  return *p.session;
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

void whole_compile_session_at_exit() noexcept {
  try {
    {
      ProcessSession& p = process();
      std::lock_guard lock(p.mutex);
      if (p.session != nullptr) return;  // a pipeline made it; it has finished
    }
    // A preprocessing job is not a compile: among them, the one clang's
    // driver starts after a crash to write its reproducer, whose profile
    // would replace the crashed compile's.
    const std::vector<std::string> arguments = process_arguments();
    for (const std::string& a : arguments) {
      if (a == "-E" || a == "-M" || a == "-MM") return;
    }
    // The unit, as a pipeline would have named it: the source file as the
    // command line gives it.
    for (const std::string& a : arguments) {
      const std::string_view ext = std::string_view(a).substr(std::min(a.rfind('.'), a.size()));
      if (ext == ".c" || ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".m" ||
          ext == ".mm" || ext == ".i" || ext == ".ii") {
        translation_unit() = translation_unit_context(a, arguments);
      }
    }
    // The settings of the environment: no pipeline parsed the plugin's
    // options.
    process_session(read_settings({}, plugin_defaults())).finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "passtiming: %s; this compile's phases are not written\n", e.what());
  } catch (...) {
  }
}

}  // namespace passtiming::llvm_plugin
