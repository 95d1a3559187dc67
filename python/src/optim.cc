// seam.optim's compiled half: the C++ optimizers over the parameters' values, fed with the
// leaves' accumulated .grad; a parameter without one is skipped, as in PyTorch.
#include "seam/optim.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "python/src/py_tensor.h"

namespace seam::python {
namespace {

// One C++ optimizer per parameter, so that a parameter whose .grad is None is skipped
// (PyTorch's rule: no update, no weight decay or momentum, and Adam's step count stays per
// parameter). The updates are elementwise, so this gives the same values as one optimizer
// over all parameters.
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
  void Step() {
    std::vector<Tensor> one(1);
    for (size_t i = 0; i < params_.size(); ++i) {
      if (params_[i]->grad == nullptr) continue;
      one[0] = params_[i]->grad->value;
      impls_[i]->update(one);
    }
  }
  // PyTorch's names over all parameters: "state.<i>.<key>" and "param_groups.0.<name>".
  py::dict StateDict() {
    py::dict out;
    for (size_t i = 0; i < impls_.size(); ++i) {
      for (auto& [name, t] : impls_[i]->state_dict()) {
        std::string global = name;
        if (name.rfind("state.0.", 0) == 0) {
          global = "state." + std::to_string(i) + name.substr(std::string("state.0").size());
        } else if (i > 0) {
          continue;  // hyperparameters: the same in every parameter's optimizer
        }
        out[py::str(global)] = Constant(t);
      }
    }
    return out;
  }
  // All or nothing: a parameter's state that does not fit puts back what was loaded.
  void LoadStateDict(const std::map<std::string, PyTensorPtr>& state) {
    std::vector<nn::StateDict> parts(impls_.size());
    for (const auto& [name, t] : state) {
      if (t == nullptr) ThrowInvalid("load_state_dict: entry '" + name + "' is None");
      if (name.rfind("param_groups.0.", 0) == 0) {
        for (nn::StateDict& part : parts) part.emplace(name, t->value);
        continue;
      }
      size_t dot = name.find('.', 6);
      size_t index = impls_.size();
      if (name.rfind("state.", 0) == 0 && dot != std::string::npos) {
        try {
          index = std::stoul(name.substr(6, dot - 6));
        } catch (const std::exception&) {
        }
      }
      if (index >= impls_.size()) {
        ThrowInvalid("load_state_dict: unexpected '" + name + "' (nothing loaded; " +
                     std::to_string(impls_.size()) + " parameters)");
      }
      parts[index].emplace("state.0" + name.substr(dot), t->value);
    }
    std::vector<nn::StateDict> before;
    for (auto& impl : impls_) before.push_back(impl->state_dict());
    for (size_t i = 0; i < impls_.size(); ++i) {
      try {
        impls_[i]->load_state_dict(parts[i]);
      } catch (const Error& e) {
        for (size_t j = 0; j < i; ++j) impls_[j]->load_state_dict(before[j]);
        throw Error(e.code(), "parameter " + std::to_string(i) + ": " + e.what());
      }
    }
  }
  const std::vector<PyTensorPtr>& params() const { return params_; }
  // zero_grad(set_to_none=True) in one call (it runs every step).
  void ClearGrads() {
    for (const PyTensorPtr& p : params_) p->grad = nullptr;
  }

 protected:
  template <typename Make>
  void MakeImpls(Make make) {
    for (const PyTensorPtr& p : params_) impls_.push_back(make(std::vector<Tensor*>{&p->value}));
  }
  template <typename T, typename F>
  void ForEach(F f) {
    for (auto& impl : impls_) f(static_cast<T&>(*impl));
  }
  template <typename T>
  T& First() {
    if (impls_.empty()) ThrowInvalid("optimizer got an empty parameter list");
    return static_cast<T&>(*impls_.front());
  }

  std::vector<PyTensorPtr> params_;
  std::vector<std::unique_ptr<optim::Optimizer>> impls_;
};

class PySgd : public PyOptimizer {
 public:
  PySgd(std::vector<PyTensorPtr> params, float lr, float momentum, float weight_decay)
      : PyOptimizer(std::move(params)) {
    MakeImpls([&](std::vector<Tensor*> p) {
      return std::make_unique<optim::Sgd>(std::move(p), lr, momentum, weight_decay);
    });
  }
  optim::Sgd& sgd() { return First<optim::Sgd>(); }
  template <typename F>
  void each(F f) {
    ForEach<optim::Sgd>(f);
  }
};

class PyAdam : public PyOptimizer {
 public:
  PyAdam(std::vector<PyTensorPtr> params, float lr, float beta1, float beta2, float eps,
         float weight_decay, bool capturable, bool decoupled)
      : PyOptimizer(std::move(params)) {
    MakeImpls([&](std::vector<Tensor*> p) -> std::unique_ptr<optim::Optimizer> {
      if (decoupled) {
        return std::make_unique<optim::AdamW>(std::move(p), lr, beta1, beta2, eps, weight_decay,
                                              capturable);
      }
      return std::make_unique<optim::Adam>(std::move(p), lr, beta1, beta2, eps, weight_decay,
                                           capturable);
    });
  }
  optim::Adam& adam() { return First<optim::Adam>(); }
  template <typename F>
  void each(F f) {
    ForEach<optim::Adam>(f);
  }
};

// The optimizer's two calls of every step, step() and clear_grads(), as direct entry points
// (fast_calls.cc says why): the plain call with no argument, anything else to the binding.
const py::detail::type_info* g_optimizer_info = nullptr;
PyObject* g_step = nullptr;
PyObject* g_clear_grads = nullptr;

PyOptimizer* OptimizerOf(PyObject* self) {
  py::detail::type_caster_generic caster(g_optimizer_info);
  if (!caster.load(self, /*convert=*/false)) return nullptr;
  return static_cast<PyOptimizer*>(caster.value);
}

template <PyObject** replaced, void (PyOptimizer::*member)()>
PyObject* FastMethod(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  if (kwnames == nullptr && n == 0) {
    if (PyOptimizer* opt = OptimizerOf(self); opt != nullptr) {
      return FastCall([&] {
        (opt->*member)();
        return PyTensorPtr();
      });
    }
  }
  return CallReplaced(*replaced, self, args, static_cast<size_t>(n), kwnames);
}

PyMethodDef g_optimizer_defs[] = {
    {"step",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)()>(&FastMethod<&g_step, &PyOptimizer::Step>)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"clear_grads",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)()>(&FastMethod<&g_clear_grads, &PyOptimizer::ClearGrads>)),
     METH_FASTCALL | METH_KEYWORDS, nullptr},
};

}  // namespace

void InstallFastOptimizerCalls() {
  g_optimizer_info = py::detail::get_type_info(typeid(PyOptimizer));
  if (g_optimizer_info == nullptr) return;
  ReplaceMethod(g_optimizer_info->type, g_optimizer_defs[0], &g_step);
  ReplaceMethod(g_optimizer_info->type, g_optimizer_defs[1], &g_clear_grads);
}

void BindOptim(py::module_& m) {
  py::module_ o = m.def_submodule("optim", "seam::optim");
  py::class_<PyOptimizer>(o, "Optimizer")
      .def("step", &PyOptimizer::Step)
      .def("clear_grads", &PyOptimizer::ClearGrads)
      .def("state_dict", &PyOptimizer::StateDict)
      .def("load_state_dict", &PyOptimizer::LoadStateDict)
      .def_property_readonly("params", &PyOptimizer::params);
  py::class_<PySgd, PyOptimizer>(o, "SGD")
      .def(py::init<std::vector<PyTensorPtr>, float, float, float>(), py::arg("params"),
           py::arg("lr"), py::arg("momentum") = 0.0f, py::arg("weight_decay") = 0.0f)
      .def_property(
          "lr", [](PySgd& s) { return s.sgd().lr; },
          [](PySgd& s, float v) { s.each([v](optim::Sgd& o) { o.lr = v; }); })
      .def_property(
          "momentum", [](PySgd& s) { return s.sgd().momentum; },
          [](PySgd& s, float v) { s.each([v](optim::Sgd& o) { o.momentum = v; }); })
      .def_property(
          "weight_decay", [](PySgd& s) { return s.sgd().weight_decay; },
          [](PySgd& s, float v) { s.each([v](optim::Sgd& o) { o.weight_decay = v; }); });
  py::class_<PyAdam, PyOptimizer>(o, "Adam")
      .def(py::init<std::vector<PyTensorPtr>, float, float, float, float, float, bool, bool>(),
           py::arg("params"), py::arg("lr"), py::arg("beta1"), py::arg("beta2"), py::arg("eps"),
           py::arg("weight_decay"), py::arg("capturable"), py::arg("decoupled"))
      .def_property(
          "lr", [](PyAdam& a) { return a.adam().lr; },
          [](PyAdam& a, float v) { a.each([v](optim::Adam& o) { o.lr = v; }); })
      .def_property(
          "weight_decay", [](PyAdam& a) { return a.adam().weight_decay; },
          [](PyAdam& a, float v) { a.each([v](optim::Adam& o) { o.weight_decay = v; }); })
      .def_property(
          "betas", [](PyAdam& a) { return py::make_tuple(a.adam().beta1, a.adam().beta2); },
          [](PyAdam& a, std::pair<float, float> b) {
            a.each([b](optim::Adam& o) {
              o.beta1 = b.first;
              o.beta2 = b.second;
            });
          })
      .def_property(
          "eps", [](PyAdam& a) { return a.adam().eps; },
          [](PyAdam& a, float v) { a.each([v](optim::Adam& o) { o.eps = v; }); });
}

}  // namespace seam::python
