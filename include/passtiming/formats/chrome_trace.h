#pragma once
/// \file
/// A Profile as a Chrome trace (the Trace Event Format's JSON object form),
/// which Perfetto (ui.perfetto.dev) and chrome://tracing open. docs/cli.md
/// describes the mapping.

#include <string>

#include "passtiming/engine/profile.h"

namespace passtiming {

/// The trace of `profile`: one process per section (pid = section index + 1,
/// named after the section's context), one thread track per thread of the
/// section (tid = Record::thread + 1), and one complete event (`"ph":"X"`) per
/// record in the order the passes started. `ts` and `dur` are microseconds
/// with nanosecond decimals, measured from the earliest start in the profile,
/// so the sections of one compile line up on one time axis. `args` hold the
/// kernel, depth, self time, sequence, parent sequence and context.
///
///     std::string json = passtiming::render_chrome_trace(session.profile());
///     write_file_atomically("compile.trace.json", json);
std::string render_chrome_trace(const Profile& profile);

}  // namespace passtiming
