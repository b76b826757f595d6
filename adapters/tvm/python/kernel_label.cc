#include "passtiming/engine/kernel_label.h"

#include <vector>

#include "module_labels.h"

namespace passtiming::python {
namespace {

/// Attribute and key names, interned once: building them per callback would
/// create a Python object on every pass.
struct InternedNames {
  PyObject* functions = PyUnicode_InternFromString("functions");
  PyObject* items = PyUnicode_InternFromString("items");
  PyObject* attrs = PyUnicode_InternFromString("attrs");
  PyObject* get = PyUnicode_InternFromString("get");
  PyObject* global_symbol = PyUnicode_InternFromString("global_symbol");
  PyObject* name_hint = PyUnicode_InternFromString("name_hint");
};

const InternedNames& interned() {
  // Created under the GIL on first use and kept for the interpreter's life.
  static const auto* names = new InternedNames();
  return *names;
}

py::object steal_or_throw(PyObject* result) {
  if (!result) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(result);
}

/// getattr(obj, name, None).
py::object attr_or_none(py::handle obj, PyObject* name) {
  PyObject* result = PyObject_GetAttr(obj.ptr(), name);
  if (!result && PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    return py::none();
  }
  return steal_or_throw(result);
}

/// attrs["global_symbol"], or None when there is no such key. Mappings with
/// a get() method (dict, TVM's DictAttrs) are asked through it, as the seed
/// does; other objects are subscripted.
py::object global_symbol_of(py::handle attrs) {
  const InternedNames& n = interned();
  if (PyDict_Check(attrs.ptr())) {
    PyObject* value = PyDict_GetItemWithError(attrs.ptr(), n.global_symbol);
    if (!value && PyErr_Occurred()) throw py::error_already_set();
    return value ? py::reinterpret_borrow<py::object>(value) : py::none();
  }
  py::object getter = attr_or_none(attrs, n.get);
  if (!getter.is_none()) {
    return steal_or_throw(PyObject_CallOneArg(getter.ptr(), n.global_symbol));
  }
  PyObject* value = PyObject_GetItem(attrs.ptr(), n.global_symbol);
  if (!value && PyErr_ExceptionMatches(PyExc_KeyError)) {
    PyErr_Clear();
    return py::none();
  }
  return steal_or_throw(value);
}

/// The symbol of one entry of `mod.functions`, or None to leave it out.
py::object symbol_of(py::handle key, py::handle function) {
  py::object attrs = attr_or_none(function, interned().attrs);
  py::object symbol = attrs.is_none() ? py::none() : global_symbol_of(attrs);
  if (symbol.is_none()) symbol = attr_or_none(key, interned().name_hint);
  return symbol;
}

/// Collects the symbols, keeping every object whose text a view points into.
class SymbolCollector {
 public:
  void add(py::handle key, py::handle function) {
    py::object symbol = symbol_of(key, function);
    if (symbol.is_none()) return;
    py::object storage;
    symbols_.push_back(utf8_of(symbol, storage));
    keep_.push_back(std::move(symbol));
    if (storage) keep_.push_back(std::move(storage));
  }
  std::string label() const {
    // One function is the common case; kernel_label gives the same answer
    // but pays for a set of distinct names.
    if (symbols_.size() == 1) return std::string(symbols_.front());
    return passtiming::kernel_label(symbols_);
  }

 private:
  std::vector<py::object> keep_;
  std::vector<std::string_view> symbols_;
};

std::string label_or_throw(py::handle mod) {
  py::object functions = attr_or_none(mod, interned().functions);
  if (functions.is_none()) return {};
  const int truth = PyObject_IsTrue(functions.ptr());
  if (truth < 0) throw py::error_already_set();
  if (truth == 0) return {};

  SymbolCollector collector;
  if (PyDict_Check(functions.ptr())) {
    // A dict is walked in place, without items() tuples.
    Py_ssize_t pos = 0;
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    while (PyDict_Next(functions.ptr(), &pos, &key, &value)) {
      // Hold both: symbol_of runs user code that could mutate the dict.
      py::object k = py::reinterpret_borrow<py::object>(key);
      py::object v = py::reinterpret_borrow<py::object>(value);
      collector.add(k, v);
    }
    return collector.label();
  }
  py::object items = steal_or_throw(PyObject_CallMethodNoArgs(functions.ptr(), interned().items));
  py::object iterator = steal_or_throw(PyObject_GetIter(items.ptr()));
  while (PyObject* raw = PyIter_Next(iterator.ptr())) {
    py::object item = py::reinterpret_steal<py::object>(raw);
    if (!PyTuple_Check(item.ptr()) || PyTuple_GET_SIZE(item.ptr()) != 2) {
      throw py::type_error("functions.items() must yield (key, function) pairs");
    }
    collector.add(PyTuple_GET_ITEM(item.ptr(), 0), PyTuple_GET_ITEM(item.ptr(), 1));
  }
  if (PyErr_Occurred()) throw py::error_already_set();
  return collector.label();
}

}  // namespace

std::string_view utf8_of(py::handle text, py::object& storage) {
  PyObject* str = text.ptr();
  if (!PyUnicode_Check(str)) {
    storage = steal_or_throw(PyObject_Str(str));
    str = storage.ptr();
  }
  Py_ssize_t size = 0;
  if (const char* data = PyUnicode_AsUTF8AndSize(str, &size)) {
    return {data, static_cast<std::size_t>(size)};
  }
  // Lone surrogates have no UTF-8 form: keep them readable as \udcxx.
  PyErr_Clear();
  storage = steal_or_throw(PyUnicode_AsEncodedString(str, "utf-8", "backslashreplace"));
  return {PyBytes_AS_STRING(storage.ptr()),
          static_cast<std::size_t>(PyBytes_GET_SIZE(storage.ptr()))};
}

std::string kernel_label_of(py::handle mod) noexcept {
  if (mod.is_none()) return {};
  try {
    return label_or_throw(mod);
  } catch (py::error_already_set&) {
    // The seed swallows every error here: a label is never worth a failed compile.
  } catch (...) {
  }
  PyErr_Clear();
  return {};
}

}  // namespace passtiming::python
