// The pass plugin: `clang-19 -fpass-plugin=libpasstiming_llvm.so` and
// `opt-19 -load-pass-plugin=libpasstiming_llvm.so` load it, and it times every
// pass of the pipeline they build. Settings come from `-passtiming-…` options
// (for clang: `-fplugin=` too, so they exist when `-mllvm` is parsed) or from
// PASSTIMING_… environment variables.

#include <llvm/Config/llvm-config.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Signals.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <exception>

#include "passtiming/engine/version.h"
#include "passtiming/recorder/compile_session.h"
#include "plugin_session.h"
#include "time_trace.h"

namespace passtiming::llvm_plugin {
namespace {

namespace cl = ::llvm::cl;

// One option per setting; the environment variable of the same setting is
// read when the option is not given.
cl::opt<std::string> threshold_option(
    ::llvm::StringRef(kThresholdSetting.option), cl::value_desc("ms"), cl::Hidden,
    cl::desc("passtiming: hide passes under this inclusive time (PASSTIMING_THRESHOLD_MS)"));
cl::opt<std::string> profile_option(
    ::llvm::StringRef(kProfileSetting.option), cl::value_desc("path"), cl::Hidden,
    cl::desc("passtiming: write the JSON profile here, %p = pid (PASSTIMING_PROFILE)"));
cl::opt<std::string> events_option(
    ::llvm::StringRef(kEventsSetting.option), cl::value_desc("path"), cl::Hidden,
    cl::desc("passtiming: stream the JSONL event log here, %p = pid (PASSTIMING_EVENTS)"));
cl::opt<std::string> report_option(
    ::llvm::StringRef(kReportSetting.option), cl::value_desc("stderr|off|path"), cl::Hidden,
    cl::desc("passtiming: where the text report goes (PASSTIMING_REPORT)"));
cl::opt<std::string> context_option(
    ::llvm::StringRef(kContextSetting.option), cl::value_desc("label"), cl::Hidden,
    cl::desc("passtiming: context line of the report (PASSTIMING_CONTEXT)"));
cl::opt<std::string> analyses_option(
    ::llvm::StringRef(kAnalysesSetting.option), cl::value_desc("bool"), cl::Hidden,
    cl::desc("passtiming: record analyses too (PASSTIMING_ANALYSES)"));
cl::opt<std::string> metrics_option(
    ::llvm::StringRef(kMetricsSetting.option), cl::value_desc("cpu,rss,ir,instructions"),
    cl::Hidden, cl::desc("passtiming: record these metrics per pass (PASSTIMING_METRICS)"));

std::optional<std::string> given(const cl::opt<std::string>& option) {
  if (option.getNumOccurrences() == 0) return std::nullopt;
  return option.getValue();
}

/// A compile that dies on a signal (LLVM's fatal errors abort in opt) still
/// reports the passes that completed: LLVM runs its signal handlers before the
/// process ends. Best effort, as all crash handling is; a second crash inside
/// the handler finds the flag set and does nothing.
void install_crash_handler() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  ::llvm::sys::AddSignalHandler(
      [](void*) {
        static std::atomic<bool> running{false};
        if (running.exchange(true)) return;
        CompileSession::finish_all();
      },
      nullptr);
}

/// Called once per PassBuilder, i.e. once per compile; never lets an
/// exception reach LLVM. A malformed setting is one message and the compile
/// goes on untimed: a profiler must not break the build it observes.
void register_timing(::llvm::PassBuilder& builder) noexcept {
  ::llvm::PassInstrumentationCallbacks* callbacks = builder.getPassInstrumentationCallbacks();
  if (!callbacks) return;  // a PassBuilder made without instrumentation
  try {
    GivenOptions options{given(threshold_option), given(profile_option), given(events_option),
                         given(report_option),    given(context_option), given(analyses_option),
                         given(metrics_option)};
    Settings settings = read_settings({.options = std::move(options)}, plugin_defaults());
    std::shared_ptr<PipelineSession> session = PipelineSession::start(settings);
    install_crash_handler();
    PipelineSession* raw = session.get();
    // The callbacks own the session: it is finished when they are destroyed.
    raw->instrument().register_callbacks(*callbacks, std::move(session));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "passtiming: %s; this compile is not timed\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "passtiming: internal error; this compile is not timed\n");
  }
}

/// Under `run --phases` clang also loads the plugin with `-fplugin=`, before
/// its front end: the trace file is held from then on (time_trace.h).
[[maybe_unused]] const bool held_at_load = [] {
  try {
    hold_time_trace_at_load(&whole_compile_session_at_exit);
  } catch (...) {
    // Without the held file, a failed compile's phases are not written; a
    // successful one's still are.
  }
  return true;
}();

}  // namespace
}  // namespace passtiming::llvm_plugin

/// The entry point LLVM looks up; the only symbol the plugin exports.
extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT ::llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "passtiming", passtiming::kVersion.data(),
          [](::llvm::PassBuilder& builder) { passtiming::llvm_plugin::register_timing(builder); }};
}
