/// Benchmarks of the fleet formats (docs/fleet.md): a 1M-record profile
/// exported as JSONEachRow rows and as OTLP JSON spans, to a file as
/// `passtiming export -o` writes it (target: at least 1M rows a second),
/// beside the floor of writing a file of the same size; and the OTLP writer
/// alone, with and without its limit on a line.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>

#include "passtiming/formats/fleet.h"
#include "passtiming/formats/output_file.h"
#include "synthetic_profile.h"

namespace {

std::string temp_path(std::string_view stem) {
  return fmt::format("{}/passtiming-fleet-bench-{}-{}",
                     std::filesystem::temp_directory_path().string(), stem, ::getpid());
}

template <typename Writer>
void export_to_file(benchmark::State& state, Writer write) {
  const passtiming::Profile profile =
      passtiming::bench::synthetic_profile(static_cast<std::size_t>(state.range(0)));
  const passtiming::RunIdentity run =
      passtiming::run_identity(profile.metadata, {{"commit", "0123456789abcdef"}});
  const std::string path = temp_path("export");
  for (auto _ : state) {
    passtiming::OutputFile out(path);
    write(profile, run, out.sink());
    out.commit();
  }
  const double records = static_cast<double>(profile.record_count());
  state.counters["rows_per_second"] = benchmark::Counter(
      records * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove(path);
}

/// `passtiming export --to rows -o FILE` of 1M records.
void BM_ExportRows(benchmark::State& state) {
  export_to_file(
      state, [](const passtiming::Profile& profile, const passtiming::RunIdentity& run,
                const passtiming::TextSink& sink) { passtiming::write_rows(profile, run, sink); });
}
BENCHMARK(BM_ExportRows)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

/// `passtiming export --to otlp -o FILE` of 1M records, in lines of at most
/// 1 MiB (the default).
void BM_ExportOtlp(benchmark::State& state) {
  export_to_file(
      state, [](const passtiming::Profile& profile, const passtiming::RunIdentity& run,
                const passtiming::TextSink& sink) { passtiming::write_otlp(profile, run, sink); });
}
BENCHMARK(BM_ExportOtlp)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The OTLP writer alone, its text thrown away: 1M records in lines of at
/// most the second argument's bytes. 1 MiB is the default; 1 TiB puts them
/// on one line, as before lines had a limit, so the two differ by the cost
/// of the limit (a check a span, and the resource again a line).
void BM_OtlpSpans(benchmark::State& state) {
  const passtiming::Profile profile =
      passtiming::bench::synthetic_profile(static_cast<std::size_t>(state.range(0)));
  const passtiming::RunIdentity run =
      passtiming::run_identity(profile.metadata, {{"commit", "0123456789abcdef"}});
  std::size_t bytes = 0, lines = 0;
  for (auto _ : state) {
    bytes = lines = 0;
    passtiming::write_otlp(
        profile, run,
        [&](std::string_view text) {
          bytes += text.size();
          lines += static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
        },
        static_cast<std::size_t>(state.range(1)));
  }
  state.counters["rows_per_second"] =
      benchmark::Counter(static_cast<double>(profile.record_count() * state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["lines"] = static_cast<double>(lines);
}
BENCHMARK(BM_OtlpSpans)
    ->Args({1'000'000, std::int64_t{1} << 20})
    ->Args({1'000'000, std::int64_t{1} << 40})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

/// The floor: the rows' bytes written to a new file 64 KiB at a time from one
/// buffer, with nothing formatted.
void BM_Floor_WriteRowsBytes(benchmark::State& state) {
  const passtiming::Profile profile =
      passtiming::bench::synthetic_profile(static_cast<std::size_t>(state.range(0)));
  std::string rows;
  passtiming::write_rows(profile, passtiming::run_identity(profile.metadata, {}),
                         [&rows](std::string_view text) { rows += text; });
  const std::string path = temp_path("floor");
  for (auto _ : state) {
    passtiming::OutputFile out(path);
    for (std::size_t at = 0; at < rows.size(); at += passtiming::kTextPieceBytes) {
      out.write(std::string_view(rows).substr(at, passtiming::kTextPieceBytes));
    }
    out.commit();
  }
  state.counters["MB"] = static_cast<double>(rows.size()) / 1e6;
  std::filesystem::remove(path);
}
BENCHMARK(BM_Floor_WriteRowsBytes)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
