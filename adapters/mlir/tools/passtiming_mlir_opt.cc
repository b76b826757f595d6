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
///
/// With timing on, the run is also a tree of phases (opt_phases.h): compile
/// (the input file) holding parse, pipeline (where the passes' section
/// belongs), output and teardown; the profile carries them and the phase
/// table follows the report. A failure in parsing or in a pass marks that
/// phase and compile failed.

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
#include "opt_phases.h"
#include "passtiming/mlir.h"
#include "passtiming/recorder/compile_session.h"
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

/// The settings of this run: the flags given, else the PASSTIMING_…
/// variables (read_settings()); the report goes to stderr. Nullopt when
/// timing is off: no flag, no file asked for. Exits with status 2 naming
/// the flag or the variable of a bad value.
std::optional<passtiming::Settings> requested_settings() {
  passtiming::GivenOptions given;
  if (threshold_flag.getNumOccurrences() > 0) given.threshold_ms = threshold_flag;
  if (profile_flag.getNumOccurrences() > 0) given.profile = profile_flag;
  const passtiming::SettingSources sources{.options = given, .option_prefix = "--"};
  try {
    passtiming::Settings settings = passtiming::read_settings(
        sources, {.report = passtiming::ReportTarget::standard_error, .source = "mlir"});
    if (!timing_flag && !passtiming::settings_ask_for_timing(sources)) return std::nullopt;
    return settings;
  } catch (const std::exception& error) {
    // The message names the flag or the variable (e.g. "PASSTIMING_METRICS: unknown ...").
    llvm::errs() << "passtiming-mlir-opt: error: " << error.what() << "\n";
    std::exit(kUsageError);
  }
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
  const std::optional<passtiming::Settings> settings = requested_settings();

  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleaveComma(registry.getDialectNames(), llvm::outs());
    llvm::outs() << "\n";
    return 0;
  }

  // The compile session owns the sampler, the event log and the files; the
  // PassTiming only translates MLIR's callbacks into its section, and
  // OptPhases records the run's phases (parse, pipeline, output, teardown).
  std::unique_ptr<passtiming::CompileSession> session;
  std::unique_ptr<passtiming::mlir_opt::OptPhases> phases;
  std::shared_ptr<passtiming::mlir::PassTiming> timing;
  if (settings) {
    try {
      session = std::make_unique<passtiming::CompileSession>(*settings);
    } catch (const std::exception& error) {
      llvm::errs() << "passtiming-mlir-opt: error: " << error.what() << "\n";
      return kUsageError;
    }
    phases = std::make_unique<passtiming::mlir_opt::OptPhases>(*session, input_path);
    phases->begin_compile();
    // One section times every pass manager mlir-opt builds (one per split
    // input chunk). With one chunk it is made in the pipeline phase, where
    // its passes run; several chunks' pipelines are several phases, so then
    // it is made in compile, which holds them all.
    if (!config.inputSplitMarker().empty()) {
      timing = std::make_shared<passtiming::mlir::PassTiming>(session->new_section());
    }
    phases->watch_contexts(registry);
    // The command line's pipeline is set up first; the instrumentation then
    // times every pass manager mlir-opt builds.
    mlir::MlirOptMainConfig pipeline = config;
    config.setPassPipelineSetupFn([pipeline, &session, &phases, &timing](mlir::PassManager& pm) {
      // Parse ends here; the phases' instrumentation goes first, so that its
      // after-pass callback runs after the timing's.
      phases->begin_pipeline(pm);
      if (!timing) timing = std::make_shared<passtiming::mlir::PassTiming>(session->new_section());
      const bool ok = mlir::succeeded(pipeline.setupPassPipeline(pm));
      if (ok) timing->enable(pm);
      // Only now is an empty pipeline known, which ends at once.
      phases->pipeline_set_up(pm, ok);
      return ok ? mlir::success() : mlir::failure();
    });
    phases->begin_parse();
  }

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = mlir::openInputFile(input_path, &error);
  std::unique_ptr<llvm::ToolOutputFile> output;
  bool ok = false;
  if (!input) {
    llvm::errs() << error << "\n";
  } else if (!(output = mlir::openOutputFile(output_path, &error))) {
    llvm::errs() << error << "\n";
  } else {
    ok = mlir::succeeded(mlir::MlirOptMain(output->os(), std::move(input), registry, config));
    // Only a successful run keeps its output file, as mlir-opt does.
    if (ok) output->keep();
    output.reset();
  }
  if (!session) return ok ? 0 : 1;
  // The report and the files of everything that ran, also after a failure.
  phases->end_run(ok);
  // A run that never reached its pipeline still reports its (empty) section.
  if (!timing) timing = std::make_shared<passtiming::mlir::PassTiming>(session->new_section());
  timing->finish();
  phases->end_compile(ok);
  if (!session->finish()) return kUsageError;
  return ok ? 0 : 1;
}
