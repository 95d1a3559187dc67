// seam.optim's compiled half: the C++ optimizers over the parameters' values, fed with the
// leaves' accumulated .grad (a parameter without one gets zeros; docs/python.md says where
// that differs from PyTorch, which skips it).
#include "seam/optim.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "python/src/py_tensor.h"

namespace seam::python {
namespace {

class PyOptimizer {
 public:
  explicit PyOptimizer(std::vector<PyTensorPtr> params) : params_(std::move(params)) {
    for (const PyTensorPtr& p : params_) {
      if (p == nullptr) ThrowInvalid("optimizer: None among the parameters");
      if (!p->is_leaf()) {
        ThrowInvalid(
            "optimizer: can only optimize leaf tensors (a parameter was computed "
            "from other tensors)");
      }
    }
  }
  std::vector<Tensor*> Handles() {
    std::vector<Tensor*> out;
    for (const PyTensorPtr& p : params_) out.push_back(&p->value);
    return out;
  }
  void Step() {
    std::vector<Tensor> grads;
    grads.reserve(params_.size());
    for (const PyTensorPtr& p : params_) {
      grads.push_back(p->grad != nullptr ? p->grad->value
                                         : Tensor::zeros(p->value.shape(), p->value.dtype()));
    }
    impl_->update(grads);
  }
  py::dict StateDict() {
    py::dict out;
    for (auto& [name, t] : impl_->state_dict()) out[py::str(name)] = Constant(t);
    return out;
  }
  void LoadStateDict(const std::map<std::string, PyTensorPtr>& state) {
    nn::StateDict values;
    for (const auto& [name, t] : state) {
      if (t == nullptr) ThrowInvalid("load_state_dict: entry '" + name + "' is None");
      values.emplace(name, t->value);
    }
    impl_->load_state_dict(values);
  }
  const std::vector<PyTensorPtr>& params() const { return params_; }

 protected:
  std::vector<PyTensorPtr> params_;
  std::unique_ptr<optim::Optimizer> impl_;
};

class PySgd : public PyOptimizer {
 public:
  PySgd(std::vector<PyTensorPtr> params, float lr, float momentum, float weight_decay)
      : PyOptimizer(std::move(params)) {
    impl_ = std::make_unique<optim::Sgd>(Handles(), lr, momentum, weight_decay);
  }
  optim::Sgd& sgd() { return static_cast<optim::Sgd&>(*impl_); }
};

class PyAdam : public PyOptimizer {
 public:
  PyAdam(std::vector<PyTensorPtr> params, float lr, float beta1, float beta2, float eps,
         float weight_decay, bool capturable, bool decoupled)
      : PyOptimizer(std::move(params)) {
    if (decoupled) {
      impl_ = std::make_unique<optim::AdamW>(Handles(), lr, beta1, beta2, eps, weight_decay,
                                             capturable);
    } else {
      impl_ =
          std::make_unique<optim::Adam>(Handles(), lr, beta1, beta2, eps, weight_decay, capturable);
    }
  }
  optim::Adam& adam() { return static_cast<optim::Adam&>(*impl_); }
};

}  // namespace

void BindOptim(py::module_& m) {
  py::module_ o = m.def_submodule("optim", "seam::optim");
  py::class_<PyOptimizer>(o, "Optimizer")
      .def("step", &PyOptimizer::Step)
      .def("state_dict", &PyOptimizer::StateDict)
      .def("load_state_dict", &PyOptimizer::LoadStateDict)
      .def_property_readonly("params", &PyOptimizer::params);
  py::class_<PySgd, PyOptimizer>(o, "SGD")
      .def(py::init<std::vector<PyTensorPtr>, float, float, float>(), py::arg("params"),
           py::arg("lr"), py::arg("momentum") = 0.0f, py::arg("weight_decay") = 0.0f)
      .def_property(
          "lr", [](PySgd& s) { return s.sgd().lr; }, [](PySgd& s, float v) { s.sgd().lr = v; })
      .def_property(
          "momentum", [](PySgd& s) { return s.sgd().momentum; },
          [](PySgd& s, float v) { s.sgd().momentum = v; })
      .def_property(
          "weight_decay", [](PySgd& s) { return s.sgd().weight_decay; },
          [](PySgd& s, float v) { s.sgd().weight_decay = v; });
  py::class_<PyAdam, PyOptimizer>(o, "Adam")
      .def(py::init<std::vector<PyTensorPtr>, float, float, float, float, float, bool, bool>(),
           py::arg("params"), py::arg("lr"), py::arg("beta1"), py::arg("beta2"), py::arg("eps"),
           py::arg("weight_decay"), py::arg("capturable"), py::arg("decoupled"))
      .def_property(
          "lr", [](PyAdam& a) { return a.adam().lr; }, [](PyAdam& a, float v) { a.adam().lr = v; })
      .def_property(
          "weight_decay", [](PyAdam& a) { return a.adam().weight_decay; },
          [](PyAdam& a, float v) { a.adam().weight_decay = v; })
      .def_property(
          "betas", [](PyAdam& a) { return py::make_tuple(a.adam().beta1, a.adam().beta2); },
          [](PyAdam& a, std::pair<float, float> b) {
            a.adam().beta1 = b.first;
            a.adam().beta2 = b.second;
          })
      .def_property(
          "eps", [](PyAdam& a) { return a.adam().eps; },
          [](PyAdam& a, float v) { a.adam().eps = v; });
}

}  // namespace seam::python
