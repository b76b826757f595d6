#pragma once
/// \file
/// Replaying a JSON Lines event log (docs/event-log-format.md) through the
/// timing state machine.

#include <istream>
#include <string>
#include <string_view>

#include "passtiming/engine/profile.h"

namespace passtiming {

/// Replays the events read from `in` and returns the compile session they
/// describe: one section per context, in file order. `source` names the input
/// in errors. A log that ends inside a context is closed at its last event:
/// completed passes are all kept, and the passes still running are named in
/// the "Discarding N incomplete pass timing frame(s)" warning.
///
/// Throws InputError (`SOURCE:LINE: message`) on malformed input.
///
///     std::ifstream in("events.jsonl");
///     Profile p = passtiming::replay_event_log(in, "events.jsonl");
Profile replay_event_log(std::istream& in, std::string_view source);

}  // namespace passtiming
