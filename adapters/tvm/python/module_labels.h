#pragma once
/// \file
/// What the TVM source reads from Python objects: the kernel label of a
/// TVM-like module, and the UTF-8 text of a str. Used by its Python-protocol
/// instrument (timing_callbacks.h) and by the package's bindings.

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>

namespace passtiming::python {

namespace py = pybind11;

/// The seed's kernel label of a TVM-like module: "" for None or no
/// functions, else the functions' `attrs["global_symbol"]` (or their key's
/// `name_hint`) through `passtiming::kernel_label`. Never raises: any error
/// in the user's objects gives "", as the seed does.
std::string kernel_label_of(py::handle mod) noexcept;

/// A view of the UTF-8 text of the str `text`. Text that cannot be encoded
/// (lone surrogates) is encoded with backslash escapes into `storage`, which
/// must outlive the view. Non-str objects are converted with str() first.
/// Raises (error_already_set) only when str() itself fails.
std::string_view utf8_of(py::handle text, py::object& storage);

}  // namespace passtiming::python
