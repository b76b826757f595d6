#include "passtiming/engine/logging.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace passtiming {
namespace {

TEST(LoggerTest, SameNameSameLogger) {
  EXPECT_EQ(&get_logger("tilelang.pass_timing"), &get_logger(kTimingLoggerName));
  EXPECT_NE(&get_logger("a"), &get_logger("b"));
}

TEST(LoggerTest, TileLangAndTvmKeepTheSeedsLoggerAndNamedSourcesGetPasstimings) {
  EXPECT_EQ(timing_logger_name(""), "tilelang.pass_timing");
  EXPECT_EQ(timing_logger_name("llvm"), "passtiming");
  EXPECT_EQ(timing_logger_name("mlir"), "passtiming");
}

TEST(LoggerTest, SinkReceivesLevelNameAndMessage) {
  Logger& log = get_logger("test.sink");
  std::vector<std::string> seen;
  log.set_sink([&](LogLevel level, std::string_view name, std::string_view message) {
    seen.push_back(std::string(level_name(level)) + "|" + std::string(name) + "|" +
                   std::string(message));
  });
  log.info("hello");
  log.warning("careful");
  log.log(LogLevel::debug, "dropped below INFO");
  log.set_level(LogLevel::warning);
  log.info("dropped below WARNING");
  log.set_level(LogLevel::info);
  log.set_sink({});
  EXPECT_EQ(seen, (std::vector<std::string>{"INFO|test.sink|hello", "WARNING|test.sink|careful"}));
}

TEST(LoggerTest, ThrowingSinkNeverEscapes) {
  Logger& log = get_logger("test.throwing");
  log.set_sink(
      [](LogLevel, std::string_view, std::string_view) { throw std::runtime_error("sink broke"); });
  ::testing::internal::CaptureStderr();
  EXPECT_NO_THROW(log.warning("kept"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  log.set_sink({});
  EXPECT_EQ(err,
            "ERROR:test.throwing:log sink threw; message follows\nWARNING:test.throwing:kept\n");
}

TEST(LoggerTest, DefaultSinkWritesPythonBasicConfigFormat) {
  ::testing::internal::CaptureStderr();
  get_logger("test.default").info("line");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "INFO:test.default:line\n");
}

}  // namespace
}  // namespace passtiming
