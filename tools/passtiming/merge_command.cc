#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "profile_inputs.h"
#include "profile_merge.h"

namespace passtiming::cli {

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
        merge_into(merged, std::move(profile), options->inputs[index++]);
      });
      write_profile_file(merged, options->output);
    } catch (const std::exception& e) {
      return input_failure(e.what());
    }
    return kExitOk;
  };
}

}  // namespace passtiming::cli
