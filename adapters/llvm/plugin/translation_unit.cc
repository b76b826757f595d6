#include "translation_unit.h"

#include <fstream>
#include <iterator>

namespace passtiming::llvm_plugin {

std::string translation_unit_context(std::string_view module_identifier,
                                     std::span<const std::string> arguments) {
  std::string_view output;
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    // Only the separate form: the joined `-oFILE` cannot be told from
    // options such as cc1's `-object-file-name=`.
    if (argument == "-o" && i + 1 < arguments.size()) output = arguments[++i];
  }
  std::string context(module_identifier);
  if (!output.empty() && output != "-") {
    context += context.empty() ? "" : " ";
    context += "-> ";
    context += output;
  }
  return context;
}

std::vector<std::string> process_arguments() {
  std::vector<std::string> arguments;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  if (!in) return arguments;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    arguments.emplace_back(text, start, end - start);
    start = end + 1;
  }
  return arguments;
}

}  // namespace passtiming::llvm_plugin
