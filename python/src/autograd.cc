// PyTorch's autograd semantics on the C++ API's grad(loss, params): backward() finds the
// leaves the loss was computed from (py_tensor.h), differentiates once for all of them and
// adds each gradient into the leaf's .grad (accumulating until zero_grad()).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include "python/src/py_tensor.h"

namespace seam::python {
namespace {

std::vector<PyTensorPtr> LiveLeaves(const PyTensor& t) {
  std::vector<PyTensorPtr> out;
  if (t.is_leaf()) {
    if (t.leaf_requires_grad) {
      out.push_back(std::const_pointer_cast<PyTensor>(t.shared_from_this()));
    }
    return out;
  }
  for (const std::weak_ptr<PyTensor>& w : *t.leaves) {
    if (PyTensorPtr leaf = w.lock(); leaf != nullptr && leaf->leaf_requires_grad) {
      out.push_back(std::move(leaf));
    }
  }
  return out;
}

}  // namespace

void BackwardInto(const PyTensor& loss, const PyTensor* gradient) {
  if (!loss.requires_grad()) {
    ThrowInvalid(
        "backward: the tensor does not require grad (no leaf it was computed from has "
        "requires_grad=True, or it was computed under seam.no_grad())");
  }
  Tensor target = loss.value;
  if (gradient != nullptr) {
    target = (loss.value * gradient->value).sum();
  } else if (loss.value.numel() != 1) {
    ThrowInvalid(
        "backward: grad can be implicitly created only for a tensor of one element; "
        "pass gradient= for a tensor of shape with " +
        std::to_string(loss.value.numel()) + " elements");
  } else if (!loss.value.shape().empty()) {
    target = loss.value.reshape({});
  }
  std::vector<PyTensorPtr> leaves = LiveLeaves(loss);
  if (leaves.empty()) return;
  std::vector<Tensor> params;
  params.reserve(leaves.size());
  for (const PyTensorPtr& leaf : leaves) params.push_back(leaf->value);
  std::vector<Tensor> grads = grad(target, params);
  for (size_t i = 0; i < leaves.size(); ++i) {
    PyTensor& leaf = *leaves[i];
    if (leaf.grad == nullptr) {
      leaf.grad = Constant(grads[i]);
    } else {
      leaf.grad->value = leaf.grad->value + grads[i];
    }
  }
}

void BindAutograd(py::module_& m) {
  m.def("is_grad_enabled", &grad_enabled);
  m.def("set_grad_enabled", &set_grad_enabled);
  m.def(
      "backward",
      [](const PyTensor& loss, const PyTensor* gradient) { BackwardInto(loss, gradient); },
      py::arg("loss"), py::arg("gradient") = nullptr);
  // torch.autograd.grad(outputs, inputs, create_graph=...): gradients returned, .grad left
  // alone. With create_graph the gradients depend on the loss's leaves (a second
  // differentiation reaches them).
  m.def(
      "grad",
      [](const PyTensor& loss, const std::vector<PyTensorPtr>& inputs, bool create_graph) {
        std::vector<Tensor> params;
        for (const PyTensorPtr& p : inputs) {
          if (p == nullptr) ThrowInvalid("grad: None among the inputs");
          params.push_back(p->value);
        }
        std::vector<Tensor> grads = grad(loss.value, params);
        std::vector<PyTensorPtr> out;
        for (Tensor& g : grads) {
          out.push_back(create_graph ? Result(std::move(g), {&loss}) : Constant(std::move(g)));
        }
        return out;
      },
      py::arg("loss"), py::arg("inputs"), py::arg("create_graph") = false);
}

}  // namespace seam::python
