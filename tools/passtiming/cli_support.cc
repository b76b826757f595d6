#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "passtiming/engine/errors.h"
#include "passtiming/engine/version.h"
#include "passtiming/recorder/settings.h"

namespace passtiming::cli {
namespace {

/// The edit distance between `a` and `b` (insertions, deletions,
/// substitutions and swaps of two neighbours each count one).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

/// "unknown command 'WORD'", with the nearest command when one is close
/// (at most a third of its letters off), for a first argument that names no
/// command.
std::string unknown_command(const CLI::App& app, std::string_view word) {
  std::string nearest;
  std::size_t best = std::string::npos;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::size_t distance = edit_distance(word, sub->get_name());
    if (distance < best) {
      best = distance;
      nearest = sub->get_name();
    }
  }
  if (!nearest.empty() && best * 3 <= std::max(nearest.size(), std::size_t{3})) {
    return fmt::format(
        "passtiming: unknown command '{}'; did you mean '{}'? (passtiming --help "
        "lists the commands)",
        word, nearest);
  }
  return fmt::format("passtiming: unknown command '{}' (passtiming --help lists the commands)",
                     word);
}

/// The command a parse error is about: the subcommand the user named, else
/// none.
std::string command_of(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->parsed()) return "passtiming " + sub->get_name();
  }
  return "passtiming";
}

}  // namespace

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parse_threshold_ms(text, "value");
          return {};
        } catch (const ConfigError&) {
          return fmt::format("must be a finite non-negative number (got '{}')", text.substr(0, 64));
        }
      },
      "");
}

int run_cli(int argc, const char* const* argv) {
  CLI::App app{"passtiming: per-pass timing for compiler pipelines", "passtiming"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("passtiming ") + std::string(kVersion));
  // A usage error is one line naming the command and where its help is,
  // not the whole help.
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    const std::string command = command_of(*failed);
    return fmt::format("{}: {} (see '{} --help')\n", command, e.what(), command);
  });

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
  add(add_gate_command);
  add(add_convert_command);
  add(add_export_command);
  add(add_push_command);
  add(add_pull_command);
  add(add_run_command);

  // A first argument that is neither an option nor a command.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string_view word = argv[1];
    const auto subs = app.get_subcommands({});
    const bool known = std::any_of(subs.begin(), subs.end(),
                                   [&](const CLI::App* sub) { return sub->get_name() == word; });
    if (!known) {
      std::fprintf(stderr, "%s\n", unknown_command(app, word).c_str());
      return kExitUsage;
    }
  }

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

std::string escape_percent(std::string_view path) {
  std::string out;
  for (char c : path) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

}  // namespace passtiming::cli
