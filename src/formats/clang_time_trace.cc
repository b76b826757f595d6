#include "passtiming/formats/clang_time_trace.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "passtiming/engine/errors.h"

namespace passtiming {
namespace {

/// One complete event of the compile's thread.
struct Event {
  std::string_view name;
  std::string_view detail;
  Nanoseconds start_ns = 0;
  Nanoseconds duration_ns = 0;
  bool failed = false;  ///< a scope the compile was in when it was cut short
};

/// The scopes of clang's compile that are phases of their own structure:
/// ExecuteCompiler holds Frontend and Backend; Backend holds Optimizer, then
/// CodeGenPasses.
bool is_structural(std::string_view name) {
  return name == "ExecuteCompiler" || name == "Frontend" || name == "Backend" ||
         name == "Optimizer" || name == "CodeGenPasses";
}

bool is_legacy_pass_manager(std::string_view name) {
  return name == "RunPass" || name == "RunLoopPass" || name == "OptFunction" || name == "OptModule";
}

/// A compile cut short at `cut_ns` (a crash, a fatal error) leaves only its
/// completed events: the scopes it was in are missing. Keeps what is sure
/// (the structural scopes that completed, what the front ends hold, code
/// generation's passes) and adds the scopes it was in, failed, ending at
/// `cut_ns`: the compile; the back end from the last front end's end, when
/// one completed; in it the optimizer, or, once the optimizer completed,
/// code generation.
void complete_cut_short(std::vector<Event>& list, Nanoseconds cut_ns) {
  std::vector<std::pair<Nanoseconds, Nanoseconds>> front_ends;
  const Event* optimizer = nullptr;
  Nanoseconds first = cut_ns;
  for (const Event& e : list) {
    first = std::min(first, e.start_ns);
    if (e.name == "Frontend") front_ends.emplace_back(e.start_ns, e.start_ns + e.duration_ns);
    if (e.name == "Optimizer") optimizer = &e;
  }
  const Nanoseconds optimizer_end = optimizer ? optimizer->start_ns + optimizer->duration_ns : 0;
  std::erase_if(list, [&](const Event& e) {
    if (is_structural(e.name) || is_legacy_pass_manager(e.name)) return false;
    for (const auto& [from, to] : front_ends) {
      if (from <= e.start_ns && e.start_ns + e.duration_ns <= to) return false;
    }
    return true;
  });
  auto open = [&](std::string_view name, Nanoseconds from) {
    list.push_back({name, {}, from, std::max<Nanoseconds>(0, cut_ns - from), true});
  };
  open("ExecuteCompiler", first);
  if (front_ends.empty()) {
    open("Frontend", first);
    return;
  }
  Nanoseconds back_end = first;
  for (const auto& [from, to] : front_ends) back_end = std::max(back_end, to);
  open("Backend", back_end);
  if (optimizer != nullptr) {
    open("CodeGenPasses", optimizer_end);
  } else {
    open("Optimizer", back_end);
  }
}

/// What an event becomes.
enum class Role {
  phase,        ///< a phase of the compile
  pass,         ///< a legacy pass-manager pass (RunPass): a record
  function,     ///< the function code generation works on (OptFunction): a kernel label
  transparent,  ///< a scope that only groups others (OptModule)
  skipped,      ///< left out, with everything inside it
};

/// Semantic analysis's constant evaluations: thousands of events of a few
/// microseconds each, inside the declaration that needed them. Left in
/// their parent's time, not made phases of their own.
bool is_constant_evaluation(std::string_view name) {
  return name.starts_with("Evaluate") || name == "isIntegerConstantExpr" ||
         name == "isPotentialConstantExpr";
}

Role role_of(std::string_view name, bool in_optimizer, bool in_code_generation,
             bool with_optimizer_passes) {
  if (name == "RunPass" || name == "RunLoopPass") return Role::pass;
  if (is_constant_evaluation(name)) return Role::skipped;
  if (name == "OptFunction") return Role::function;
  if (name == "OptModule") return Role::transparent;
  // Code generation is LLVM's legacy pass manager: what it times is a pass.
  if (in_code_generation) return Role::pass;
  // Inside the optimizer every event is a pass or an analysis of the new
  // pass manager, which the plugin records with its own metrics.
  if (in_optimizer) return with_optimizer_passes ? Role::pass : Role::skipped;
  return Role::phase;
}

struct Builder {
  ImportedTimeTrace out;
  bool with_optimizer_passes = false;

  /// The open scopes, outermost first.
  struct Open {
    const Event* event;
    Role role;
    PhaseIndex phase;         ///< its phase (Role::phase), else its nearest ancestor's
    std::uint32_t sequence;   ///< its record's sequence (Role::pass)
    std::uint32_t depth;      ///< nesting depth of its record
    Nanoseconds children_ns;  ///< its child records' time, for self time
    bool in_optimizer;
    bool in_code_generation;
    std::string_view function;  ///< the function it works on, "" for none
  };
  std::vector<Open> stack;
  std::uint32_t next_sequence = 0;
  std::uint64_t thread = 0;

  void close_until(Nanoseconds start) {
    while (!stack.empty() &&
           stack.back().event->start_ns + stack.back().event->duration_ns <= start) {
      close_top();
    }
  }

  void close_top() {
    Open top = stack.back();
    stack.pop_back();
    if (top.role != Role::pass) return;
    Section& s = out.code_generation;
    Record r;
    r.name = s.names.intern(top.event->detail.empty() ? top.event->name : top.event->detail);
    r.kernel = s.names.intern(top.function);
    r.sequence = top.sequence;
    r.depth = static_cast<std::uint16_t>(std::min<std::uint32_t>(top.depth, 65535));
    r.start_ns = top.event->start_ns;
    r.inclusive_ns = top.event->duration_ns;
    r.self_ns = std::max<Nanoseconds>(0, r.inclusive_ns - top.children_ns);
    r.thread = 0;
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      if (it->role == Role::pass) {
        r.parent = it->sequence;
        it->children_ns += r.inclusive_ns;
        break;
      }
    }
    s.records.push_back(r);
  }

  void open(const Event& e) {
    const Open* parent = stack.empty() ? nullptr : &stack.back();
    const bool parent_in_optimizer = parent != nullptr && parent->in_optimizer;
    const bool parent_in_code_generation = parent != nullptr && parent->in_code_generation;
    Open o{&e,
           role_of(e.name, parent_in_optimizer, parent_in_code_generation, with_optimizer_passes),
           parent ? parent->phase : kNoPhase,
           0,
           0,
           0,
           parent_in_optimizer,
           parent_in_code_generation,
           parent ? parent->function : std::string_view()};
    if (parent != nullptr && parent->role == Role::skipped) o.role = Role::skipped;
    switch (o.role) {
      case Role::phase: {
        Phase p;
        p.name = std::string(phase_name_for_trace_event(e.name));
        p.detail = std::string(e.detail);
        p.parent = o.phase;
        p.thread = thread;
        p.start_ns = e.start_ns;
        p.duration_ns = e.duration_ns;
        if (e.failed) p.flags |= kPhaseFailed;
        o.phase = static_cast<PhaseIndex>(out.phases.size());
        if (e.name == "Optimizer") {
          o.in_optimizer = true;
          out.optimizer = o.phase;
        }
        if (e.name == "CodeGenPasses") {
          o.in_code_generation = true;
          if (out.code_generation.phase == kNoPhase) out.code_generation.phase = o.phase;
        }
        out.phases.push_back(std::move(p));
        break;
      }
      case Role::pass: {
        o.sequence = next_sequence++;
        std::uint32_t depth = 0;
        for (const Open& s : stack) depth += s.role == Role::pass ? 1 : 0;
        o.depth = depth;
        break;
      }
      case Role::function: o.function = e.detail; break;
      case Role::transparent:
      case Role::skipped: break;
    }
    stack.push_back(o);
  }
};

Nanoseconds micros_to_ns(double micros) {
  return static_cast<Nanoseconds>(std::llround(micros * 1000.0));
}

}  // namespace

std::string_view phase_name_for_trace_event(std::string_view event) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"ExecuteCompiler", "compile"},
      {"Frontend", "front end"},
      {"Backend", "back end"},
      {"Optimizer", "optimizer"},
      {"CodeGenPasses", "code generation"},
      {"ParseDeclarationOrFunctionDefinition", "parse declaration"},
      {"ParseFunctionDefinition", "parse function"},
      {"ParseClass", "parse class"},
      {"CodeGen Function", "IR generation"},
      {"PerformPendingInstantiations", "template instantiation"},
      {"InstantiateFunction", "instantiate function"},
      {"InstantiateClass", "instantiate class"},
      {"DebugType", "debug info"},
      {"DebugGlobalVariable", "debug info"},
      {"DebugConstGlobalVariable", "debug info"},
      {"PerModulePasses", "optimizer"},
  };
  for (const auto& [from, to] : kNames) {
    if (event == from) return to;
  }
  return event;
}

std::int64_t time_trace_pid(std::string_view head) {
  const std::size_t at = head.find("\"pid\":");
  if (at == std::string_view::npos) return -1;
  std::size_t i = at + 6;
  while (i < head.size() && head[i] == ' ') ++i;
  std::int64_t pid = -1;
  const auto [end, error] = std::from_chars(head.data() + i, head.data() + head.size(), pid);
  if (error != std::errc() || end == head.data() + i) return -1;
  return pid;
}

ImportedTimeTrace import_clang_time_trace(std::string_view text, std::string_view source,
                                          TimeTraceClock clock, std::string_view detail,
                                          bool with_optimizer_passes, Nanoseconds cut_short_at) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element doc;
  if (auto error = parser.parse(padded).get(doc)) {
    throw InputError(std::string(source), 1,
                     fmt::format("not a time trace: {}", simdjson::error_message(error)));
  }
  simdjson::dom::array events;
  if (doc["traceEvents"].get_array().get(events)) {
    throw InputError(std::string(source), 1, "not a time trace: no 'traceEvents' array");
  }
  double beginning_us = 0;
  {
    // An integer in the files clang writes; read as a number either way.
    simdjson::dom::element b;
    if (!doc["beginningOfTime"].get(b)) {
      std::int64_t i = 0;
      double d = 0;
      if (!b.get_int64().get(i)) {
        beginning_us = static_cast<double>(i);
      } else if (!b.get_double().get(d)) {
        beginning_us = d;
      }
    }
  }
  const Nanoseconds base_ns = static_cast<Nanoseconds>(beginning_us) * 1000 + clock.offset_ns;

  // The compile's thread: the one that ran ExecuteCompiler (clang's main).
  std::int64_t main_tid = -1, pid = -1;
  for (simdjson::dom::element e : events) {
    std::string_view name, ph;
    if (e["ph"].get_string().get(ph) || ph != "X") continue;
    if (e["name"].get_string().get(name)) continue;
    if (name == "ExecuteCompiler") {
      if (e["tid"].get_int64().get(main_tid)) main_tid = -1;
      if (e["pid"].get_int64().get(pid)) pid = -1;
      break;
    }
  }
  std::vector<Event> list;
  list.reserve(events.size());
  for (simdjson::dom::element e : events) {
    std::string_view ph, name;
    if (e["ph"].get_string().get(ph) || ph != "X") continue;
    if (e["name"].get_string().get(name) || name.starts_with("Total ")) continue;
    std::int64_t tid = 0;
    if (e["tid"].get_int64().get(tid) || (main_tid >= 0 && tid != main_tid)) continue;
    if (pid < 0 && e["pid"].get_int64().get(pid)) pid = -1;
    double ts = 0, dur = 0;
    if (e["ts"].get_double().get(ts) || e["dur"].get_double().get(dur)) {
      throw InputError(std::string(source), 1,
                       fmt::format("event '{}' without a numeric 'ts' and 'dur'", name));
    }
    Event ev;
    ev.name = name;
    if (simdjson::dom::element args; !e["args"].get(args)) {
      std::string_view d;
      if (!args["detail"].get_string().get(d)) ev.detail = d;
    }
    ev.start_ns = base_ns + micros_to_ns(ts);
    ev.duration_ns = std::max<Nanoseconds>(0, micros_to_ns(dur));
    list.push_back(ev);
  }
  if (cut_short_at >= 0) complete_cut_short(list, cut_short_at);
  // Outer before inner: by start, then the longer first.
  std::stable_sort(list.begin(), list.end(), [](const Event& a, const Event& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.duration_ns > b.duration_ns;
  });

  Builder builder;
  builder.with_optimizer_passes = with_optimizer_passes;
  // Without ExecuteCompiler (a compile cut short), clang's main thread: the
  // process's own id.
  builder.thread = main_tid >= 0 ? static_cast<std::uint64_t>(main_tid)
                   : pid > 0     ? static_cast<std::uint64_t>(pid)
                                 : 0;
  builder.out.pid = pid;
  for (Event& e : list) {
    builder.close_until(e.start_ns);
    // An event that ends after its enclosing scope (clang rounds to
    // microseconds) is clipped to it, so that the phases stay a tree.
    if (!builder.stack.empty()) {
      const Event& outer = *builder.stack.back().event;
      e.duration_ns = std::min(e.duration_ns, outer.start_ns + outer.duration_ns - e.start_ns);
    }
    builder.open(e);
  }
  while (!builder.stack.empty()) builder.close_top();

  ImportedTimeTrace out = std::move(builder.out);
  if (!detail.empty()) {
    for (Phase& p : out.phases) {
      if (p.parent == kNoPhase && p.name == "compile") p.detail = std::string(detail);
    }
  }
  Section& s = out.code_generation;
  if (!s.records.empty()) {
    s.threads = {builder.thread};
    // A record's passes complete before it: order by end, inner first.
    std::stable_sort(s.records.begin(), s.records.end(), [](const Record& a, const Record& b) {
      const Nanoseconds ea = a.start_ns + a.inclusive_ns, eb = b.start_ns + b.inclusive_ns;
      if (ea != eb) return ea < eb;
      return a.depth > b.depth;
    });
  }
  return out;
}

}  // namespace passtiming
