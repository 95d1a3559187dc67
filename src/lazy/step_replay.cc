#include "src/lazy/step_replay.h"

#include <algorithm>

#include "absl/cleanup/cleanup.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/lazy/donation.h"
#include "src/lazy/eager.h"
#include "src/lazy/runtime.h"
#include "src/lazy/step_runner.h"
#include "src/runtime/trace.h"

namespace seam::lazy {
namespace {

using Kind = ParameterSource::Kind;
using runtime::ComputationClient;

// The parameters' values of one replay: on the stack for the steps people write (a heap
// block per replay otherwise).
using ParameterValues = absl::InlinedVector<std::shared_ptr<DeviceValue>, 16>;
// Per result, whether its destinations were checked already in this replay.
using CheckedResults = absl::InlinedVector<bool, 16>;

// A value a program may read: on the device or the host, never donated, one replica.
bool Readable(const DeviceValue& value) {
  return !value.donated && value.replicas == nullptr &&
         (value.device != nullptr || value.host.has_value());
}

// Every handle result r was assigned to still exists, is shared by as many Tensor objects
// as when captured, and holds `value` (null: any value without pending operations).
bool DestinationsIntact(const std::vector<Destination>& destinations, const DeviceValue* value) {
  for (const Destination& destination : destinations) {
    std::shared_ptr<TensorImpl> handle = destination.handle.lock();
    if (handle == nullptr || handle.use_count() - 1 != destination.holders) return false;
    NodePtr node = handle->node();
    if (!node->is_leaf()) return false;
    if (value != nullptr && node->value.get() != value) return false;
  }
  return true;
}

// The donation rules (MayDonate, src/lazy/donation.h) for parameter `value`, whose
// handles are `destinations`: the leaf's owners in the step are those handles.
bool SafeToDonate(const std::shared_ptr<DeviceValue>& value,
                  const std::vector<Destination>& destinations) {
  NodePtr leaf;
  if (!destinations.empty()) {
    std::shared_ptr<TensorImpl> handle = destinations.front().handle.lock();
    if (handle != nullptr) leaf = handle->node();
  }
  return MayDonate(value, leaf, static_cast<int64_t>(destinations.size()));
}

// The value of every program parameter, from its source, into `values`; or why the
// sources no longer give the captured step (empty when they do).
// Results whose destinations were found intact here are marked in `checked`.
std::string GatherParameters(const Capture& plan,
                             const std::vector<std::shared_ptr<TensorImpl>>& inputs,
                             const StepResults& results, ParameterValues& values,
                             CheckedResults& checked) {
  absl::InlinedVector<NodePtr, 8> input_nodes(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    input_nodes[i] = inputs[i]->node();
    const Node& node = *input_nodes[i];
    if (!(node.shape == plan.inputs[i])) {
      return absl::StrCat("input ", i, " is ", node.shape.ToString(), ", captured as ",
                          plan.inputs[i].ToString());
    }
    if (!node.is_leaf()) return absl::StrCat("input ", i, " has pending operations");
    if (!Readable(*node.value)) return absl::StrCat("input ", i, " is donated or per-replica");
  }
  values.resize(plan.sources.size());
  for (size_t p = 0; p < plan.sources.size(); ++p) {
    const ParameterSource& source = plan.sources[p];
    switch (source.kind) {
      case Kind::kInput:
        values[p] = input_nodes[static_cast<size_t>(source.index)]->value;
        break;
      case Kind::kCarried: {
        const auto r = static_cast<size_t>(source.index);
        if (r >= results.values.size()) return "the step's state is gone";
        values[p] = results.values[r].lock();
        if (values[p] == nullptr || !DestinationsIntact(plan.destinations[r], values[p].get())) {
          return absl::StrCat("a state tensor ", source.shape.ToString(),
                              " was dropped, copied or reassigned outside the step");
        }
        if (r < checked.size()) checked[r] = true;
        break;
      }
      case Kind::kFixed:
        values[p] = source.fixed;
        break;
      case Kind::kExternal:
        values[p] = source.external.lock();
        if (values[p] == nullptr) {
          return absl::StrCat("a tensor ", source.shape.ToString(),
                              " the step reads from outside is gone");
        }
        break;
    }
    if (!Readable(*values[p])) {
      return absl::StrCat("parameter ", p, " ", source.shape.ToString(),
                          " is donated or per-replica");
    }
  }
  return "";
}

// Why the captured donations and result handles no longer hold (empty when they do).
std::string CheckHandlesAndDonations(const Capture& plan, const ParameterValues& values,
                                     const CheckedResults& checked) {
  // One value read twice (e.g. an input that is also a state) changes what donation means.
  absl::InlinedVector<const DeviceValue*, 16> sorted;
  sorted.reserve(values.size());
  for (const auto& value : values) sorted.push_back(value.get());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return "one tensor is read as two parameters";
  }
  // Handles assigned a result that no later step reads (e.g. a tensor fn stored outside).
  // (Those of carried results were checked with their values by GatherParameters.)
  for (size_t r = 0; r < plan.destinations.size(); ++r) {
    if (!checked[r] && !DestinationsIntact(plan.destinations[r], nullptr)) {
      return absl::StrCat("a tensor handle that result ", r,
                          " was assigned to was dropped or copied");
    }
  }
  for (const ir::Alias& alias : plan.aliases) {
    const auto p = static_cast<size_t>(alias.parameter_index);
    const auto r = static_cast<size_t>(plan.sources[p].index);
    if (!SafeToDonate(values[p], plan.destinations[r])) {
      return absl::StrCat("parameter ", p, " ", plan.sources[p].shape.ToString(),
                          " cannot be donated (another tensor or recorded op holds it)");
    }
  }
  return "";
}

}  // namespace

absl::StatusOr<std::vector<NodePtr>> ReplayStep(
    const Capture& plan, const std::vector<std::shared_ptr<TensorImpl>>& inputs,
    StepResults& results, std::string* why_not) {
  why_not->clear();
  // The guards read the values the run will use: they and the run are one step.
  Runtime& rt = CurrentRuntime();
  const StepLock lock = rt.LockSteps();
  SEAM_ASSIGN_OR_RETURN(bool eager, rt.eager());
  if (eager) {
    *why_not = "eager mode is on";
  } else if (inputs.size() != plan.inputs.size()) {
    *why_not = absl::StrCat(inputs.size(), " inputs instead of ", plan.inputs.size());
  }
  ParameterValues values;
  CheckedResults checked(plan.destinations.size(), false);
  if (why_not->empty()) *why_not = GatherParameters(plan, inputs, results, values, checked);
  if (why_not->empty()) *why_not = CheckHandlesAndDonations(plan, values, checked);
  if (!why_not->empty()) return std::vector<NodePtr>();

  // The guards passed: from here on this is the step barrier, with the captured program.
  ReplayRun request;
  request.parameters = values;
  request.computation = plan.computation;
  request.donations = plan.aliases;
  thread_local StepResult step;
  absl::Cleanup release = [] {
    step.computation = nullptr;
    step.outputs.clear();
  };
  {
    const trace::Span span("compiled step replay", "step");  // its crossings nest inside
    SEAM_RETURN_IF_ERROR(RunReplay(lock, request, step));
  }
  std::vector<ComputationClient::DataPtr>& outputs = step.outputs[0];
  std::vector<NodePtr> leaves;
  leaves.reserve(outputs.size());
  for (size_t r = 0; r < outputs.size(); ++r) {
    auto value = NewDeviceValue();
    value->shape = plan.result_shapes[r];
    value->device = std::move(outputs[r]);
    results.values[r] = value;
    NodePtr leaf = MakeLeaf(std::move(value));
    for (const Destination& destination : plan.destinations[r]) {
      std::shared_ptr<TensorImpl> handle = destination.handle.lock();
      handle->set_leaf(leaf);
    }
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

}  // namespace seam::lazy
