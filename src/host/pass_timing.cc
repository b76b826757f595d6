#include "passtiming/host/pass_timing.h"

#include <exception>
#include <string>

#include "passtiming/engine/logging.h"

namespace passtiming {
namespace {

/// The PassContext host's instrument: its callbacks go to the recorder's.
class RecorderInstrument final : public PassInstrument {
 public:
  explicit RecorderInstrument(std::shared_ptr<Recorder> recorder)
      : recorder_(std::move(recorder)) {}

  std::string_view name() const override { return "TileLangPassTimingInstrument"; }
  void enter_pass_ctx() override { recorder_->enter_pass_ctx(); }
  void exit_pass_ctx() override { recorder_->exit_pass_ctx(); }
  // This host's modules hold function names and nothing to measure, so it
  // counts no IR: with `ir` asked for, its records say "not measured".
  void run_before_pass(const IRModule& mod, const PassInfo& info) override {
    recorder_->run_before_pass(info.name, mod.kernel_label());
  }
  void run_after_pass(const IRModule&, const PassInfo& info) override {
    recorder_->run_after_pass(info.name);
  }
  void run_skipped_pass(const IRModule& mod, const PassInfo& info) override {
    recorder_->run_skipped_pass(info.name, mod.kernel_label());
  }

 private:
  std::shared_ptr<Recorder> recorder_;
};

}  // namespace

TileLangPassTimingInstrument::TileLangPassTimingInstrument(double threshold_ms,
                                                           std::shared_ptr<const Clock> clock)
    : recorder_(std::make_shared<Recorder>(threshold_ms, std::move(clock))) {}

TileLangPassTimingInstrument::TileLangPassTimingInstrument(std::shared_ptr<Recorder> recorder)
    : recorder_(recorder ? std::move(recorder) : std::make_shared<Recorder>()) {}

std::shared_ptr<TileLangPassTimingInstrument> TileLangPassTimingInstrument::with_files(
    Settings settings, std::shared_ptr<const Clock> clock) {
  settings.report = ReportTarget::off;
  settings.write_each_section = true;
  std::shared_ptr<CompileSession> session;
  try {
    session = std::make_shared<CompileSession>(settings, clock);
  } catch (const std::exception& e) {
    // The compile goes on without the event log; the user learns why.
    get_logger(kTimingLoggerName).error(e.what());
    settings.events.reset();
    session = std::make_shared<CompileSession>(std::move(settings), std::move(clock));
  }
  auto timing = std::make_shared<TileLangPassTimingInstrument>(session->new_section(""));
  timing->session_ = std::move(session);
  return timing;
}

PassInstrumentPtr TileLangPassTimingInstrument::instrument() const {
  return std::make_shared<RecorderInstrument>(recorder_);
}

PassInstruments build_pass_instruments(std::vector<PassInstrumentPtr> base_instruments,
                                       std::optional<double> threshold_ms,
                                       std::shared_ptr<const Clock> clock) {
  if (!threshold_ms) return {std::move(base_instruments), nullptr};
  auto timing = std::make_shared<TileLangPassTimingInstrument>(*threshold_ms, std::move(clock));
  PassInstruments out;
  out.instruments.reserve(base_instruments.size() + 1);
  out.instruments.push_back(timing->instrument());
  for (auto& instrument : base_instruments) out.instruments.push_back(std::move(instrument));
  out.timing = std::move(timing);
  return out;
}

PassTimingReportGuard::PassTimingReportGuard(
    std::shared_ptr<const TileLangPassTimingInstrument> timing, std::string context)
    : timing_(std::move(timing)), context_(std::move(context)) {}

PassTimingReportGuard::PassTimingReportGuard(PassTimingReportGuard&& other) noexcept
    : timing_(std::move(other.timing_)), context_(std::move(other.context_)) {}

PassTimingReportGuard::~PassTimingReportGuard() {
  if (!timing_) return;
  try {
    timing_->print_report(context_);
  } catch (...) {
    // Building the report failed (out of memory): the exception in flight,
    // if any, is the one the caller needs to see.
    get_logger(kTimingLoggerName).error("could not build the pass timing report");
  }
}

PassTimingReportGuard report_pass_timing_on_exit(
    std::shared_ptr<const TileLangPassTimingInstrument> timing, std::string context) {
  return PassTimingReportGuard(std::move(timing), std::move(context));
}

}  // namespace passtiming
