/// A compile session shaped like TileLang's: one kernel lowered through three
/// PassContexts (lowering, host codegen, device codegen), with nested
/// Sequentials. The passes do deterministic busy work of different sizes so
/// that the report has something to show.
///
///     TILELANG_PASS_PROFILE=1 tile_pipeline
///     TILELANG_PASS_PROFILE=1 TILELANG_PASS_PROFILE_THRESHOLD_MS=1 tile_pipeline
///     tile_pipeline --config tl.pass_profile=true

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "passtiming/passtiming.h"

namespace {

using namespace passtiming;

/// Work that the optimiser cannot remove, about `units` × 10 µs.
void busy(int units) {
  volatile std::uint64_t sink = 0;
  std::uint64_t x = 88172645463325252ull;
  for (int i = 0; i < units * 20'000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    sink = sink + x;
  }
}

PassPtr pass(const char* name, int units) {
  return make_module_pass(
      [units](IRModule mod, PassContext&) {
        busy(units);
        return mod;
      },
      PassInfo{name, 0, {}});
}

PassPtr lowering() {
  auto layout = make_sequential({pass("tl.LayoutInference", 180), pass("tl.LowerTileOp", 260),
                                 pass("tl.LegalizeVectorizedLoop", 40)},
                                "tl.LayoutPipeline");
  auto pipeline =
      make_sequential({pass("tl.InjectSoftwarePipeline", 120), pass("tl.WarpSpecialized", 90),
                       pass("tir.Simplify", 150), pass("tl.InjectFenceProxy", 10)},
                      "tl.PipelinePlanning");
  return make_sequential(
      {pass("tir.BindTarget", 5), pass("tl.FrontendLegalize", 30), layout, pipeline,
       pass("tir.FlattenBuffer", 70), pass("tir.StorageRewrite", 110), pass("tl.ThreadSync", 45)},
      "tl.LowerAndLegalize");
}

PassPtr host_codegen() {
  return make_sequential({pass("tir.MakePackedAPI", 60), pass("tl.LowerDeviceKernelLaunch", 25),
                          pass("tir.SplitHostDevice", 40), pass("codegen.BuildHost", 200)},
                         "tl.HostCodegen");
}

PassPtr device_codegen() {
  return make_sequential({pass("tl.LowerHopperIntrin", 35), pass("tir.LowerIntrin", 55),
                          pass("codegen.BuildCUDA", 420)},
                         "tl.DeviceCodegen");
}

/// Parses `--config tl.pass_profile=true` style arguments into a PassConfig.
PassConfig parse_config(int argc, char** argv) {
  PassConfig config;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--config") != 0 || i + 1 >= argc) {
      throw ConfigError(std::string("usage: tile_pipeline [--config KEY=VALUE]... (got '") +
                        argv[i] + "')");
    }
    std::string item = argv[++i];
    auto eq = item.find('=');
    if (eq == std::string::npos)
      throw ConfigError("--config expects KEY=VALUE, got '" + item + "'");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (value == "true" || value == "false") {
      config[key] = value == "true";
    } else {
      config[key] = parse_threshold_ms(value, key);
    }
  }
  return config;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    PassConfig config = parse_config(argc, argv);
    auto session = PassTimingTool::from_settings(config);
    if (!session) {
      std::fprintf(stderr,
                   "tile_pipeline: timing is off; set TILELANG_PASS_PROFILE=1 or pass "
                   "--config tl.pass_profile=true\n");
    }
    auto instruments = [&](const char* label) {
      return session ? session->instruments_for(label) : std::vector<PassInstrumentPtr>{};
    };
    IRModule mod({{"main", "matmul_kernel"}});
    const std::pair<const char*, PassPtr> stages[] = {
        {"stage=jit-lower, kernel=matmul_kernel", lowering()},
        {"stage=host-codegen, kernel=matmul_kernel", host_codegen()},
        {"stage=device-codegen, kernel=matmul_kernel", device_codegen()}};
    for (const auto& [label, pipeline] : stages) {
      PassContext ctx({.opt_level = 3, .config = config, .instruments = instruments(label)});
      auto scope = ctx.enter();
      mod = (*pipeline)(std::move(mod));
    }
    // The session reports when it is destroyed, here.
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "tile_pipeline: %s\n", e.what());
    return 2;
  }
  return 0;
}
