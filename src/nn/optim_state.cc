// Optimizer state dicts (include/seam/optim.h): PyTorch's names, the parameters' layout,
// and a load that checks everything before it changes anything.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "seam/optim.h"
#include "src/nn/materialize.h"

namespace seam::optim {
namespace {

std::string StateName(const std::string& key, int64_t param) {
  return "state." + std::to_string(param) + "." + key;
}

std::string GroupName(const std::string& name) { return "param_groups.0." + name; }

// Whether parameter `tensor` is kept transposed by PyTorch (per `layout`).
bool Transposed(const Tensor* tensor, const std::vector<nn::NamedParameter>& layout) {
  for (const nn::NamedParameter& p : layout) {
    if (p.tensor == tensor) return p.transposed;
  }
  return false;
}

std::string Shape(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(shape[i]);
  }
  text += ']';
  return text;
}

}  // namespace

nn::StateDict Optimizer::state_dict(const std::vector<nn::NamedParameter>& layout) {
  nn::StateDict state;
  for (const StateEntry& e : StateEntries()) {
    const bool transposed = e.param >= 0 && e.tensor->shape().size() == 2 &&
                            Transposed(params_[static_cast<size_t>(e.param)], layout);
    state.emplace(StateName(e.key, e.param), transposed ? e.tensor->transpose() : *e.tensor);
  }
  for (const Hyperparameter& h : Hyperparameters()) {
    state.emplace(GroupName(h.name), Tensor::scalar(*h.value, DType::kFloat32));
  }
  return state;
}

void Optimizer::load_state_dict(const nn::StateDict& state,
                                const std::vector<nn::NamedParameter>& layout) {
  std::vector<StateEntry> entries = StateEntries();
  std::vector<Hyperparameter> hypers = Hyperparameters();
  std::vector<std::string> problems;
  std::set<std::string> expected;
  std::vector<bool> transposed(entries.size(), false);
  for (size_t k = 0; k < entries.size(); ++k) {
    const StateEntry& e = entries[k];
    const std::string name = StateName(e.key, e.param);
    expected.insert(name);
    std::vector<int64_t> want = e.tensor->shape();
    transposed[k] = e.param >= 0 && want.size() == 2 &&
                    Transposed(params_[static_cast<size_t>(e.param)], layout);
    if (transposed[k]) std::swap(want[0], want[1]);
    auto it = state.find(name);
    if (it == state.end()) {
      problems.push_back("missing '" + name + "'");
    } else if (it->second.shape() != want || it->second.dtype() != e.tensor->dtype()) {
      problems.push_back("'" + name + "' has shape " + Shape(it->second.shape()) +
                         " or its dtype differs; the optimizer's is " + Shape(want));
    }
  }
  for (const Hyperparameter& h : hypers) {
    const std::string name = GroupName(h.name);
    expected.insert(name);
    auto it = state.find(name);
    if (it == state.end()) {
      problems.push_back("missing '" + name + "'");
    } else if (!it->second.shape().empty() || it->second.dtype() != DType::kFloat32) {
      problems.push_back("'" + name + "' is not a float32 scalar");
    }
  }
  for (const auto& [name, tensor] : state) {
    if (!expected.count(name)) problems.push_back("unexpected '" + name + "'");
  }
  if (!problems.empty()) {
    std::string message =
        "optimizer load_state_dict: the state does not fit this optimizer (nothing loaded): ";
    for (size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
    throw Error(ErrorCode::kInvalidArgument, message);
  }
  std::vector<Tensor*> loaded;
  for (size_t k = 0; k < entries.size(); ++k) {
    const Tensor& value = state.at(StateName(entries[k].key, entries[k].param));
    *entries[k].tensor = transposed[k] ? value.transpose() : value;
    loaded.push_back(entries[k].tensor);
  }
  // As for modules: the transposes run now, so the next step is an uninterrupted run's.
  nn::MaterializeNow(loaded, "optimizer load_state_dict");
  for (const Hyperparameter& h : hypers) *h.value = state.at(GroupName(h.name)).item<float>();
  StateLoaded();
}

std::vector<Optimizer::StateEntry> Sgd::StateEntries() {
  if (momentum == 0) return {};
  if (velocity_.empty()) {
    for (Tensor* p : params_) velocity_.push_back(Tensor::zeros(p->shape(), p->dtype()));
  }
  std::vector<StateEntry> entries;
  for (size_t i = 0; i < params_.size(); ++i) {
    entries.push_back({"momentum_buffer", static_cast<int64_t>(i), &velocity_[i]});
  }
  return entries;
}

std::vector<Optimizer::Hyperparameter> Sgd::Hyperparameters() {
  return {{"lr", &lr}, {"momentum", &momentum}, {"weight_decay", &weight_decay}};
}

std::vector<Optimizer::StateEntry> Adam::StateEntries() {
  if (m_.empty()) {
    for (Tensor* p : params_) {
      m_.push_back(Tensor::zeros(p->shape(), p->dtype()));
      v_.push_back(Tensor::zeros(p->shape(), p->dtype()));
    }
    if (capturable_) step_.push_back(Tensor::zeros({}, DType::kFloat32));
  }
  host_steps_.assign(params_.size(), Tensor::scalar(static_cast<double>(t_), DType::kFloat32));
  std::vector<StateEntry> entries;
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto param = static_cast<int64_t>(i);
    entries.push_back({"exp_avg", param, &m_[i]});
    entries.push_back({"exp_avg_sq", param, &v_[i]});
    // PyTorch keeps a step count per parameter; seam has one for all.
    entries.push_back({"step", param, capturable_ ? &step_[0] : &host_steps_[i]});
  }
  return entries;
}

void Adam::StateLoaded() {
  if (!capturable_ && !host_steps_.empty()) {
    t_ = static_cast<int64_t>(host_steps_.front().item<float>());
  }
  host_steps_.clear();
}

std::vector<Optimizer::Hyperparameter> Adam::Hyperparameters() {
  return {{"lr", &lr},
          {"beta1", &beta1},
          {"beta2", &beta2},
          {"eps", &eps},
          {"weight_decay", &weight_decay}};
}

}  // namespace seam::optim
