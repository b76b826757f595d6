#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/version.h"

namespace passtiming::cli {

int run_cli(int argc, const char* const* argv) {
  CLI::App app{"passtiming: per-pass timing for compiler pipelines", "passtiming"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("passtiming ") + std::string(kVersion));
  app.failure_message(CLI::FailureMessage::help);

  // Each subcommand registers itself; the one the user named runs.
  std::vector<std::pair<CLI::App*, Action>> actions;
  auto add = [&](Action (*adder)(CLI::App&)) {
    Action action = adder(app);
    actions.emplace_back(app.get_subcommands({}).back(), std::move(action));
  };
  add(add_report_command);
  add(add_summary_command);
  add(add_merge_command);
  add(add_diff_command);
  add(add_convert_command);
  add(add_export_command);
  add(add_push_command);
  add(add_run_command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  try {
    for (auto& [sub, action] : actions) {
      if (sub->parsed()) return action();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "passtiming: %s\n", e.what());
    return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace passtiming::cli
