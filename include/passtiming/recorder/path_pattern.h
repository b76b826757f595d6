#pragma once
/// \file
/// The placeholders of the paths a compile writes (`%p`, `%n`, `%%`), so
/// that parallel and successive compiles write separate files.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace passtiming {

/// One placeholder of a path pattern: `%LETTER` stands for `value`.
struct Placeholder {
  char letter;
  std::string value;
};

/// `pattern` with every `%LETTER` of `placeholders` replaced by its value
/// and `%%` by `%` (kept as `%%` with `keep_escaped_percent`, for a pattern
/// that is expanded again later). Any other `%` is kept as it is.
std::string expand_placeholders(std::string_view pattern,
                                std::initializer_list<Placeholder> placeholders,
                                bool keep_escaped_percent = false);

/// `pattern` with `%p` replaced by `pid`, `%n` by `compile` (the number of
/// the compile session within the process, from 0, for hosts such as
/// TileLang that compile many kernels in one process) and `%%` by `%`, so
/// that parallel and successive compiles write separate files. Any other `%`
/// is kept as it is.
///
///     expand_path_pattern("/tmp/prof-%p.json", 42);        // "/tmp/prof-42.json"
///     expand_path_pattern("/tmp/prof-%p-%n.json", 42, 3);  // "/tmp/prof-42-3.json"
std::string expand_path_pattern(std::string_view pattern, long pid, unsigned long compile = 0);

/// The number of the next compile session of this process, from 0: what a
/// source that compiles many times in one process (TileLang, the Python
/// instruments) gives `%n`. Thread-safe.
unsigned long next_compile_number() noexcept;

}  // namespace passtiming
