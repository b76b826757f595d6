#include "passtiming/host/pass_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "passtiming/engine/logging.h"

namespace passtiming {
namespace {

/// The contexts entered on this thread, innermost last.
std::vector<PassContext*>& context_stack() {
  thread_local std::vector<PassContext*> stack;
  return stack;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string describe(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace

PassContext::PassContext(PassContextOptions options, const ConfigRegistry& registry)
    : options_(std::move(options)) {
  registry.validate(options_.config);
}

PassContext& PassContext::current() {
  auto& stack = context_stack();
  if (!stack.empty()) return *stack.back();
  thread_local PassContext default_context;
  return default_context;
}

bool PassContext::pass_required(const PassInfo& info) const {
  return contains(options_.required_passes, info.name);
}

bool PassContext::pass_enabled(const PassInfo& info) const {
  if (contains(options_.disabled_passes, info.name)) return false;
  return pass_required(info) || info.opt_level <= options_.opt_level;
}

void PassContext::instrument_enter_pass_ctx() {
  auto& instruments = options_.instruments;
  std::size_t entered = 0;
  try {
    for (; entered < instruments.size(); ++entered) instruments[entered]->enter_pass_ctx();
  } catch (...) {
    for (std::size_t i = entered; i-- > 0;) {
      try {
        instruments[i]->exit_pass_ctx();
      } catch (...) {
        get_logger("passtiming")
            .error(fmt::format("{}: exit_pass_ctx threw while undoing a failed enter: {}",
                               instruments[i]->name(), describe(std::current_exception())));
      }
    }
    instruments.clear();
    throw;
  }
}

void PassContext::instrument_exit_pass_ctx() {
  std::exception_ptr first;
  for (const PassInstrumentPtr& instrument : options_.instruments) {
    try {
      instrument->exit_pass_ctx();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) {
    options_.instruments.clear();
    std::rethrow_exception(first);
  }
}

bool PassContext::instrument_before_pass(const IRModule& mod, const PassInfo& info) {
  const auto& instruments = options_.instruments;
  bool should_run = true;
  if (!pass_required(info)) {
    for (const PassInstrumentPtr& instrument : instruments) {
      should_run = instrument->should_run(mod, info) && should_run;
    }
  }
  if (!should_run) {
    ++skipped_;
    for (const PassInstrumentPtr& instrument : instruments) instrument->run_skipped_pass(mod, info);
    return false;
  }
  for (const PassInstrumentPtr& instrument : instruments) instrument->run_before_pass(mod, info);
  return true;
}

void PassContext::instrument_after_pass(const IRModule& mod, const PassInfo& info) {
  for (const PassInstrumentPtr& instrument : options_.instruments) {
    instrument->run_after_pass(mod, info);
  }
}

PassContext::Scope::Scope(PassContext& context) : context_(&context) {
  auto& stack = context_stack();
  stack.push_back(context_);
  try {
    context_->instrument_enter_pass_ctx();
  } catch (...) {
    stack.pop_back();
    throw;
  }
}

void PassContext::Scope::exit() {
  if (context_ == nullptr) return;
  PassContext* context = context_;
  context_ = nullptr;
  auto& stack = context_stack();
  // Pop first: an exit callback that throws must not leave the context
  // current for the rest of the thread.
  if (!stack.empty() && stack.back() == context) stack.pop_back();
  context->instrument_exit_pass_ctx();
}

PassContext::Scope::~Scope() {
  try {
    exit();
  } catch (...) {
    get_logger("passtiming")
        .error(fmt::format("exit_pass_ctx threw while leaving a PassContext: {}",
                           describe(std::current_exception())));
  }
}

}  // namespace passtiming
