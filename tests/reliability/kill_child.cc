/// The compile that kill_test kills: streams its event log to argv[1], runs
/// `argv[3]` passes that complete, then enters `running.outer` >
/// `running.inner`, creates the marker file argv[2] and spins until killed.

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "passtiming/host/pass.h"
#include "passtiming/host/pass_context.h"
#include "passtiming/host/session.h"
#include "passtiming/recorder/settings.h"

int main(int argc, char** argv) {
  using namespace passtiming;
  if (argc != 4) return 2;
  const std::string marker = argv[2];
  const int completed = std::atoi(argv[3]);
  PassTimingTool session(0.0, steady_clock(),
                         Settings{.events = OutputPath{argv[1], "PASSTIMING_EVENTS"}});
  PassContext ctx({.instruments = session.instruments_for("stage=killed")});
  auto scope = ctx.enter();
  IRModule mod{{"main", "victim_kernel"}};
  for (int i = 0; i < completed; ++i) {
    auto pass = make_module_pass([](IRModule m, PassContext&) { return m; },
                                 PassInfo{"done." + std::to_string(i), 0, {}});
    mod = (*pass)(std::move(mod), ctx);
  }
  auto inner = make_module_pass(
      [&marker](IRModule m, PassContext&) -> IRModule {
        const int fd = ::open(marker.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd >= 0) ::close(fd);
        for (;;) ::pause();  // until SIGKILL
      },
      PassInfo{"running.inner", 0, {}});
  auto outer =
      make_module_pass([inner](IRModule m, PassContext& c) { return (*inner)(std::move(m), c); },
                       PassInfo{"running.outer", 0, {}});
  mod = (*outer)(std::move(mod), ctx);
  return 1;  // unreachable
}
