#pragma once
/// \file
/// Which translation unit a compiler process's pipeline compiles, for the
/// context label of its section when the user gave none: the module's
/// identifier (clang names the module after its source file, as the command
/// line gives it) and, when the command line names one, the output file.

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace passtiming::llvm_plugin {

/// "SOURCE -> OUTPUT", or "SOURCE" when `arguments` name no output (no
/// `-o`, or `-o -` for standard output). The output is the last `-o FILE`:
/// with `-c` or in a cc1 process, the object file of that source; in a
/// compile-and-link command, the program.
std::string translation_unit_context(std::string_view module_identifier,
                                     std::span<const std::string> arguments);

/// The output file of the command line: the last `-o FILE` (only the
/// separate form: the joined `-oFILE` cannot be told from options such as
/// cc1's `-object-file-name=`); "" when there is none or it is `-`.
std::string output_file(std::span<const std::string> arguments);

/// This process's command line (/proc/self/cmdline); empty where it cannot
/// be read.
std::vector<std::string> process_arguments();

}  // namespace passtiming::llvm_plugin
