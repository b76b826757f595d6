#include "timing_callbacks.h"

#include <new>
#include <string>
#include <string_view>

namespace passtiming::python {
namespace {

struct InstrumentObject {
  PyObject_HEAD std::shared_ptr<TimingCallbacks> callbacks;  // constructed in place by make_…
};

PyTypeObject* instrument_type = nullptr;

TimingCallbacks& callbacks_of(PyObject* self) {
  return *reinterpret_cast<InstrumentObject*>(self)->callbacks;
}

/// Turns a C++ exception into the pending Python error of a method that
/// returns null.
PyObject* raise_current() noexcept {
  try {
    throw;
  } catch (py::error_already_set& error) {
    error.restore();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception in passtiming");
  }
  return nullptr;
}

/// `info.name` as UTF-8; `storage` keeps the text alive.
std::string_view pass_name(PyObject* info, py::object& storage) {
  static PyObject* const name_attr = PyUnicode_InternFromString("name");
  PyObject* name = PyObject_GetAttr(info, name_attr);
  if (!name) throw py::error_already_set();
  storage = py::reinterpret_steal<py::object>(name);
  py::object converted;
  std::string_view text = utf8_of(storage, converted);
  if (converted) storage = std::move(converted);
  return text;
}

/// Unpacks `(mod, info)` given positionally or by keyword.
bool mod_and_info(const char* method, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                  PyObject*& mod, PyObject*& info) {
  nargs = PyVectorcall_NARGS(nargs);
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  mod = nargs > 0 ? args[0] : nullptr;
  info = nargs > 1 ? args[1] : nullptr;
  bool ok = nargs <= 2;
  for (Py_ssize_t k = 0; ok && k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    PyObject* value = args[nargs + k];
    if (PyUnicode_CompareWithASCIIString(key, "mod") == 0 && !mod) {
      mod = value;
    } else if (PyUnicode_CompareWithASCIIString(key, "info") == 0 && !info) {
      info = value;
    } else {
      ok = false;
    }
  }
  if (ok && mod && info) return true;
  PyErr_Format(PyExc_TypeError, "%s() takes exactly the arguments (mod, info)", method);
  return false;
}

PyObject* run_before_pass(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                          PyObject* kwnames) {
  PyObject* mod;
  PyObject* info;
  if (!mod_and_info("run_before_pass", args, nargs, kwnames, mod, info)) return nullptr;
  try {
    TimingCallbacks& state = callbacks_of(self);
    py::object storage;
    const std::string_view name = pass_name(info, storage);
    const std::string kernel = kernel_label_of(mod);
    // The sink reads the clock last, so the work above is not the pass's time.
    state.events->run_before_pass(name, kernel);
  } catch (...) {
    return raise_current();
  }
  Py_RETURN_NONE;
}

PyObject* run_after_pass(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames) {
  TimingCallbacks& state = callbacks_of(self);
  PyObject* mod;
  PyObject* info;
  if (!mod_and_info("run_after_pass", args, nargs, kwnames, mod, info)) return nullptr;
  try {
    py::object storage;
    // Only `info.name` is read before the sink reads the clock.
    state.events->run_after_pass(pass_name(info, storage));
  } catch (...) {
    return raise_current();
  }
  Py_RETURN_NONE;
}

PyObject* enter_pass_ctx(PyObject* self, PyObject*) {
  try {
    callbacks_of(self).events->enter_pass_ctx();
  } catch (...) {
    return raise_current();
  }
  Py_RETURN_NONE;
}

PyObject* exit_pass_ctx(PyObject* self, PyObject*) {
  try {
    callbacks_of(self).events->exit_pass_ctx();
  } catch (...) {
    return raise_current();
  }
  Py_RETURN_NONE;
}

PyObject* instrument_name(PyObject*, void*) {
  return PyUnicode_FromString("TileLangPassTimingInstrument");
}

void dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  reinterpret_cast<InstrumentObject*>(self)->callbacks.~shared_ptr();
  type->tp_free(self);
  Py_DECREF(type);  // heap types are owned by their instances
}

// CPython's method tables hold functions of several signatures in one field.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-function-type"
#pragma GCC diagnostic ignored "-Wold-style-cast"
PyMethodDef methods[] = {
    {"enter_pass_ctx", enter_pass_ctx, METH_NOARGS,
     "Starts a PassContext: clears the records of the previous one."},
    {"exit_pass_ctx", exit_pass_ctx, METH_NOARGS,
     "Ends a PassContext; passes still running are discarded with a warning."},
    {"run_before_pass", (PyCFunction)(void (*)())run_before_pass, METH_FASTCALL | METH_KEYWORDS,
     "run_before_pass(mod, info): info.name is starting on mod."},
    {"run_after_pass", (PyCFunction)(void (*)())run_after_pass, METH_FASTCALL | METH_KEYWORDS,
     "run_after_pass(mod, info): info.name has returned."},
    {nullptr, nullptr, 0, nullptr}};
#pragma GCC diagnostic pop

PyGetSetDef getters[] = {
    {"name", instrument_name, nullptr, "The instrument's name, as TVM shows it.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(dealloc)},
    {Py_tp_methods, methods},
    {Py_tp_getset, getters},
    {Py_tp_doc,
     const_cast<char*>("The pass instrument of a TileLangPassTimingInstrument, with TVM's Python\n"
                       "instrument protocol. It holds the timing state, never the wrapper.")},
    {0, nullptr}};

PyType_Spec spec = {"passtiming.RecorderInstrument", sizeof(InstrumentObject), 0,
                    Py_TPFLAGS_DEFAULT, slots};

}  // namespace

void bind_timing_callbacks(py::module_& m) {
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) throw py::error_already_set();
  // Only make_timing_pass_instrument creates instances: one made from Python
  // would have no state.
  reinterpret_cast<PyTypeObject*>(type)->tp_new = nullptr;
  // This pointer keeps its own reference: the module attribute may be deleted.
  instrument_type = reinterpret_cast<PyTypeObject*>(type);
  m.attr("RecorderInstrument") = py::reinterpret_steal<py::object>(type);
  Py_INCREF(type);
}

py::object make_timing_pass_instrument(std::shared_ptr<TimingCallbacks> callbacks) {
  PyObject* self = instrument_type->tp_alloc(instrument_type, 0);
  if (!self) throw py::error_already_set();
  new (&reinterpret_cast<InstrumentObject*>(self)->callbacks)
      std::shared_ptr<TimingCallbacks>(std::move(callbacks));
  return py::reinterpret_steal<py::object>(self);
}

}  // namespace passtiming::python
