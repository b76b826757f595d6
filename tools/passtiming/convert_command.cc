#include <exception>
#include <filesystem>
#include <string>

#include "commands.h"
#include "passtiming/formats/chrome_trace.h"
#include "passtiming/formats/html_report.h"
#include "passtiming/formats/profile_io.h"
#include "passtiming/formats/profile_json.h"
#include "profile_inputs.h"

namespace passtiming::cli {

Action add_convert_command(CLI::App& app) {
  struct Options {
    std::string input;
    std::string to;
    std::string output = "-";
    std::string title;
    std::size_t top = 10;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "convert",
      "Convert a JSON profile or event log to a Chrome trace (Perfetto, chrome://tracing), a "
      "self-contained HTML flame chart report, or a JSON profile");
  sub->add_option("INPUT", options->input, "JSON profile or JSONL event log ('-' reads stdin)")
      ->required();
  sub->add_option("--to", options->to, "output format")
      ->required()
      ->check(CLI::IsMember({"chrome", "html", "json"}));
  sub->add_option("-o,--output", options->output,
                  "output file, replaced atomically (default '-': stdout)");
  sub->add_option("--title", options->title,
                  "heading of the HTML report (default: 'Pass timing report: INPUT')");
  sub->add_option("--top", options->top, "rows of the HTML report's top-N lists")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));

  return [options]() -> int {
    try {
      const Profile profile = load_profile(options->input);
      std::string text;
      if (options->to == "chrome") {
        text = render_chrome_trace(profile);
      } else if (options->to == "html") {
        HtmlOptions html;
        html.top_n = options->top;
        if (!options->title.empty()) {
          html.title = options->title;
        } else if (options->input != "-") {
          html.title += ": " + std::filesystem::path(options->input).filename().string();
        }
        text = render_html_report(profile, html);
      } else {
        write_profile_file(profile, options->output);
        return kExitOk;
      }
      write_output(options->output, text);
    } catch (const std::exception& e) {
      return input_failure(e.what());
    }
    return kExitOk;
  };
}

}  // namespace passtiming::cli
