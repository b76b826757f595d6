#include "otlp_lines.h"

#include <fmt/format.h>

#include <stdexcept>

namespace passtiming::detail {
namespace {

/// What closes a line: the spans, the scope's spans, the resource's spans,
/// the document, and the newline (counted in the limit: the line a reader
/// takes is the bytes up to and including it).
constexpr std::string_view kTail = "]}]}]}\n";

}  // namespace

OtlpLines::OtlpLines(std::string head, std::size_t max_line_bytes, const TextSink& sink)
    : head_(std::move(head)), max_line_bytes_(max_line_bytes), sink_(sink) {
  if (head_.size() + kTail.size() > max_line_bytes_) {
    throw std::length_error(fmt::format(
        "OTLP: the resource and scope alone take {} bytes a line, over the limit of {} bytes",
        head_.size() + kTail.size(), max_line_bytes_));
  }
  out_.reserve(kTextPieceBytes + 4096);
  out_ += head_;
  line_bytes_ = head_.size();
}

std::string& OtlpLines::begin_span() {
  mark_ = out_.size();
  if (spans_on_line_ > 0) out_ += ',';
  return out_;
}

bool OtlpLines::place_span() {
  const std::size_t added = out_.size() - mark_;  // the comma included
  if (line_bytes_ + added + kTail.size() <= max_line_bytes_) {
    line_bytes_ += added;
    ++spans_on_line_;
    last_span_bytes_ = added;
    flush_if_full();
    return true;
  }
  const std::size_t comma = spans_on_line_ > 0 ? 1 : 0;
  const std::size_t span_bytes = added - comma;
  last_span_bytes_ = span_bytes;
  if (spans_on_line_ == 0 || head_.size() + span_bytes + kTail.size() > max_line_bytes_) {
    out_.resize(mark_);
    return false;
  }
  // The line is full: close it and begin the next with this span. The span
  // is the only text of the new line not known in advance, so it alone is
  // copied aside.
  moved_.assign(out_, mark_ + comma, span_bytes);
  out_.resize(mark_);
  out_ += kTail;
  out_ += head_;
  out_ += moved_;
  line_bytes_ = head_.size() + span_bytes;
  spans_on_line_ = 1;
  ++lines_;
  flush_if_full();
  return true;
}

void OtlpLines::throw_too_large(std::string_view what) const {
  throw std::length_error(
      fmt::format("OTLP: {} takes {} bytes a line with the resource and scope, over the limit of "
                  "{} bytes",
                  what, head_.size() + last_span_bytes_ + kTail.size(), max_line_bytes_));
}

void OtlpLines::flush_if_full() {
  if (out_.size() < kTextPieceBytes) return;
  sink_(out_);
  out_.clear();
}

void OtlpLines::finish() {
  out_ += kTail;
  sink_(out_);
  out_.clear();
}

}  // namespace passtiming::detail
