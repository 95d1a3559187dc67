// The extension module seam._C: every binding group, and seam::Error turned into the
// Python exception of its status code (seam/_errors.py, docs/python.md "Errors").
#include <pybind11/pybind11.h>

#include "python/src/py_tensor.h"

namespace seam::python {

[[noreturn]] void ThrowInvalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, message);
}

void BindErrors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      // The class table lives in Python (seam._errors), so `except seam.SeamError` and
      // `except ValueError` both catch an invalid argument.
      py::object make = py::module_::import("seam._errors").attr("_make");
      py::object exc = make(static_cast<int>(e.code()), error_code_name(e.code()), e.what());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
    }
  });
  m.def("error_code_name", [](int code) {
    if (code < 1 || code > 16)
      ThrowInvalid("error_code_name: no status code " + std::to_string(code));
    return std::string(error_code_name(static_cast<ErrorCode>(code)));
  });
  // For the tests of the mapping: raises seam::Error with `code` and `message`.
  m.def("_raise_error", [](int code, const std::string& message) {
    throw Error(static_cast<ErrorCode>(code), message);
  });
}

}  // namespace seam::python

PYBIND11_MODULE(_C, m) {
  using namespace seam::python;
  m.doc() = "seam's compiled core (use the `seam` package)";
  BindErrors(m);
  BindTensor(m);
  BindAutograd(m);
  BindNn(m);
  BindOptim(m);
  BindRuntime(m);
  BindDistributed(m);
  InstallFastCalls(m);
}
