// Names and state dicts of modules (include/seam/nn.h): PyTorch's names and layout, and a
// load that checks everything before it changes anything.
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "seam/nn.h"
#include "src/nn/materialize.h"

namespace seam::nn {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? "," : "") << shape[i];
  out << ']';
  return out.str();
}

const char* DTypeText(DType dtype) { return dtype_name(dtype); }

// The shape PyTorch keeps `p` in.
std::vector<int64_t> TorchShape(const NamedParameter& p) {
  std::vector<int64_t> shape = p.tensor->shape();
  if (p.transposed && shape.size() == 2) std::swap(shape[0], shape[1]);
  return shape;
}

StateDict StateDictOf(const std::vector<NamedParameter>& params) {
  StateDict state;
  for (const NamedParameter& p : params) {
    state.emplace(p.name, p.transposed ? p.tensor->transpose() : *p.tensor);
  }
  return state;
}

// Every problem of `state` against `params`, one line each (empty: it fits).
std::vector<std::string> Problems(const std::vector<NamedParameter>& params,
                                  const StateDict& state) {
  std::vector<std::string> problems;
  std::set<std::string> expected;
  for (const NamedParameter& p : params) {
    expected.insert(p.name);
    auto it = state.find(p.name);
    if (it == state.end()) {
      problems.push_back("missing '" + p.name + "'");
      continue;
    }
    const std::vector<int64_t> want = TorchShape(p);
    if (it->second.shape() != want) {
      problems.push_back("'" + p.name + "' has shape " + ShapeText(it->second.shape()) +
                         ", the module's is " + ShapeText(want) +
                         (p.transposed ? " (PyTorch's layout, [out, in])" : ""));
    } else if (it->second.dtype() != p.tensor->dtype()) {
      problems.push_back("'" + p.name + "' is " + DTypeText(it->second.dtype()) +
                         ", the module's is " + DTypeText(p.tensor->dtype()));
    }
  }
  for (const auto& [name, tensor] : state) {
    if (!expected.count(name)) problems.push_back("unexpected '" + name + "'");
  }
  return problems;
}

void LoadStateDict(const std::vector<NamedParameter>& params, const StateDict& state) {
  std::vector<std::string> problems = Problems(params, state);
  if (!problems.empty()) {
    std::string message = "load_state_dict: the state does not fit the module (nothing loaded): ";
    for (size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
    throw Error(ErrorCode::kInvalidArgument, message);
  }
  std::vector<Tensor*> loaded;
  for (const NamedParameter& p : params) {
    const Tensor& value = state.at(p.name);
    *p.tensor = p.transposed ? value.transpose() : value;
    loaded.push_back(p.tensor);
  }
  // The transposes back from PyTorch's layout run now, not in the next step's program.
  MaterializeNow(loaded, "load_state_dict");
}

std::vector<NamedParameter> Prefixed(const std::string& prefix,
                                     std::vector<NamedParameter> params) {
  for (NamedParameter& p : params) p.name = prefix + p.name;
  return params;
}

// The parameters, then the buffers (never transposed).
std::vector<NamedParameter> Entries(Module& module) {
  std::vector<NamedParameter> entries = module.named_parameters();
  for (NamedParameter& b : module.named_buffers()) entries.push_back(std::move(b));
  return entries;
}

}  // namespace

StateDict Module::state_dict() { return StateDictOf(Entries(*this)); }

void Module::load_state_dict(const StateDict& state) { LoadStateDict(Entries(*this), state); }

std::vector<NamedParameter> Linear::named_parameters() {
  return {{"weight", &weight, false}, {"bias", &bias, false}};
}

std::vector<NamedParameter> Sequential::named_parameters() {
  std::vector<NamedParameter> params;
  for (size_t i = 0; i < modules.size(); ++i) {
    for (NamedParameter& p : Prefixed(std::to_string(i) + ".", modules[i]->named_parameters())) {
      params.push_back(std::move(p));
    }
  }
  return params;
}

std::vector<NamedParameter> Sequential::named_buffers() {
  std::vector<NamedParameter> buffers;
  for (size_t i = 0; i < modules.size(); ++i) {
    for (NamedParameter& b : Prefixed(std::to_string(i) + ".", modules[i]->named_buffers())) {
      buffers.push_back(std::move(b));
    }
  }
  return buffers;
}

std::vector<NamedParameter> Mlp::named_parameters() {
  std::vector<NamedParameter> params;
  for (size_t i = 0; i < layers.size(); ++i) {
    for (NamedParameter& p :
         Prefixed("layers." + std::to_string(i) + ".", layers[i].named_parameters())) {
      params.push_back(std::move(p));
    }
  }
  return params;
}

}  // namespace seam::nn
