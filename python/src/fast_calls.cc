// Direct entry points for the calls a training step makes every time (Linear's forward, relu,
// cross entropy, backward, sync, item): CPython calls them as METH_FASTCALL functions instead
// of going through pybind11's dispatcher, which looks up each argument's type, tries the
// overloads and wraps the result by name (about 2,000 instructions a call, as much as
// recording the op). Each takes the plain positional form only; any other call (keywords, a
// different count, an argument that is not a seam tensor) goes to the bound function it
// replaced, so signatures, conversions and error messages stay pybind11's. A seam error
// raised inside goes through the module's exception translators, as from a bound function.
#include <pybind11/pybind11.h>

#include <deque>
#include <string>
#include <vector>

#include "python/src/py_tensor.h"
#include "seam/nn.h"

namespace seam::python {
namespace {

const py::detail::type_info* g_tensor_info = nullptr;
PyTypeObject* g_tensor_type = nullptr;

// A method's plain function: pybind11 keeps methods as instancemethod objects.
PyObject* PlainFunction(PyObject* attribute) {
  if (PyInstanceMethod_Check(attribute)) return PyInstanceMethod_GET_FUNCTION(attribute);
  return attribute;
}

// --- the entry points ----------------------------------------------------------------------

// Each replaced callable, set once at install time (kept alive by these references).
PyObject* g_linear = nullptr;
PyObject* g_cross_entropy = nullptr;
PyObject* g_backward = nullptr;
PyObject* g_sync = nullptr;
PyObject* g_relu = nullptr;
PyObject* g_item = nullptr;

// nn.linear(input, weight, bias): input @ weight.T + bias, bias may be None.
PyObject* Linear(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  if (kwnames == nullptr && (n == 2 || n == 3)) {
    const PyTensor* x = FastTensor(args[0]);
    const PyTensor* w = FastTensor(args[1]);
    const bool no_bias = n == 2 || args[2] == Py_None;
    const PyTensor* b = no_bias ? nullptr : FastTensor(args[2]);
    if (x != nullptr && w != nullptr && (no_bias || b != nullptr)) {
      return FastCall([&] {
        Tensor out = nn::linear(x->value, w->value);
        if (b == nullptr) return Result(std::move(out), {x, w});
        return Result(out + b->value, {x, w, b});
      });
    }
  }
  return CallReplaced(g_linear, nullptr, args, static_cast<size_t>(PyVectorcall_NARGS(nargsf)),
                      kwnames);
}

PyObject* CrossEntropy(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  if (kwnames == nullptr && PyVectorcall_NARGS(nargsf) == 2) {
    const PyTensor* logits = FastTensor(args[0]);
    const PyTensor* labels = FastTensor(args[1]);
    if (logits != nullptr && labels != nullptr) {
      return FastCall(
          [&] { return Result(nn::cross_entropy(logits->value, labels->value), {logits}); });
    }
  }
  return CallReplaced(g_cross_entropy, nullptr, args,
                      static_cast<size_t>(PyVectorcall_NARGS(nargsf)), kwnames);
}

// backward(loss) and backward(loss, None): the implicit gradient of a one-element loss.
PyObject* Backward(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  if (kwnames == nullptr && (n == 1 || (n == 2 && args[1] == Py_None))) {
    if (const PyTensor* loss = FastTensor(args[0]); loss != nullptr) {
      return FastCall([&] {
        BackwardInto(*loss, nullptr);
        return PyTensorPtr();
      });
    }
  }
  return CallReplaced(g_backward, nullptr, args, static_cast<size_t>(PyVectorcall_NARGS(nargsf)),
                      kwnames);
}

PyObject* Sync(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  if (kwnames == nullptr && PyVectorcall_NARGS(nargsf) == 0) {
    return FastCall([] {
      py::gil_scoped_release release;
      sync();
      return PyTensorPtr();
    });
  }
  return CallReplaced(g_sync, nullptr, args, static_cast<size_t>(PyVectorcall_NARGS(nargsf)),
                      kwnames);
}

PyObject* Relu(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  const PyTensor* t = FastTensor(self);
  if (kwnames == nullptr && PyVectorcall_NARGS(nargsf) == 0 && t != nullptr) {
    return FastCall([&] { return Result(t->value.relu(), {t}); });
  }
  return CallReplaced(g_relu, self, args, static_cast<size_t>(PyVectorcall_NARGS(nargsf)), kwnames);
}

PyObject* Item(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  const PyTensor* t = FastTensor(self);
  if (kwnames == nullptr && PyVectorcall_NARGS(nargsf) == 0 && t != nullptr) {
    try {
      return ItemObject(t->value).release().ptr();
    } catch (...) {
      return RaiseTranslated();
    }
  }
  return CallReplaced(g_item, self, args, static_cast<size_t>(PyVectorcall_NARGS(nargsf)), kwnames);
}

// Tensor.backward(): the implicit gradient of a one-element loss, the call of every step.
// Every other form (gradient=, retain_graph=, ...) goes to the package's Python method,
// which seam/_tensor.py hands over with _install_backward.
PyObject* g_backward_method = nullptr;

PyObject* TensorBackward(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                         PyObject* kwnames) {
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  if (kwnames == nullptr && n == 0) {
    if (const PyTensor* loss = FastTensor(self); loss != nullptr) {
      return FastCall([&] {
        BackwardInto(*loss, nullptr);
        return PyTensorPtr();
      });
    }
  }
  return CallReplaced(g_backward_method, self, args, static_cast<size_t>(n), kwnames);
}

PyMethodDef g_backward_def = {
    "backward", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&TensorBackward)),
    METH_FASTCALL | METH_KEYWORDS, nullptr};

// nn.Module.__call__(self, *args, **kwargs): self.forward(*args, **kwargs) without a Python
// frame in between (every layer of every step goes through it). The arguments are passed on
// as they came, self first, so PyObject_VectorcallMethod finds forward on self.
PyObject* CallForward(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  if (PyVectorcall_NARGS(nargsf) < 1) {
    PyErr_SetString(PyExc_TypeError, "Module.__call__() needs the module as its first argument");
    return nullptr;
  }
  static PyObject* const forward = PyUnicode_InternFromString("forward");
  return PyObject_VectorcallMethod(forward, args, nargsf, kwnames);
}

PyMethodDef g_call_forward_def = {
    "__call__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&CallForward)),
    METH_FASTCALL | METH_KEYWORDS,
    "__call__(self, *args, **kwargs)\n--\n\nself.forward(*args, **kwargs)"};

// The method tables live as long as the module (CPython keeps pointers to them).
PyMethodDef g_module_defs[] = {
    {"linear", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&Linear)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"cross_entropy", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&CrossEntropy)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"backward", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&Backward)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"sync", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&Sync)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
};
PyMethodDef g_method_defs[] = {
    {"relu", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&Relu)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"item", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&Item)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
};

// The replaced binding's docstring as `def`'s (copied: the table outlives the string).
void KeepDoc(PyMethodDef& def, const py::object& doc) {
  if (doc.is_none()) return;
  static std::deque<std::string> kept;
  kept.push_back(doc.cast<std::string>());
  def.ml_doc = kept.back().c_str();
}

// Puts `def` in place of module.<name>, keeping the bound function in *replaced and its
// docstring.
void ReplaceFunction(py::module_& module, PyMethodDef& def, PyObject** replaced) {
  py::object old = module.attr(def.ml_name);
  py::object doc = old.attr("__doc__");
  KeepDoc(def, doc);
  *replaced = old.release().ptr();
  py::object fresh = py::reinterpret_steal<py::object>(
      PyCFunction_NewEx(&def, nullptr, module.attr("__name__").ptr()));
  if (!fresh) throw py::error_already_set();
  module.attr(def.ml_name) = fresh;
}

}  // namespace

void ReplaceMethod(PyTypeObject* type, PyMethodDef& def, PyObject** replaced) {
  py::handle cls(reinterpret_cast<PyObject*>(type));
  py::object old = cls.attr("__dict__")[def.ml_name];
  KeepDoc(def, old.attr("__doc__"));
  *replaced = py::reinterpret_borrow<py::object>(PlainFunction(old.ptr())).release().ptr();
  py::object fresh = py::reinterpret_steal<py::object>(PyDescr_NewMethod(type, &def));
  if (!fresh) throw py::error_already_set();
  cls.attr(def.ml_name) = fresh;
}

PyObject* CallReplaced(PyObject* replaced, PyObject* self, PyObject* const* args, size_t nargs,
                       PyObject* kwnames) {
  if (self == nullptr) return PyObject_Vectorcall(replaced, args, nargs, kwnames);
  const size_t total = nargs + (kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0);
  std::vector<PyObject*> with_self(total + 1);
  with_self[0] = self;
  for (size_t i = 0; i < total; ++i) with_self[i + 1] = args[i];
  return PyObject_Vectorcall(replaced, with_self.data(), nargs + 1, kwnames);
}

const PyTensor* FastTensor(PyObject* o) {
  if (g_tensor_type == nullptr || !PyObject_TypeCheck(o, g_tensor_type)) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  // One C++ type in the object (seam's Tensor, or a Python subclass such as Parameter).
  if (!inst->simple_layout || !inst->simple_holder_constructed) return nullptr;
  return static_cast<const PyTensor*>(inst->simple_value_holder[0]);
}

PyObject* WrapTensor(PyTensorPtr t) {
  if (t == nullptr) Py_RETURN_NONE;
  if (g_tensor_info == nullptr) return py::cast(std::move(t)).release().ptr();
  return py::detail::type_caster_generic::cast(t.get(), py::return_value_policy::take_ownership,
                                               py::handle(), g_tensor_info, nullptr, nullptr, &t)
      .ptr();
}

PyObject* RaiseTranslated() {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    auto& local = py::detail::get_local_internals().registered_exception_translators;
    if (py::detail::apply_exception_translators(local)) return nullptr;
    auto& global = py::detail::get_internals().registered_exception_translators;
    if (py::detail::apply_exception_translators(global)) return nullptr;
    PyErr_SetString(PyExc_SystemError, "seam: an exception escaped the exception translators");
    return nullptr;
  }
}

void InstallFastCalls(py::module_& m) {
  const py::detail::type_info* info = py::detail::get_type_info(typeid(PyTensor));
  auto* type = reinterpret_cast<PyTypeObject*>(m.attr("Tensor").ptr());
  if (info == nullptr || info->type != type) return;  // not the layout assumed: keep pybind11's
  g_tensor_info = info;
  g_tensor_type = type;
  py::module_ nn_functions = m.attr("nn");
  ReplaceFunction(nn_functions, g_module_defs[0], &g_linear);
  ReplaceFunction(nn_functions, g_module_defs[1], &g_cross_entropy);
  ReplaceFunction(m, g_module_defs[2], &g_backward);
  ReplaceFunction(m, g_module_defs[3], &g_sync);
  ReplaceMethod(g_tensor_type, g_method_defs[0], &g_relu);
  ReplaceMethod(g_tensor_type, g_method_defs[1], &g_item);
  InstallFastOptimizerCalls();
  InstallFastCompiledCall();
  // For seam.nn.Module's class body: an instancemethod binds self as a Python function does.
  py::object call_forward = py::reinterpret_steal<py::object>(
      PyCFunction_NewEx(&g_call_forward_def, nullptr, m.attr("__name__").ptr()));
  if (!call_forward) throw py::error_already_set();
  py::object method = py::reinterpret_steal<py::object>(PyInstanceMethod_New(call_forward.ptr()));
  if (!method) throw py::error_already_set();
  m.attr("_module_call") = method;
  // Tensor.backward = the direct entry point over `python_method` (its docstring kept); false
  // when the fast calls are not installed (the caller then sets the Python method itself).
  m.def("_install_backward", [](py::function python_method) {
    if (g_tensor_type == nullptr) return false;
    if (g_backward_method != nullptr) return true;
    KeepDoc(g_backward_def, python_method.attr("__doc__"));
    g_backward_method = python_method.release().ptr();
    py::object fresh =
        py::reinterpret_steal<py::object>(PyDescr_NewMethod(g_tensor_type, &g_backward_def));
    if (!fresh) throw py::error_already_set();
    py::handle(reinterpret_cast<PyObject*>(g_tensor_type)).attr("backward") = fresh;
    return true;
  });
}

}  // namespace seam::python
