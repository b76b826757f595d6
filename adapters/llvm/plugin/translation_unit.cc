#include "translation_unit.h"

#include <fstream>
#include <iterator>

namespace passtiming::llvm_plugin {

std::string output_file(std::span<const std::string> arguments) {
  std::string output;
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    if (arguments[i] == "-o" && i + 1 < arguments.size()) output = arguments[++i];
  }
  return output == "-" ? std::string() : output;
}

std::string translation_unit_context(std::string_view module_identifier,
                                     std::span<const std::string> arguments) {
  const std::string output = output_file(arguments);
  std::string context(module_identifier);
  if (!output.empty()) {
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
