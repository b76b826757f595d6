#pragma once
/// \file
/// OTLP JSON spans into lines of bounded size: each line a whole
/// `TracesData` document that repeats the resource and the scope, its spans
/// as many of the next ones, in order, as fit under the limit. A collector
/// reads the file a line at a time with a cap on a line (the OpenTelemetry
/// Collector's `otlpjsonfile` receiver: 1 MiB by default), so a profile of
/// any size must come as lines under it. Span ids are global to the run, so
/// a parent on another line is the same span to the collector.

#include <cstddef>
#include <string>
#include <string_view>

#include "passtiming/formats/output_file.h"

namespace passtiming::detail {

/// Lines of at most a given number of bytes, their newline included, written
/// to a sink in pieces of about kTextPieceBytes: only the current span is
/// held back until its line is known, never a whole line.
///
///     OtlpLines lines(head, 1 << 20, sink);
///     append_span(lines.begin_span(), ...);
///     lines.end_span([&] { return std::string("span 'x'"); });
///     lines.finish();
class OtlpLines {
 public:
  /// `head` is each line's text before its spans, up to and including
  /// `"spans":[`; each line ends in `]}]}]}` and a newline. Throws
  /// std::length_error when the head alone fills a line.
  OtlpLines(std::string head, std::size_t max_line_bytes, const TextSink& sink);
  OtlpLines(const OtlpLines&) = delete;
  OtlpLines& operator=(const OtlpLines&) = delete;

  /// The buffer to append the next span's JSON object to, and nothing else,
  /// before end_span.
  std::string& begin_span();

  /// Places the span appended since begin_span: on the current line when
  /// the line still fits with it, else first on a new line. Throws
  /// std::length_error naming the span (`what()`, called only then) when
  /// it fits on no line: its bytes with the head and the end exceed the
  /// limit.
  template <typename Describe>
  void end_span(const Describe& what) {
    if (!place_span()) throw_too_large(what());
  }

  /// Ends the last line (a line with no spans when none were given) and
  /// hands the rest to the sink.
  void finish();

  /// Lines begun so far (finished or not): 1 after construction.
  std::size_t lines() const { return lines_; }

 private:
  /// false when the span fits on no line.
  bool place_span();
  [[noreturn]] void throw_too_large(std::string_view what) const;
  void flush_if_full();

  std::string head_;
  std::size_t max_line_bytes_;
  const TextSink& sink_;
  std::string out_;             ///< text not yet handed to the sink
  std::string moved_;           ///< a span on its way to the next line
  std::size_t mark_ = 0;        ///< where the current span (its comma first) begins in out_
  std::size_t line_bytes_ = 0;  ///< the current line's bytes so far, head included
  std::size_t spans_on_line_ = 0;
  std::size_t lines_ = 1;
  std::size_t last_span_bytes_ = 0;  ///< for the error: the span placed last
};

}  // namespace passtiming::detail
