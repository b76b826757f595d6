#include "plugin_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "passtiming/engine/logging.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"

namespace passtiming::llvm_plugin {
namespace {

/// What the process has recorded so far, shared by its pipelines: a compiler
/// process may run several compiles (clang's in-process cc1 jobs), and each
/// output file always holds all of them.
struct ProcessOutputs {
  std::mutex mutex;
  std::vector<PipelineSession*> running;
  Profile profile;               ///< every finished section
  std::string report_file_text;  ///< every report written to the report file
  std::unique_ptr<EventLogWriter> events;
  std::string events_path;
  bool exit_hook_installed = false;
};

ProcessOutputs& process_outputs() {
  // Never destroyed: the exit hook may run after static destructors.
  static ProcessOutputs* outputs = new ProcessOutputs();
  return *outputs;
}

void print_error(const std::string& message) noexcept {
  std::fprintf(stderr, "passtiming: %s\n", message.c_str());
  std::fflush(stderr);
}

void write_to_stderr(const std::string& text) noexcept {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

void install_exit_hook(ProcessOutputs& outputs) {
  if (outputs.exit_hook_installed) return;
  // What the hook uses is constructed first, so it is still alive when the
  // hook runs (exit handlers run in reverse order of registration).
  get_logger(kTimingLoggerName);
  steady_clock();
  if (std::atexit([] { PipelineSession::finish_all(); }) != 0) {
    throw std::runtime_error("cannot install the process-exit hook");
  }
  outputs.exit_hook_installed = true;
}

}  // namespace

PipelineSession::PipelineSession(const PluginSettings& settings, EventObserver* observer)
    : settings_(settings),
      instrument_(llvm::InstrumentOptions{.threshold_ms = settings.threshold_ms,
                                          .record_analyses = settings.record_analyses,
                                          .context = settings.context,
                                          .observer = observer,
                                          .metrics = settings.metrics}) {}

std::shared_ptr<PipelineSession> PipelineSession::start(const PluginSettings& settings) {
  ProcessOutputs& outputs = process_outputs();
  std::lock_guard<std::mutex> lock(outputs.mutex);
  install_exit_hook(outputs);
  // Held until the instrument has it too: the process's sampler for a set
  // is shared while someone holds it, so the files and the instrument agree
  // on what is unavailable.
  std::shared_ptr<SystemMetricSampler> sampler;
  if (!settings.metrics.empty()) sampler = shared_metric_sampler(settings.metrics);
  if (outputs.profile.metadata.tool.empty()) {
    outputs.profile.metadata = current_process_metadata();
    // Every pipeline of the process reads the same settings, so the first
    // one's metrics are the files'.
    if (sampler) outputs.profile.metrics = sampler->metrics();
  }
  if (!settings.events_path.empty() && !outputs.events) {
    try {
      outputs.events = EventLogWriter::open(settings.events_path, outputs.profile.metadata,
                                            outputs.profile.metrics);
      outputs.events_path = settings.events_path;
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}: {}", kEventsSetting.environment, e.what()));
    }
  }
  EventObserver* observer = settings.events_path.empty() ? nullptr : outputs.events.get();
  std::shared_ptr<PipelineSession> session(new PipelineSession(settings, observer));
  outputs.running.push_back(session.get());
  return session;
}

PipelineSession::~PipelineSession() {
  finish();
}

void PipelineSession::finish() noexcept {
  ProcessOutputs& outputs = process_outputs();
  std::lock_guard<std::mutex> lock(outputs.mutex);
  if (finished_) return;
  finished_ = true;
  std::erase(outputs.running, this);
  try {
    std::optional<std::string_view> context;
    if (!settings_.context.empty()) context = settings_.context;
    // Rendered only when it goes somewhere: it sorts every record. Ending
    // the section adds no record, so the report is that of the section.
    std::string report;
    if (settings_.report != ReportTarget::off) report = instrument_.recorder().report(context);
    Section section = instrument_.finish();

    switch (settings_.report) {
      case ReportTarget::standard_error: write_to_stderr(report + "\n"); break;
      case ReportTarget::file:
        try {
          if (!outputs.report_file_text.empty()) outputs.report_file_text += "\n\n";
          outputs.report_file_text += report;
          write_file_atomically(settings_.report_path, outputs.report_file_text + "\n");
        } catch (const std::exception& e) {
          print_error(fmt::format("{}: {}", kReportSetting.environment, e.what()));
        }
        break;
      case ReportTarget::off: break;
    }

    outputs.profile.sections.push_back(std::move(section));
    if (!settings_.profile_path.empty()) {
      try {
        write_profile_file(outputs.profile, settings_.profile_path);
      } catch (const std::exception& e) {
        print_error(fmt::format("{}: {}", kProfileSetting.environment, e.what()));
      }
    }
  } catch (const std::exception& e) {
    print_error(fmt::format("cannot write the pass timing report: {}", e.what()));
  } catch (...) {
    print_error("cannot write the pass timing report");
  }
}

void PipelineSession::finish_all() noexcept {
  ProcessOutputs& outputs = process_outputs();
  std::vector<PipelineSession*> running;
  {
    std::lock_guard<std::mutex> lock(outputs.mutex);
    running = outputs.running;
  }
  for (PipelineSession* session : running) session->finish();
  std::lock_guard<std::mutex> lock(outputs.mutex);
  if (outputs.events) outputs.events->close();
}

}  // namespace passtiming::llvm_plugin
