/// passtiming-mlir-opt: `mlir-opt` over every dialect and pass of the MLIR
/// it is built against, plus per-pass timing in the seed's report format.
///
///     passtiming-mlir-opt in.mlir --pass-pipeline='...' --passtiming -o out.mlir
///
/// The report goes to stderr after the pipeline ends, also when it fails, so
/// the passes that completed before the failure are never lost. As every
/// event source does, it writes the JSON profile to PASSTIMING_PROFILE (when
/// --passtiming-profile is not given) and streams the event log to
/// PASSTIMING_EVENTS; either variable turns timing on. PASSTIMING_METRICS
/// (cpu,rss,ir,instructions) adds those figures to every record of the
/// profile and the event log. Exit status:
/// 0 on success, 1 when mlir-opt fails, 2 for a bad --passtiming-* value or
/// an unwritable profile, or an unknown metric in PASSTIMING_METRICS.

#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "passtiming/engine/metric_sampler.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "passtiming/mlir.h"
#include "passtiming/recorder/outputs.h"
#include "passtiming/recorder/settings.h"

namespace {

constexpr int kUsageError = 2;

llvm::cl::OptionCategory& timing_category() {
  static llvm::cl::OptionCategory category("passtiming options");
  return category;
}

llvm::cl::opt<bool> timing_flag("passtiming",
                                llvm::cl::desc("Print the per-pass timing report to stderr"),
                                llvm::cl::init(false), llvm::cl::cat(timing_category()));
llvm::cl::opt<std::string> threshold_flag(
    llvm::StringRef(passtiming::kThresholdSetting.option),
    llvm::cl::desc("Hide passes under this inclusive time in the report (implies --passtiming)"),
    llvm::cl::value_desc("ms"), llvm::cl::init(""), llvm::cl::cat(timing_category()));
llvm::cl::opt<std::string> profile_flag(
    llvm::StringRef(passtiming::kProfileSetting.option),
    llvm::cl::desc("Write the JSON profile to this file, '-' for stdout (implies --passtiming)"),
    llvm::cl::value_desc("file"), llvm::cl::init(""), llvm::cl::cat(timing_category()));

/// The timing threshold: nullopt when timing is off. Exits with status 2
/// naming the option when its value is not a valid threshold.
std::optional<double> requested_threshold(const passtiming::OutputSettings& outputs) {
  const bool wanted = timing_flag || threshold_flag.getNumOccurrences() > 0 ||
                      profile_flag.getNumOccurrences() > 0 || outputs.profile_path ||
                      outputs.events_path;
  if (!wanted) return std::nullopt;
  if (threshold_flag.empty()) return 0.0;
  try {
    return passtiming::parse_threshold_ms(threshold_flag,
                                          "--" + std::string(passtiming::kThresholdSetting.option));
  } catch (const std::exception& error) {
    llvm::errs() << "passtiming-mlir-opt: error: " << error.what() << "\n";
    std::exit(kUsageError);
  }
}

/// Prints the report (and writes the profile) of everything that ran.
/// Returns false when the profile could not be written.
bool emit_timing(passtiming::mlir::PassTiming& timing, const passtiming::OutputSettings& outputs) {
  timing.finish();
  llvm::errs() << timing.recorder().report() << "\n";
  llvm::errs().flush();
  // The flag wins over the variable, and names itself in the message.
  const bool from_flag = !profile_flag.empty();
  const std::optional<std::string> path =
      from_flag ? std::optional<std::string>(profile_flag) : outputs.profile_path;
  if (!path) return true;
  try {
    passtiming::write_profile_file(timing.recorder().profile(), *path);
  } catch (const std::exception& error) {
    llvm::errs() << "passtiming-mlir-opt: error: "
                 << (from_flag ? "--" + std::string(passtiming::kProfileSetting.option)
                               : std::string(passtiming::kProfileSetting.environment))
                 << ": " << error.what() << "\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  llvm::InitLLVM init_llvm(argc, argv);
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);

  auto [input_path, output_path] = mlir::registerAndParseCLIOptions(
      argc, argv, "passtiming-mlir-opt: mlir-opt with per-pass timing\n", registry);
  passtiming::OutputSettings outputs;
  try {
    outputs = passtiming::OutputSettings::from_environment();
  } catch (const std::exception& error) {
    // The message names the variable (e.g. "PASSTIMING_METRICS: unknown ...").
    llvm::errs() << "passtiming-mlir-opt: error: " << error.what() << "\n";
    return kUsageError;
  }
  const std::optional<double> threshold = requested_threshold(outputs);

  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleaveComma(registry.getDialectNames(), llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }

  std::shared_ptr<passtiming::mlir::PassTiming> timing;
  std::unique_ptr<passtiming::EventLogWriter> events;
  // The process's sampler for the metrics, held so that the event log and
  // the timing get the same one and agree on what is unavailable.
  std::shared_ptr<passtiming::SystemMetricSampler> sampler;
  if (threshold && !outputs.metrics.empty()) {
    sampler = passtiming::shared_metric_sampler(outputs.metrics);
  }
  if (threshold && outputs.events_path) {
    try {
      events = passtiming::EventLogWriter::open(
          *outputs.events_path, passtiming::current_process_metadata(),
          sampler ? sampler->metrics() : passtiming::ProfileMetrics{});
    } catch (const std::exception& error) {
      llvm::errs() << "passtiming-mlir-opt: error: PASSTIMING_EVENTS: " << error.what() << "\n";
      return kUsageError;
    }
  }
  if (threshold) {
    try {
      timing = std::make_shared<passtiming::mlir::PassTiming>(passtiming::mlir::Options{
          .threshold_ms = *threshold, .observer = events.get(), .metrics = outputs.metrics});
    } catch (const std::exception& error) {
      llvm::errs() << "passtiming-mlir-opt: error: --passtiming-threshold-ms: " << error.what()
                   << "\n";
      return kUsageError;
    }
    // The command line's pipeline is set up first; the instrumentation then
    // times every pass manager mlir-opt builds (one per split input chunk).
    mlir::MlirOptMainConfig pipeline = config;
    config.setPassPipelineSetupFn([pipeline, timing](mlir::PassManager& pm) {
      if (mlir::failed(pipeline.setupPassPipeline(pm))) return mlir::failure();
      timing->enable(pm);
      return mlir::success();
    });
  }

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(input_path, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = mlir::openOutputFile(output_path, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  const bool ok =
      mlir::succeeded(mlir::MlirOptMain(output->os(), std::move(input), registry, config));
  // Only a successful run keeps its output file, as mlir-opt does.
  if (ok) output->keep();
  output.reset();
  const bool timing_ok = !timing || emit_timing(*timing, outputs);
  if (events) events->close();
  if (!timing_ok) return kUsageError;
  return ok ? 0 : 1;
}
