// seam.nn.functional's compiled half: the C++ API's layers and losses as functions of
// tensors (the Module classes are Python, seam/nn/modules.py).
#include "seam/nn.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <vector>

#include "python/src/py_tensor.h"

namespace seam::python {
namespace {

using Pair = std::array<int64_t, 2>;

const Tensor& ValueOr(const PyTensor* t, const Tensor& fallback) {
  return t != nullptr ? t->value : fallback;
}

}  // namespace

void BindNn(py::module_& m) {
  py::module_ f = m.def_submodule("nn", "seam::nn functions");
  f.def("cross_entropy", [](const PyTensor& logits, const PyTensor& labels) {
    return Result(nn::cross_entropy(logits.value, labels.value), {&logits});
  });
  f.def("correct_count", [](const PyTensor& logits, const PyTensor& labels) {
    return Constant(nn::correct_count(logits.value, labels.value));
  });
  f.def("gelu", [](const PyTensor& x) { return Result(nn::gelu(x.value), {&x}); });
  // input @ weight.T + bias in one call (weight [out, in], PyTorch's layout): the Linear
  // layer's forward without a Python function and three bound calls in between.
  f.def(
      "linear",
      [](const PyTensor& x, const PyTensor& w, const PyTensor* b) {
        Tensor out = nn::linear(x.value, w.value);
        if (b == nullptr) return Result(std::move(out), {&x, &w});
        return Result(out + b->value, {&x, &w, b});
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = nullptr);
  f.def(
      "conv2d",
      [](const PyTensor& x, const PyTensor& w, Pair stride, Pair padding, Pair dilation,
         int64_t groups) {
        nn::Conv2dOptions o;
        o.stride = stride;
        o.padding = padding;
        o.dilation = dilation;
        o.groups = groups;
        return Result(nn::conv2d(x.value, w.value, o), {&x, &w});
      },
      py::arg("input"), py::arg("weight"), py::arg("stride"), py::arg("padding"),
      py::arg("dilation"), py::arg("groups"));
  f.def("max_pool2d", [](const PyTensor& x, Pair k, Pair s, Pair p) {
    return Result(nn::max_pool2d(x.value, k, s, p), {&x});
  });
  f.def("avg_pool2d", [](const PyTensor& x, Pair k, Pair s, Pair p) {
    return Result(nn::avg_pool2d(x.value, k, s, p), {&x});
  });
  f.def("min_pool2d", [](const PyTensor& x, Pair k, Pair s, Pair p) {
    return Result(nn::min_pool2d(x.value, k, s, p), {&x});
  });
  f.def("embedding", [](const PyTensor& weight, const PyTensor& indices) {
    return Result(nn::embedding(weight.value, indices.value), {&weight});
  });
  f.def(
      "layer_norm",
      [](const PyTensor& x, const std::vector<int64_t>& shape, const PyTensor* w, const PyTensor* b,
         double eps) {
        return Result(
            nn::layer_norm(x.value, shape, ValueOr(w, Tensor()), ValueOr(b, Tensor()), eps),
            {&x, w, b});
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = nullptr,
      py::arg("bias") = nullptr, py::arg("eps") = 1e-5);
  // The running statistics are updated in place (training mode), outside autograd.
  f.def(
      "batch_norm",
      [](const PyTensor& x, PyTensor* running_mean, PyTensor* running_var, const PyTensor* w,
         const PyTensor* b, bool training, double momentum, double eps) {
        return Result(
            nn::batch_norm(x.value, running_mean ? &running_mean->value : nullptr,
                           running_var ? &running_var->value : nullptr, ValueOr(w, Tensor()),
                           ValueOr(b, Tensor()), training, momentum, eps),
            {&x, w, b});
      },
      py::arg("input"), py::arg("running_mean"), py::arg("running_var"),
      py::arg("weight") = nullptr, py::arg("bias") = nullptr, py::arg("training") = false,
      py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  f.def("dropout", [](const PyTensor& x, double p, bool training) {
    return Result(nn::dropout(x.value, p, training), {&x});
  });
  f.def(
      "scaled_dot_product_attention",
      [](const PyTensor& q, const PyTensor& k, const PyTensor& v, bool is_causal) {
        return Result(nn::scaled_dot_product_attention(q.value, k.value, v.value, is_causal),
                      {&q, &k, &v});
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("is_causal") = false);
}

}  // namespace seam::python
