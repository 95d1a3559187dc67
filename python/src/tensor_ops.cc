// The Tensor's operations: Python operators (with numbers on either side), elementwise
// math, reductions, shapes. Each result records the leaves it depends on (py_tensor.h);
// comparisons, indices and integer conversions carry no gradient, as in PyTorch.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "python/src/py_tensor.h"

namespace seam::python {
namespace {

using TensorTensor = std::function<Tensor(const Tensor&, const Tensor&)>;
using TensorScalar = std::function<Tensor(const Tensor&, Scalar)>;
using ScalarTensor = std::function<Tensor(Scalar, const Tensor&)>;

py::object NotImplementedObject() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kBFloat16;
}

// A binary operator: tensor with tensor, tensor with number or NumPy array, number or
// array with tensor (the reflected form; NumPy defers to it, the tensor class setting
// __array_ufunc__ = None). An array takes the tensor's dtype (ArrayOperand) and carries no
// gradient. Anything else is NotImplemented, so Python tries the other operand.
void BindBinary(py::class_<PyTensor, PyTensorPtr>& cls, const char* name, const char* rname,
                TensorTensor tt, TensorScalar ts, ScalarTensor st, bool differentiable) {
  auto make = [differentiable](Tensor v, std::initializer_list<const PyTensor*> in) {
    return differentiable ? Result(std::move(v), in) : Constant(std::move(v));
  };
  cls.def(name, [name, tt, ts, make](const PyTensor& a, py::object other) -> py::object {
    if (py::isinstance<PyTensor>(other)) {
      const PyTensor& b = other.cast<const PyTensor&>();
      return py::cast(make(tt(a.value, b.value), {&a, &b}));
    }
    std::optional<Scalar> s = ToScalar(other);
    if (s) return py::cast(make(ts(a.value, *s), {&a}));
    std::optional<Tensor> array = ArrayOperand(name, a.value, other);
    if (!array) return NotImplementedObject();
    return py::cast(make(tt(a.value, *array), {&a}));
  });
  if (rname == nullptr) return;
  cls.def(rname, [rname, tt, st, make](const PyTensor& a, py::object other) -> py::object {
    std::optional<Scalar> s = ToScalar(other);
    if (s) return py::cast(make(st(*s, a.value), {&a}));
    std::optional<Tensor> array = ArrayOperand(rname, a.value, other);
    if (!array) return NotImplementedObject();
    return py::cast(make(tt(*array, a.value), {&a}));
  });
}

// `t op= x`: the handle keeps its identity and takes the new value (PyTorch's in-place
// rules: a leaf that requires grad may be changed only under no_grad()).
void BindInPlace(py::class_<PyTensor, PyTensorPtr>& cls, const char* name, TensorTensor tt,
                 TensorScalar ts) {
  cls.def(name, [name, tt, ts](PyTensorPtr a, py::object other) -> py::object {
    if (grad_enabled() && a->is_leaf() && a->leaf_requires_grad) {
      ThrowInvalid(std::string(name) +
                   ": a leaf tensor that requires grad cannot be changed in place outside "
                   "seam.no_grad()");
    }
    Tensor value;
    const PyTensor* b = nullptr;
    if (py::isinstance<PyTensor>(other)) {
      b = &other.cast<const PyTensor&>();
      value = tt(a->value, b->value);
    } else if (std::optional<Scalar> s = ToScalar(other)) {
      value = ts(a->value, *s);
    } else if (std::optional<Tensor> array = ArrayOperand(name, a->value, other)) {
      value = tt(a->value, *array);
    } else {
      return NotImplementedObject();
    }
    LeafSetPtr leaves = MergeLeaves({a.get(), b});
    a->value.assign(value);
    if (leaves != nullptr && !(a->is_leaf() && a->leaf_requires_grad)) a->leaves = leaves;
    return py::cast(a);
  });
}

void BindArithmetic(py::class_<PyTensor, PyTensorPtr>& cls) {
  BindBinary(
      cls, "__add__", "__radd__", [](const Tensor& a, const Tensor& b) { return a + b; },
      [](const Tensor& a, Scalar b) { return a + b; },
      [](Scalar a, const Tensor& b) { return a + b; }, true);
  BindBinary(
      cls, "__sub__", "__rsub__", [](const Tensor& a, const Tensor& b) { return a - b; },
      [](const Tensor& a, Scalar b) { return a - b; },
      [](Scalar a, const Tensor& b) { return a - b; }, true);
  BindBinary(
      cls, "__mul__", "__rmul__", [](const Tensor& a, const Tensor& b) { return a * b; },
      [](const Tensor& a, Scalar b) { return a * b; },
      [](Scalar a, const Tensor& b) { return a * b; }, true);
  // True division: integer operands are converted to float32 first (PyTorch's `/`).
  auto as_float = [](const Tensor& t) { return IsFloat(t.dtype()) ? t : t.to(DType::kFloat32); };
  BindBinary(
      cls, "__truediv__", "__rtruediv__",
      [as_float](const Tensor& a, const Tensor& b) { return as_float(a) / as_float(b); },
      [as_float](const Tensor& a, Scalar b) { return as_float(a) / b; },
      [as_float](Scalar a, const Tensor& b) { return a / as_float(b); }, true);
  BindBinary(
      cls, "__pow__", "__rpow__", [](const Tensor& a, const Tensor& b) { return pow(a, b); },
      [](const Tensor& a, Scalar b) { return pow(a, b); },
      [](Scalar a, const Tensor& b) { return pow(Tensor::full(b.shape(), a, b.dtype()), b); },
      true);
  BindBinary(
      cls, "maximum", nullptr, [](const Tensor& a, const Tensor& b) { return maximum(a, b); },
      [](const Tensor& a, Scalar b) { return maximum(a, b); }, nullptr, true);
  BindBinary(
      cls, "minimum", nullptr, [](const Tensor& a, const Tensor& b) { return minimum(a, b); },
      [](const Tensor& a, Scalar b) { return minimum(a, b); }, nullptr, true);
  BindBinary(
      cls, "fmod", nullptr, [](const Tensor& a, const Tensor& b) { return fmod(a, b); },
      [](const Tensor& a, Scalar b) { return fmod(a, Tensor::full(a.shape(), b, a.dtype())); },
      nullptr, true);
  BindInPlace(
      cls, "__iadd__", [](const Tensor& a, const Tensor& b) { return a + b; },
      [](const Tensor& a, Scalar b) { return a + b; });
  BindInPlace(
      cls, "__isub__", [](const Tensor& a, const Tensor& b) { return a - b; },
      [](const Tensor& a, Scalar b) { return a - b; });
  BindInPlace(
      cls, "__imul__", [](const Tensor& a, const Tensor& b) { return a * b; },
      [](const Tensor& a, Scalar b) { return a * b; });
  BindInPlace(
      cls, "__itruediv__", [](const Tensor& a, const Tensor& b) { return a / b; },
      [](const Tensor& a, Scalar b) { return a / b; });
  // copy_ converts and broadcasts the source to the destination (torch's copy_).
  BindInPlace(
      cls, "copy_",
      [](const Tensor& a, const Tensor& b) {
        Tensor v = b.dtype() == a.dtype() ? b : b.to(a.dtype());
        return v.shape() == a.shape() ? v : v.broadcast_to(a.shape());
      },
      [](const Tensor& a, Scalar b) { return Tensor::full(a.shape(), b, a.dtype()); });
}

void BindComparisons(py::class_<PyTensor, PyTensorPtr>& cls) {
  // (name, reflected name, tensor-tensor) — the reflected form swaps the operands' order.
  BindBinary(
      cls, "__eq__", nullptr, [](const Tensor& a, const Tensor& b) { return eq(a, b); },
      [](const Tensor& a, Scalar b) { return a == b; }, nullptr, false);
  BindBinary(
      cls, "__ne__", nullptr, [](const Tensor& a, const Tensor& b) { return ne(a, b); },
      [](const Tensor& a, Scalar b) { return a != b; }, nullptr, false);
  BindBinary(
      cls, "__lt__", nullptr, [](const Tensor& a, const Tensor& b) { return lt(a, b); },
      [](const Tensor& a, Scalar b) { return a < b; }, nullptr, false);
  BindBinary(
      cls, "__le__", nullptr, [](const Tensor& a, const Tensor& b) { return le(a, b); },
      [](const Tensor& a, Scalar b) { return a <= b; }, nullptr, false);
  BindBinary(
      cls, "__gt__", nullptr, [](const Tensor& a, const Tensor& b) { return gt(a, b); },
      [](const Tensor& a, Scalar b) { return a > b; }, nullptr, false);
  BindBinary(
      cls, "__ge__", nullptr, [](const Tensor& a, const Tensor& b) { return ge(a, b); },
      [](const Tensor& a, Scalar b) { return a >= b; }, nullptr, false);
  BindBinary(
      cls, "__and__", nullptr, [](const Tensor& a, const Tensor& b) { return logical_and(a, b); },
      [](const Tensor& a, Scalar b) {
        return logical_and(a, Tensor::full(a.shape(), b, a.dtype()));
      },
      nullptr, false);
  BindBinary(
      cls, "__or__", nullptr, [](const Tensor& a, const Tensor& b) { return logical_or(a, b); },
      [](const Tensor& a, Scalar b) {
        return logical_or(a, Tensor::full(a.shape(), b, a.dtype()));
      },
      nullptr, false);
  cls.def("__invert__", [](const PyTensor& a) { return Constant(a.value.logical_not()); });
  cls.def("logical_not", [](const PyTensor& a) { return Constant(a.value.logical_not()); });
  // Tensors are compared elementwise, so they hash by identity (as torch.Tensor).
  cls.def("__hash__", [](const PyTensor& a) { return reinterpret_cast<intptr_t>(&a); });
}

void BindUnary(py::class_<PyTensor, PyTensorPtr>& cls) {
  using Member = Tensor (Tensor::*)() const;
  const std::pair<const char*, Member> differentiable[] = {
      {"neg", &Tensor::neg},         {"__neg__", &Tensor::neg}, {"exp", &Tensor::exp},
      {"log", &Tensor::log},         {"tanh", &Tensor::tanh},   {"sigmoid", &Tensor::sigmoid},
      {"relu", &Tensor::relu},       {"sqrt", &Tensor::sqrt},   {"rsqrt", &Tensor::rsqrt},
      {"abs", &Tensor::abs},         {"__abs__", &Tensor::abs}, {"log1p", &Tensor::log1p},
      {"_gelu_tanh", &Tensor::gelu}, {"erf", &Tensor::erf},
  };
  for (const auto& [name, fn] : differentiable) {
    cls.def(name, [fn = fn](const PyTensor& a) { return Result((a.value.*fn)(), {&a}); });
  }
  const std::pair<const char*, Member> constant[] = {
      {"sign", &Tensor::sign}, {"floor", &Tensor::floor}, {"ceil", &Tensor::ceil}};
  for (const auto& [name, fn] : constant) {
    cls.def(name, [fn = fn](const PyTensor& a) { return Constant((a.value.*fn)()); });
  }
  cls.def(
      "softmax", [](const PyTensor& a, int64_t dim) { return Result(a.value.softmax(dim), {&a}); },
      py::arg("dim"));
  cls.def(
      "log_softmax",
      [](const PyTensor& a, int64_t dim) { return Result(a.value.log_softmax(dim), {&a}); },
      py::arg("dim"));
  cls.def(
      "cumsum", [](const PyTensor& a, int64_t dim) { return Result(a.value.cumsum(dim), {&a}); },
      py::arg("dim"));
}

using Reduce = Tensor (Tensor::*)(const std::vector<int64_t>&, bool) const;
using ReduceAll = Tensor (Tensor::*)() const;

void BindReduction(py::class_<PyTensor, PyTensorPtr>& cls, const char* name, ReduceAll all,
                   Reduce some) {
  cls.def(
      name,
      [all, some](const PyTensor& a, std::optional<std::vector<int64_t>> dims, bool keepdim) {
        if (!dims) {
          Tensor r = (a.value.*all)();
          if (keepdim) r = r.reshape(std::vector<int64_t>(a.value.shape().size(), 1));
          return Result(r, {&a});
        }
        return Result((a.value.*some)(*dims, keepdim), {&a});
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
}

void BindReductions(py::class_<PyTensor, PyTensorPtr>& cls) {
  BindReduction(cls, "_sum", &Tensor::sum, &Tensor::sum);
  BindReduction(cls, "_mean", &Tensor::mean, &Tensor::mean);
  BindReduction(cls, "_amax", &Tensor::max, &Tensor::max);
  BindReduction(cls, "_amin", &Tensor::min, &Tensor::min);
  BindReduction(cls, "_prod", &Tensor::prod, &Tensor::prod);
  cls.def("_argmax", [](const PyTensor& a, int64_t dim) { return Constant(a.value.argmax(dim)); });
  cls.def("_argmin", [](const PyTensor& a, int64_t dim) { return Constant(a.value.argmin(dim)); });
  cls.def(
      "sort",
      [](const PyTensor& a, int64_t dim, bool descending) {
        SortResult r = a.value.sort(dim, descending);
        return py::make_tuple(Result(r.values, {&a}), Constant(r.indices));
      },
      py::arg("dim") = -1, py::arg("descending") = false);
  cls.def(
      "topk",
      [](const PyTensor& a, int64_t k, int64_t dim) {
        SortResult r = a.value.topk(k, dim);
        return py::make_tuple(Result(r.values, {&a}), Constant(r.indices));
      },
      py::arg("k"), py::arg("dim") = -1);
}

void BindShapes(py::class_<PyTensor, PyTensorPtr>& cls) {
  cls.def("_reshape", [](const PyTensor& a, std::vector<int64_t> shape) {
    return Result(a.value.reshape(std::move(shape)), {&a});
  });
  cls.def("transpose", [](const PyTensor& a, int64_t d0, int64_t d1) {
    return Result(a.value.transpose(d0, d1), {&a});
  });
  cls.def("_permute", [](const PyTensor& a, const std::vector<int64_t>& order) {
    return Result(a.value.permute(order), {&a});
  });
  cls.def("_broadcast_to", [](const PyTensor& a, std::vector<int64_t> shape) {
    return Result(a.value.broadcast_to(std::move(shape)), {&a});
  });
  cls.def("_slice", [](const PyTensor& a, int64_t axis, int64_t start, int64_t end, int64_t step) {
    return Result(a.value.slice(axis, start, end, step), {&a});
  });
  cls.def("_pad",
          [](const PyTensor& a, const std::vector<int64_t>& low, const std::vector<int64_t>& high,
             double value) { return Result(a.value.pad(low, high, value), {&a}); });
  cls.def("to", [](const PyTensor& a, DType dtype) {
    Tensor v = a.value.dtype() == dtype ? a.value : a.value.to(dtype);
    return IsFloat(dtype) ? Result(v, {&a}) : Constant(v);
  });
  cls.def("__matmul__", [](const PyTensor& a, const PyTensor& b) {
    return Result(a.value.matmul(b.value), {&a, &b});
  });
  cls.def("matmul", [](const PyTensor& a, const PyTensor& b) {
    return Result(a.value.matmul(b.value), {&a, &b});
  });
  cls.def("scatter",
          [](const PyTensor& a, int64_t dim, const PyTensor& index, const PyTensor& src) {
            return Result(a.value.scatter(dim, index.value, src.value), {&a, &src});
          });
}

}  // namespace

void BindTensorOps(py::module_& m, py::class_<PyTensor, PyTensorPtr>& cls) {
  BindArithmetic(cls);
  BindComparisons(cls);
  BindUnary(cls);
  BindReductions(cls);
  BindShapes(cls);
  InstallFastOperators(cls);
  m.def("cat", [](const std::vector<PyTensorPtr>& tensors, int64_t dim) {
    std::vector<Tensor> values;
    std::vector<const PyTensor*> inputs;
    for (const PyTensorPtr& t : tensors) {
      if (t == nullptr) ThrowInvalid("cat: None among the tensors");
      values.push_back(t->value);
      inputs.push_back(t.get());
    }
    return Result(Tensor::cat(values, dim), inputs);
  });
  m.def("where", [](const PyTensor& cond, const PyTensor& a, const PyTensor& b) {
    return Result(where(cond.value, a.value, b.value), {&a, &b});
  });
  m.def("clamp", [](const PyTensor& x, const PyTensor& lo, const PyTensor& hi) {
    return Result(clamp(x.value, lo.value, hi.value), {&x, &lo, &hi});
  });
}

}  // namespace seam::python
