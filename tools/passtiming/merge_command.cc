#include <algorithm>
#include <string>
#include <vector>

#include "commands.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "profile_inputs.h"

namespace passtiming::cli {
namespace {

/// The name of the root phase a merge puts above each input's phases, with
/// the input's file as its detail (docs/cli.md#merge).
constexpr std::string_view kInputPhaseName = "input";

/// Appends `profile`'s phases to `merged`'s, and points its sections at
/// them. Unless the input was merged before (its roots are all input
/// phases already), its phases go under one new root, "input" with the
/// file as detail, spanning them: the inputs' clocks are not one clock, so
/// each input is a tree of its own, and says where it came from.
void merge_phases(Profile& profile, const std::string& file, Profile& merged) {
  const auto offset = static_cast<PhaseIndex>(merged.phases.size());
  const std::vector<Phase>& phases = profile.phases;
  const bool merged_before =
      !phases.empty() && std::all_of(phases.begin(), phases.end(), [](const Phase& p) {
        return p.parent != kNoPhase || p.name == kInputPhaseName;
      });
  const PhaseIndex shift = offset + (phases.empty() || merged_before ? 0 : 1);
  if (shift != offset) {
    Phase root;
    root.name = std::string(kInputPhaseName);
    root.detail = file;
    root.start_ns = phases.front().start_ns;
    Nanoseconds end = phases.front().end_ns();
    for (const Phase& p : phases) {
      root.start_ns = std::min(root.start_ns, p.start_ns);
      end = std::max(end, p.end_ns());
    }
    root.duration_ns = end - root.start_ns;
    merged.phases.push_back(std::move(root));
  }
  for (Phase& p : profile.phases) {
    p.parent = p.parent != kNoPhase ? p.parent + shift : shift != offset ? offset : kNoPhase;
    merged.phases.push_back(std::move(p));
  }
  for (Section& section : profile.sections) {
    if (section.phase != kNoPhase) section.phase += shift;
  }
}

}  // namespace

Action add_merge_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> inputs;
    std::string output = "-";
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "merge",
      "Merge profiles and event logs (e.g. from every machine of a tuning farm) into one JSON "
      "profile: their sections, in the order given, each naming the file and the process it came "
      "from");
  sub->add_option("FILE", options->inputs, "JSON profiles or event logs ('-' reads stdin)")
      ->required();
  sub->add_option("-o,--output", options->output, "output profile (default '-': stdout)");
  sub->add_option_function<std::string>(
         "--format", [](const std::string&) {}, "json (the only format of a merged profile)")
      ->check(CLI::IsMember({"json"}));

  return [options]() -> int {
    Profile merged;
    // The merged file describes the merge; each section keeps its context,
    // and its origin names the input file and the process that recorded it.
    merged.metadata = current_process_metadata();
    try {
      std::size_t index = 0;
      for_each_profile(options->inputs, [&](Profile&& profile) {
        const std::string& file = options->inputs[index++];
        merge_phases(profile, file, merged);
        for (Section& section : profile.sections) {
          // A section merged before keeps the origin it was given then.
          if (section.origin.empty()) section.origin = {file, profile.metadata};
          merged.sections.push_back(std::move(section));
        }
        // The metrics any input recorded, and those any input could not.
        for (Metric m : kAllMetrics) {
          if (profile.metrics.recorded.contains(m)) merged.metrics.recorded.insert(m);
        }
        for (UnavailableMetric& u : profile.metrics.unavailable) {
          const bool known =
              std::any_of(merged.metrics.unavailable.begin(), merged.metrics.unavailable.end(),
                          [&](const UnavailableMetric& seen) { return seen.metric == u.metric; });
          if (!known) merged.metrics.unavailable.push_back(std::move(u));
        }
      });
      write_profile_file(merged, options->output);
    } catch (const std::exception& e) {
      return input_failure(e.what());
    }
    return kExitOk;
  };
}

}  // namespace passtiming::cli
