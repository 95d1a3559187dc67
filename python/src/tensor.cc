// seam._C.Tensor: the class, its dtypes, its autograd bookkeeping and the creation
// functions. Operators live in tensor_ops.cc, host conversions in host.cc.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "python/src/py_tensor.h"

namespace seam::python {
namespace {

thread_local bool g_grad_enabled = true;

void AppendUnique(LeafSet& out, const LeafSet& more) {
  for (const std::weak_ptr<PyTensor>& leaf : more) {
    bool present = std::any_of(out.begin(), out.end(), [&](const std::weak_ptr<PyTensor>& have) {
      return !have.owner_before(leaf) && !leaf.owner_before(have);
    });
    if (!present) out.push_back(leaf);
  }
}

py::tuple ShapeTuple(const std::vector<int64_t>& shape) {
  py::tuple out(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) out[i] = py::int_(shape[i]);
  return out;
}

}  // namespace

bool grad_enabled() { return g_grad_enabled; }
void set_grad_enabled(bool enabled) { g_grad_enabled = enabled; }

LeafSetPtr LeavesOf(const PyTensor& t) {
  if (!t.is_leaf()) return t.leaves;
  if (!t.leaf_requires_grad) return nullptr;
  if (t.self_leaves == nullptr) {
    auto self = std::const_pointer_cast<PyTensor>(t.shared_from_this());
    t.self_leaves = std::make_shared<const LeafSet>(LeafSet{self});
  }
  return t.self_leaves;
}

LeafSetPtr MergeLeaves(std::span<const PyTensor* const> inputs) {
  if (!g_grad_enabled) return nullptr;
  // The first set found, shared as it is when it is the only one (the common case); a
  // merged copy only when a second, different one turns up.
  LeafSetPtr first;
  std::shared_ptr<LeafSet> merged;
  for (const PyTensor* in : inputs) {
    if (in == nullptr) continue;
    LeafSetPtr s = LeavesOf(*in);
    if (s == nullptr || s == first) continue;
    if (first == nullptr) {
      first = std::move(s);
    } else {
      if (merged == nullptr) merged = std::make_shared<LeafSet>(*first);
      AppendUnique(*merged, *s);
    }
  }
  if (merged != nullptr) return merged;
  return first;
}

PyTensorPtr Result(Tensor value, std::span<const PyTensor* const> inputs) {
  auto out = std::make_shared<PyTensor>(std::move(value));
  out->leaves = MergeLeaves(inputs);
  return out;
}

PyTensorPtr Constant(Tensor value) { return std::make_shared<PyTensor>(std::move(value)); }

std::optional<Scalar> ToScalar(py::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0)
      ThrowInvalid("integer " + py::str(h).cast<std::string>() + " does not fit int64");
    return Scalar(v);
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AsDouble(o));
  // NumPy scalars (np.float32(2), np.int64(3), np.bool_(True)).
  py::object np_generic = py::module_::import("numpy").attr("generic");
  if (py::isinstance(h, np_generic)) {
    std::string kind = h.attr("dtype").attr("kind").cast<std::string>();
    if (kind == "b") return Scalar(h.cast<bool>());
    if (kind == "i" || kind == "u") return Scalar(h.attr("item")().cast<long long>());
    if (kind == "f") return Scalar(h.attr("item")().cast<double>());
  }
  return std::nullopt;
}

void BindTensor(py::module_& m) {
  py::enum_<DType> dtype(m, "dtype");
  dtype.value("float32", DType::kFloat32)
      .value("int32", DType::kInt32)
      .value("float64", DType::kFloat64)
      .value("bool", DType::kBool)
      .value("bfloat16", DType::kBFloat16)
      .value("int64", DType::kInt64);
  dtype.def("__repr__", [](DType d) { return std::string("seam.") + dtype_name(d); });
  dtype.def("__str__", [](DType d) { return std::string("seam.") + dtype_name(d); });
  dtype.def_property_readonly("is_floating_point", [](DType d) {
    return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kBFloat16;
  });
  dtype.def_property_readonly("itemsize", [](DType d) {
    switch (d) {
      case DType::kFloat64:
      case DType::kInt64:
        return 8;
      case DType::kFloat32:
      case DType::kInt32:
        return 4;
      case DType::kBFloat16:
        return 2;
      case DType::kBool:
        return 1;
    }
    return 0;
  });

  py::class_<PyTensor, PyTensorPtr> cls(m, "Tensor", py::dynamic_attr());
  cls.def_property_readonly("shape", [](const PyTensor& t) { return ShapeTuple(t.value.shape()); });
  cls.def_property_readonly("dtype", [](const PyTensor& t) { return t.value.dtype(); });
  cls.def_property_readonly("ndim", [](const PyTensor& t) { return t.value.shape().size(); });
  cls.def("dim", [](const PyTensor& t) { return t.value.shape().size(); });
  cls.def("numel", [](const PyTensor& t) { return t.value.numel(); });
  cls.def_property_readonly("is_leaf", &PyTensor::is_leaf);
  cls.def_property("requires_grad", &PyTensor::requires_grad, [](PyTensor& t, bool on) {
    if (!t.is_leaf()) {
      ThrowInvalid(
          "requires_grad can be set on leaf tensors only (this tensor was computed from "
          "tensors that require grad; use .detach() for a new leaf)");
    }
    if (on && !(t.value.dtype() == DType::kFloat32 || t.value.dtype() == DType::kFloat64 ||
                t.value.dtype() == DType::kBFloat16)) {
      ThrowInvalid(std::string("only floating-point tensors can require gradients, not ") +
                   dtype_name(t.value.dtype()));
    }
    t.leaf_requires_grad = on;
  });
  cls.def_property(
      "grad", [](const PyTensor& t) { return t.grad; },
      [](PyTensor& t, PyTensorPtr g) {
        if (g != nullptr && g->value.shape() != t.value.shape()) {
          ThrowInvalid("grad: the gradient's shape differs from the tensor's");
        }
        t.grad = std::move(g);
      });
  // .data: the same value as a new leaf that needs no gradient; assigning it replaces the
  // value (same shape and dtype), outside autograd.
  cls.def_property(
      "data", [](const PyTensor& t) { return Constant(t.value); },
      [](PyTensor& t, const PyTensor& v) { t.value.assign(v.value); });
  cls.def("detach", [](const PyTensor& t) { return Constant(t.value); });
  // A new leaf holding the same value as `other` (nn.Parameter's constructor).
  cls.def(py::init([](const PyTensor& other, bool requires_grad) {
            auto t = std::make_shared<PyTensor>(other.value);
            t->leaf_requires_grad = requires_grad;
            return t;
          }),
          py::arg("data"), py::arg("requires_grad") = false);
  cls.def("has_pending_ops", [](const PyTensor& t) { return t.value.has_pending_ops(); });

  m.def("zeros", [](std::vector<int64_t> shape, DType dtype) {
    return Constant(Tensor::zeros(shape, dtype));
  });
  m.def("ones", [](std::vector<int64_t> shape, DType dtype) {
    return Constant(Tensor::ones(shape, dtype));
  });
  m.def("full", [](std::vector<int64_t> shape, py::handle value, DType dtype) {
    std::optional<Scalar> s = ToScalar(value);
    if (!s)
      ThrowInvalid("full: the fill value must be a number, got " +
                   py::repr(value).cast<std::string>());
    return Constant(Tensor::full(shape, *s, dtype));
  });
  m.def("arange",
        [](int64_t count, DType dtype) { return Constant(Tensor::arange(count, dtype)); });
  m.def("randn", [](std::vector<int64_t> shape, uint64_t seed, DType dtype) {
    return Constant(Tensor::randn(shape, seed, dtype));
  });
  m.def("uniform",
        [](std::vector<int64_t> shape, double low, double high, uint64_t seed, DType dtype) {
          return Constant(Tensor::uniform(shape, low, high, seed, dtype));
        });
  m.def("rand",
        [](std::vector<int64_t> shape, DType dtype) { return Constant(rand(shape, dtype)); });
  m.def("manual_seed", [](uint64_t seed) { manual_seed(seed); });
  m.def("next_init_seed", &next_init_seed);
  m.def("scalar", [](double value, DType dtype) { return Constant(Tensor::scalar(value, dtype)); });

  BindTensorOps(m, cls);
  BindHost(m, cls);
}

}  // namespace seam::python
