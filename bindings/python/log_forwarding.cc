#include <string>
#include <string_view>
#include <thread>

#include "bindings.h"
#include "passtiming/engine/logging.h"

namespace passtiming::python {
namespace {

/// The core's loggers whose messages belong in Python's `logging`.
constexpr std::string_view kForwardedLoggers[] = {kTimingLoggerName, "passtiming"};

bool interpreter_running() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

py::object decode(std::string_view text) {
  // The core's text is UTF-8; anything else stays readable as \xNN.
  PyObject* str =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
  if (!str) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(str);
}

/// The sink: called from any thread, with or without the GIL.
void forward_to_python(LogLevel level, std::string_view logger, std::string_view message) {
  if (!interpreter_running()) {
    write_default_log_line(level, logger, message);
    return;
  }
  py::gil_scoped_acquire gil;
  try {
    // logging.getLogger caches its loggers; the lookup is a dict access.
    py::object python_logger = py::module_::import("logging").attr("getLogger")(decode(logger));
    // The text is passed as the message with no arguments, so a '%' in a
    // pass name is never taken for a format directive.
    python_logger.attr("log")(static_cast<int>(level), decode(message));
  } catch (py::error_already_set& error) {
    // A broken handler must not lose the message or disturb the compile.
    error.discard_as_unraisable("passtiming log forwarding");
    write_default_log_line(level, logger, message);
  }
}

void restore_default_sinks() {
  for (std::string_view name : kForwardedLoggers) get_logger(name).set_sink(nullptr);
}

}  // namespace

void install_log_forwarding(py::module_& m) {
  for (std::string_view name : kForwardedLoggers) {
    Logger& logger = get_logger(name);
    logger.set_sink(forward_to_python);
    // Python's logging decides what is shown, so let every level through.
    logger.set_level(LogLevel::debug);
  }
  // After the interpreter is gone, messages (from a C++ destructor running at
  // exit) go to stderr instead of into a dead interpreter.
  py::module_::import("atexit").attr("register")(py::cpp_function(&restore_default_sinks));
  m.def(
      "_log_from_native_thread",
      [](const std::string& message) {
        py::gil_scoped_release release;
        std::thread([&message] { get_logger(kTimingLoggerName).warning(message); }).join();
      },
      py::arg("message"),
      "Testing aid: logs `message` as a warning from a new C++ thread that does not hold\n"
      "the GIL, as a compiler's worker thread would.");
  m.attr("logger") =
      py::module_::import("logging").attr("getLogger")(std::string(kTimingLoggerName));
}

}  // namespace passtiming::python
