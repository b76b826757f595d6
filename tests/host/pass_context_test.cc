#include "passtiming/host/pass_context.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "host_support.h"
#include "passtiming/host/pass.h"

namespace passtiming {
namespace {

using ::passtiming::testing::named_pass;

/// Logs every callback as "<id>:<callback>[:<pass>]" into a shared journal.
class JournalInstrument : public PassInstrument {
 public:
  JournalInstrument(std::string id, std::vector<std::string>& journal)
      : id_(std::move(id)), journal_(journal) {}
  std::string_view name() const override { return id_; }
  void enter_pass_ctx() override {
    journal_.push_back(id_ + ":enter");
    if (throw_on_enter) throw std::runtime_error(id_ + " enter failed");
  }
  void exit_pass_ctx() override {
    journal_.push_back(id_ + ":exit");
    if (throw_on_exit) throw std::runtime_error(id_ + " exit failed");
  }
  bool should_run(const IRModule&, const PassInfo& info) override {
    journal_.push_back(id_ + ":should_run:" + info.name);
    return info.name != veto;
  }
  void run_before_pass(const IRModule&, const PassInfo& info) override {
    journal_.push_back(id_ + ":before:" + info.name);
  }
  void run_after_pass(const IRModule&, const PassInfo& info) override {
    journal_.push_back(id_ + ":after:" + info.name);
  }
  void run_skipped_pass(const IRModule&, const PassInfo& info) override {
    journal_.push_back(id_ + ":skipped:" + info.name);
  }
  bool throw_on_enter = false;
  bool throw_on_exit = false;
  std::string veto;

 private:
  std::string id_;
  std::vector<std::string>& journal_;
};

using Journal = std::vector<std::string>;

TEST(PassContextTest, EnterAndExitInListOrder) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  auto b = std::make_shared<JournalInstrument>("b", j);
  PassContext ctx({.instruments = {a, b}});
  {
    auto scope = ctx.enter();
    EXPECT_EQ(&PassContext::current(), &ctx);
  }
  EXPECT_NE(&PassContext::current(), &ctx);
  EXPECT_EQ(j, (Journal{"a:enter", "b:enter", "a:exit", "b:exit"}));
}

TEST(PassContextTest, FailedEnterExitsEnteredInstrumentsInReverseAndClears) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  auto b = std::make_shared<JournalInstrument>("b", j);
  auto c = std::make_shared<JournalInstrument>("c", j);
  c->throw_on_enter = true;
  PassContext ctx({.instruments = {a, b, c}});
  EXPECT_THROW({ auto scope = ctx.enter(); }, std::runtime_error);
  EXPECT_EQ(j, (Journal{"a:enter", "b:enter", "c:enter", "b:exit", "a:exit"}));
  EXPECT_TRUE(ctx.instruments().empty());
  EXPECT_NE(&PassContext::current(), &ctx);
}

TEST(PassContextTest, ShouldRunAsksEveryInstrumentWithoutShortCircuit) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  auto b = std::make_shared<JournalInstrument>("b", j);
  a->veto = "p";
  PassContext ctx({.instruments = {a, b}});
  auto scope = ctx.enter();
  j.clear();
  IRModule mod = (*named_pass("p"))(IRModule());
  EXPECT_EQ(j, (Journal{"a:should_run:p", "b:should_run:p", "a:skipped:p", "b:skipped:p"}));
  EXPECT_EQ(ctx.skipped_passes(), 1u);
}

TEST(PassContextTest, RequiredPassesBypassShouldRun) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  a->veto = "p";
  PassContext ctx({.required_passes = {"p"}, .instruments = {a}});
  auto scope = ctx.enter();
  j.clear();
  (*named_pass("p"))(IRModule());
  EXPECT_EQ(j, (Journal{"a:before:p", "a:after:p"}));
  EXPECT_EQ(ctx.skipped_passes(), 0u);
}

TEST(PassContextTest, NestedPassesNestCallbacks) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  auto b = std::make_shared<JournalInstrument>("b", j);
  PassContext ctx({.instruments = {a, b}});
  auto scope = ctx.enter();
  j.clear();
  auto pipeline = make_sequential({named_pass("x"), named_pass("y")}, "seq");
  (*pipeline)(IRModule());
  EXPECT_EQ(j, (Journal{"a:should_run:seq", "b:should_run:seq", "a:before:seq", "b:before:seq",
                        "a:should_run:x", "b:should_run:x", "a:before:x", "b:before:x", "a:after:x",
                        "b:after:x", "a:should_run:y", "b:should_run:y", "a:before:y", "b:before:y",
                        "a:after:y", "b:after:y", "a:after:seq", "b:after:seq"}));
}

TEST(PassContextTest, ThrowingPassGetsNoAfterCallbacksAndExitStillRuns) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  PassContext ctx({.instruments = {a}});
  auto boom = named_pass("boom", [] { throw std::runtime_error("pass failed"); });
  auto pipeline = make_sequential({named_pass("ok"), boom, named_pass("never")}, "seq");
  try {
    auto scope = ctx.enter();
    (*pipeline)(IRModule());
    FAIL() << "the pass's exception must propagate";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "pass failed");
  }
  EXPECT_EQ(
      j, (Journal{"a:enter", "a:should_run:seq", "a:before:seq", "a:should_run:ok", "a:before:ok",
                  "a:after:ok", "a:should_run:boom", "a:before:boom", "a:exit"}));
}

TEST(PassContextTest, OptLevelAndDisabledPassesFilterSequential) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  PassContext ctx({.opt_level = 1,
                   .required_passes = {"heavy_required"},
                   .disabled_passes = {"disabled"},
                   .instruments = {a}});
  auto scope = ctx.enter();
  j.clear();
  auto heavy = make_module_pass([](IRModule m, PassContext&) { return m; }, {"heavy", 3, {}});
  auto heavy_required =
      make_module_pass([](IRModule m, PassContext&) { return m; }, {"heavy_required", 3, {}});
  (*make_sequential({heavy, heavy_required, named_pass("disabled")}, "seq"))(IRModule());
  EXPECT_EQ(j, (Journal{"a:should_run:seq", "a:before:seq", "a:before:heavy_required",
                        "a:after:heavy_required", "a:after:seq"}));
}

TEST(PassContextTest, ContextsNestOnAThreadLocalStack) {
  PassContext outer;
  PassContext inner;
  auto s1 = outer.enter();
  {
    auto s2 = inner.enter();
    EXPECT_EQ(&PassContext::current(), &inner);
  }
  EXPECT_EQ(&PassContext::current(), &outer);
  PassContext* seen_on_other_thread = nullptr;
  std::thread([&] { seen_on_other_thread = &PassContext::current(); }).join();
  EXPECT_NE(seen_on_other_thread, &outer);
}

TEST(PassContextTest, ExitExceptionPropagatesFromExplicitExitAfterExitingAll) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  auto b = std::make_shared<JournalInstrument>("b", j);
  a->throw_on_exit = true;
  PassContext ctx({.instruments = {a, b}});
  auto scope = ctx.enter();
  EXPECT_THROW(scope.exit(), std::runtime_error);
  EXPECT_EQ(j, (Journal{"a:enter", "b:enter", "a:exit", "b:exit"}));
  EXPECT_TRUE(ctx.instruments().empty());
  EXPECT_NE(&PassContext::current(), &ctx);
}

TEST(PassContextTest, ScopeDestructorNeverReplacesTheExceptionInFlight) {
  Journal j;
  auto a = std::make_shared<JournalInstrument>("a", j);
  a->throw_on_exit = true;
  PassContext ctx({.instruments = {a}});
  testing::LogCapture log("passtiming");
  try {
    auto scope = ctx.enter();
    throw std::logic_error("compile error");
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "compile error");
  }
  ASSERT_EQ(log.messages(LogLevel::error).size(), 1u);
  EXPECT_NE(log.messages(LogLevel::error)[0].find("a exit failed"), std::string::npos);
}

TEST(PassContextTest, ModuleLabelReachesInstruments) {
  struct LabelSpy : PassInstrument {
    std::vector<std::string> labels;
    void run_before_pass(const IRModule& mod, const PassInfo&) override {
      labels.push_back(mod.kernel_label());
    }
  };
  auto spy = std::make_shared<LabelSpy>();
  PassContext ctx({.instruments = {spy}});
  auto scope = ctx.enter();
  (*named_pass("p"))(IRModule({{"main", "matmul_kernel"}}));
  EXPECT_EQ(spy->labels, std::vector<std::string>{"matmul_kernel"});
}

}  // namespace
}  // namespace passtiming
