/// Benchmarks of the profile files and the event log: writing and reading a
/// JSON profile of 1M records (target ≤ 0.5 s each), the event log's cost per
/// pass pair against the floor of two clock reads (target ≤ 100 ns), and
/// `summary`'s work on 10,000 profiles of 60 passes (target ≤ 2 s).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/file_mapping.h"
#include "passtiming/analysis/aggregate.h"
#include "passtiming/engine/timing_state.h"
#include "passtiming/formats/event_log_writer.h"
#include "passtiming/formats/output_file.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "synthetic_profile.h"

namespace {

using passtiming::Nanoseconds;
using passtiming::ObservedEvent;

/// The before- and after-event of a pass, as the state machine hands them
/// to its observer.
constexpr ObservedEvent before_event(Nanoseconds t, std::string_view pass,
                                     std::string_view kernel) {
  return {.kind = ObservedEvent::Kind::before, .t = t, .pass = pass, .kernel = kernel};
}
constexpr ObservedEvent after_event(Nanoseconds t, std::string_view pass) {
  return {.kind = ObservedEvent::Kind::after, .t = t, .pass = pass};
}

std::string temp_path(std::string_view stem) {
  return fmt::format("{}/passtiming-bench-{}-{}.json",
                     std::filesystem::temp_directory_path().string(), stem, ::getpid());
}

/// write_profile_file(): the JSON streamed in 64 KiB pieces into a new file
/// that replaces the old one, as the library and `passtiming merge` write it.
void BM_WriteProfileJson(benchmark::State& state) {
  const passtiming::Profile profile =
      passtiming::bench::synthetic_profile(static_cast<std::size_t>(state.range(0)));
  const std::string path = temp_path("write");
  for (auto _ : state) passtiming::write_profile_file(profile, path);
  state.counters["records"] = static_cast<double>(profile.record_count());
  state.counters["MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove(path);
}
BENCHMARK(BM_WriteProfileJson)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

/// The floor under writing a file of that size: the same number of bytes
/// written to a new file, 64 KiB at a time from one buffer, with no
/// formatting at all. On a virtual machine most of it is the kernel giving
/// the file's pages memory.
void BM_Floor_WriteFileOfSameSize(benchmark::State& state) {
  const std::string json = passtiming::profile_to_json(
      passtiming::bench::synthetic_profile(static_cast<std::size_t>(state.range(0))));
  const std::string path = temp_path("floor");
  for (auto _ : state) {
    passtiming::OutputFile out(path);
    for (std::size_t at = 0; at < json.size(); at += passtiming::kTextPieceBytes) {
      out.write(std::string_view(json).substr(at, passtiming::kTextPieceBytes));
    }
    out.commit();
  }
  state.counters["MB"] = static_cast<double>(json.size()) / 1e6;
  std::filesystem::remove(path);
}
BENCHMARK(BM_Floor_WriteFileOfSameSize)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

/// profile_to_json(): the same text built as one string.
void BM_WriteProfileJsonOneString(benchmark::State& state) {
  const passtiming::Profile profile =
      passtiming::bench::synthetic_profile(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::string json = passtiming::profile_to_json(profile);
    benchmark::DoNotOptimize(json.data());
  }
}
BENCHMARK(BM_WriteProfileJsonOneString)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

/// load_profile() of a profile file, as every command reads its inputs.
void BM_ReadProfileJson(benchmark::State& state) {
  const std::string path = temp_path("read");
  passtiming::write_profile_file(
      passtiming::bench::synthetic_profile(static_cast<std::size_t>(state.range(0))), path);
  for (auto _ : state) {
    passtiming::Profile p = passtiming::load_profile(path);
    benchmark::DoNotOptimize(p.sections.data());
  }
  state.counters["MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove(path);
}
BENCHMARK(BM_ReadProfileJson)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

/// The floor under reading that file with any parser that needs the whole
/// text in memory, as the whole-file reader does: the file read into fresh
/// padded storage and nothing else. On this kind of virtual machine, memory
/// touched for the first time costs several nanoseconds per byte, which is
/// why load_profile streams large files in the writer's layout instead.
void BM_Floor_ReadFileOfSameSize(benchmark::State& state) {
  const std::string path = temp_path("read-floor");
  passtiming::write_profile_file(
      passtiming::bench::synthetic_profile(static_cast<std::size_t>(state.range(0))), path);
  for (auto _ : state) {
    auto text = simdjson::padded_string::load(path);
    benchmark::DoNotOptimize(text.value().data());
  }
  std::filesystem::remove(path);
}
BENCHMARK(BM_Floor_ReadFileOfSameSize)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

/// The floor any timing of a pass pays: one clock read before, one after.
void BM_TwoSteadyClockReads(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(std::chrono::steady_clock::now());
    benchmark::DoNotOptimize(std::chrono::steady_clock::now());
  }
}
BENCHMARK(BM_TwoSteadyClockReads);

/// The event log's own cost per pass pair: its before and after callbacks,
/// with a typical pass name and kernel label, into a memory-mapped file.
void BM_EventLogPassPair(benchmark::State& state) {
  const std::string path = fmt::format("{}/passtiming-bench-{}.jsonl",
                                       std::filesystem::temp_directory_path().string(), ::getpid());
  auto writer = passtiming::EventLogWriter::open(path, passtiming::current_process_metadata());
  Nanoseconds t = 1'000'000'000;
  for (auto _ : state) {
    writer->on_event(before_event(t, "tl.LowerTileOp", "matmul_kernel"));
    writer->on_event(after_event(t + 123'456, "tl.LowerTileOp"));
    t += 200'000;
  }
  state.counters["bytes/pair"] =
      static_cast<double>(writer->bytes_written()) / static_cast<double>(state.iterations());
  writer->close();
  std::filesystem::remove(path);
}
BENCHMARK(BM_EventLogPassPair)->Iterations(2'000'000);

/// A pass's own work: about a microsecond of dependent multiplications (the
/// passes of an LLVM -O2 compile average hundreds of microseconds).
std::uint64_t pass_work(std::uint64_t x) {
  for (int k = 0; k < 1000; ++k) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

/// A file of `size` bytes, allocated, mapped and populated, as the event log
/// keeps its file ahead of the writer (in huge pages where the kernel can);
/// unmapped and removed on destruction.
class PopulatedFile {
 public:
  explicit PopulatedFile(std::size_t size) : size_((size + kHugePage - 1) & ~(kHugePage - 1)) {
    path_ = fmt::format("{}/passtiming-bench-floor-{}.bin",
                        std::filesystem::temp_directory_path().string(), ::getpid());
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd_ < 0) return;
    // The same placement and pages as the log's: a huge-page-aligned range,
    // the file's blocks allocated, mapped and populated.
    range_ =
        passtiming::detail::reserve_aligned_range(size_ + kHugePage, size_ + kHugePage, kHugePage);
    if (range_.base == nullptr) return;
    if (passtiming::detail::map_file_populated(fd_, range_.base, 0, size_) != 0) return;
    data_ = range_.base;
  }
  ~PopulatedFile() {
    if (range_.base != nullptr) ::munmap(range_.base, range_.size);
    if (fd_ >= 0) ::close(fd_);
    std::filesystem::remove(path_);
  }
  char* data() const { return data_; }

 private:
  static constexpr std::size_t kHugePage = passtiming::detail::kHugePageBytes;

  std::string path_;
  std::size_t size_;
  int fd_ = -1;
  passtiming::detail::ReservedRange range_;
  char* data_ = nullptr;
};

/// The log as a compile meets it: each pass does a microsecond of work
/// between its before and after events, which leaves the helper thread time
/// to keep the file's pages ready. Three variants side by side:
///   0  no log: the pass work alone;
///   1  the event log;
///   2  the floor under any crash-safe log of this format: the same 143
///      bytes per pass stored into file pages already allocated, mapped and
///      populated, with no formatting at all. On a virtual machine the first
///      store to each 4 KiB page mapped costs a fault of microseconds; both
///      the log and this floor map huge pages, where the kernel can, to
///      avoid that.
/// The log's cost per pass is (1) − (0); the floor's is (2) − (0).
void BM_EventLogInACompile(benchmark::State& state) {
  constexpr std::size_t kBytesPerPair = 143;
  const std::string path = fmt::format("{}/passtiming-bench-compile-{}.jsonl",
                                       std::filesystem::temp_directory_path().string(), ::getpid());
  auto writer = passtiming::EventLogWriter::open(path, passtiming::current_process_metadata());
  const auto variant = state.range(0);
  PopulatedFile floor(variant == 2 ? static_cast<std::size_t>(state.max_iterations) * kBytesPerPair
                                   : 4096);
  char line[kBytesPerPair];
  std::memset(line, 'x', sizeof line);
  char* cursor = floor.data();
  std::uint64_t x = 1;
  Nanoseconds t = 1'000'000'000;
  for (auto _ : state) {
    if (variant == 1) writer->on_event(before_event(t, "tl.LowerTileOp", "matmul_kernel"));
    x = pass_work(x);
    if (variant == 1) writer->on_event(after_event(t + 123'456, "tl.LowerTileOp"));
    if (variant == 2) {
      std::memcpy(cursor, line, sizeof line);
      cursor += sizeof line;
      benchmark::ClobberMemory();
    }
    t += 200'000;
  }
  benchmark::DoNotOptimize(x);
  writer->close();
  std::filesystem::remove(path);
}
BENCHMARK(BM_EventLogInACompile)->Arg(0)->Arg(1)->Arg(2)->ArgName("variant")->Iterations(400'000);

/// The whole live path: two clock reads, the state machine, and the log.
void BM_StateMachinePassPairWithEventLog(benchmark::State& state) {
  const std::string path = fmt::format("{}/passtiming-bench-sm-{}.jsonl",
                                       std::filesystem::temp_directory_path().string(), ::getpid());
  auto writer = passtiming::EventLogWriter::open(path, passtiming::current_process_metadata());
  passtiming::SteadyClock clock;
  passtiming::TimingStateMachine sm;
  if (state.range(0)) sm.set_observer(writer.get());
  sm.enter(clock.now_ns(), "bench");
  std::size_t n = 0;
  for (auto _ : state) {
    sm.begin_now(clock, {"tl.LowerTileOp", "matmul_kernel"});
    sm.end(clock.now_ns(), {"tl.LowerTileOp"});
    if (++n == 1'000'000) {  // keep the record vector from growing without bound
      state.PauseTiming();
      sm.enter(clock.now_ns(), "bench");
      n = 0;
      state.ResumeTiming();
    }
  }
  writer->close();
  std::filesystem::remove(path);
}
BENCHMARK(BM_StateMachinePassPairWithEventLog)->Arg(0)->Arg(1)->ArgName("with_log");

/// `passtiming summary` on 10,000 profile files of 60 passes: reading every
/// file and aggregating by pass name.
void BM_Summary10kProfiles(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("passtiming-bench-summary-{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::vector<std::string> paths;
  const passtiming::Profile profile = passtiming::bench::synthetic_profile(60);
  const std::string json = passtiming::profile_to_json(profile);
  for (int i = 0; i < state.range(0); ++i) {
    paths.push_back((dir / fmt::format("p{}.json", i)).string());
    passtiming::write_file_atomically(paths.back(), json);
  }
  for (auto _ : state) {
    passtiming::Aggregator agg(passtiming::GroupBy::pass);
    for (const std::string& path : paths) agg.add(passtiming::load_profile(path));
    auto rows = agg.rows();
    benchmark::DoNotOptimize(rows.data());
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Summary10kProfiles)->Arg(10'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
