// The arithmetic operators' fast path. Python calls a type's number slots (nb_add, ...)
// for `a + b`; pybind11 fills them with its generic dispatch (look up __add__, try each
// overload, convert the arguments, wrap the result), which costs more than recording the op
// itself. For the common cases, a tensor with a tensor or with a Python float or int, the
// slots below record the op directly. Everything else, and every error (so the message and
// exception class are the bound method's), calls the bound __add__ / __radd__ as CPython's
// own slot would (which cannot be called once replaced: it checks that it is the slot).
#include <pybind11/pybind11.h>

#include "python/src/py_tensor.h"

namespace seam::python {
namespace {

PyTypeObject* g_tensor_type = nullptr;

enum class Arith { kAdd, kSubtract, kMultiply, kDivide };

constexpr const char* kNames[4][2] = {{"__add__", "__radd__"},
                                      {"__sub__", "__rsub__"},
                                      {"__mul__", "__rmul__"},
                                      {"__truediv__", "__rtruediv__"}};

// CPython's binary slot protocol through the bound methods: a.__add__(b), then, for an
// operand of another type, b.__radd__(a).
template <Arith op>
PyObject* Fallback(PyObject* a, PyObject* b) {
  const auto index = static_cast<int>(op);
  if (PyObject_TypeCheck(a, g_tensor_type)) {
    PyObject* r = PyObject_CallMethod(a, kNames[index][0], "O", b);
    if (r != Py_NotImplemented) return r;
    Py_DECREF(r);
  }
  if (PyObject_TypeCheck(b, g_tensor_type) && Py_TYPE(a) != Py_TYPE(b)) {
    return PyObject_CallMethod(b, kNames[index][1], "O", a);
  }
  Py_RETURN_NOTIMPLEMENTED;
}

bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kBFloat16;
}

const PyTensor* TensorOf(PyObject* o) {
  if (Py_TYPE(o) != g_tensor_type) return nullptr;  // subclasses take pybind11's path
  return FastTensor(o);  // no lookup of the C++ type by name (fast_calls.cc)
}

// A Python float, or an int that fits int64, as a Scalar (bool is not taken here).
bool NumberOf(PyObject* o, Scalar* out) {
  if (PyFloat_CheckExact(o)) {
    *out = Scalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    *out = Scalar(static_cast<int64_t>(v));
    return true;
  }
  return false;
}

template <Arith op, typename A, typename B>
Tensor Apply(const A& a, const B& b) {
  switch (op) {
    case Arith::kAdd:
      return a + b;
    case Arith::kSubtract:
      return a - b;
    case Arith::kMultiply:
      return a * b;
    case Arith::kDivide:
      return a / b;
  }
  return Tensor();
}

template <Arith op>
PyObject* Slot(PyObject* a, PyObject* b) {
  const PyTensor* x = TensorOf(a);
  const PyTensor* y = TensorOf(b);
  Scalar s(0.0);
  try {
    PyTensorPtr out;
    if (x != nullptr && y != nullptr) {
      if (op != Arith::kDivide || (IsFloat(x->value.dtype()) && IsFloat(y->value.dtype()))) {
        out = Result(Apply<op>(x->value, y->value), {x, y});
      }
    } else if (x != nullptr && NumberOf(b, &s)) {
      if (op != Arith::kDivide || IsFloat(x->value.dtype())) {
        out = Result(Apply<op>(x->value, s), {x});
      }
    } else if (y != nullptr && NumberOf(a, &s)) {
      if (op != Arith::kDivide || IsFloat(y->value.dtype())) {
        out = Result(Apply<op>(s, y->value), {y});
      }
    }
    if (out != nullptr) return WrapTensor(std::move(out));
  } catch (...) {
    // Recorded nothing: the bound method raises the same error the usual way.
  }
  return Fallback<op>(a, b);
}

template <Arith op>
void Install(binaryfunc* slot) {
  *slot = &Slot<op>;
}

}  // namespace

void InstallFastOperators(py::class_<PyTensor, PyTensorPtr>& cls) {
  g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  PyNumberMethods* number = g_tensor_type->tp_as_number;
  if (number == nullptr || number->nb_add == nullptr || number->nb_subtract == nullptr ||
      number->nb_multiply == nullptr || number->nb_true_divide == nullptr) {
    return;  // pybind11 put no slots there: keep its path
  }
  Install<Arith::kAdd>(&number->nb_add);
  Install<Arith::kSubtract>(&number->nb_subtract);
  Install<Arith::kMultiply>(&number->nb_multiply);
  Install<Arith::kDivide>(&number->nb_true_divide);
}

}  // namespace seam::python
