#include "src/lazy/step_capture.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/ir/bf16.h"

namespace seam::lazy {
namespace {

using Kind = ParameterSource::Kind;

std::string KindName(const ParameterSource& source) {
  switch (source.kind) {
    case Kind::kInput:
      return absl::StrCat("input ", source.index);
    case Kind::kCarried:
      return absl::StrCat("state from result ", source.index);
    case Kind::kFixed:
      return "a fixed value created in the step";
    case Kind::kExternal:
      return "a tensor read from outside the step";
  }
  return "?";
}

// A scalar's value as text (the fixed values that change are mostly hyperparameters).
std::string ValueText(const DeviceValue& value) {
  if (!value.host.has_value() || value.shape.num_elements() != 1) return "";
  const uint8_t* bytes = value.host->bytes.data();
  switch (value.shape.dtype) {
    case ir::DType::kF32: {
      float v;
      std::memcpy(&v, bytes, sizeof v);
      return absl::StrCat(v);
    }
    case ir::DType::kF64: {
      double v;
      std::memcpy(&v, bytes, sizeof v);
      return absl::StrCat(v);
    }
    case ir::DType::kS32: {
      int32_t v;
      std::memcpy(&v, bytes, sizeof v);
      return absl::StrCat(v);
    }
    case ir::DType::kS64: {
      int64_t v;
      std::memcpy(&v, bytes, sizeof v);
      return absl::StrCat(v);
    }
    case ir::DType::kBF16: {
      uint16_t v;
      std::memcpy(&v, bytes, sizeof v);
      return absl::StrCat(ir::BF16ToFloat(v));
    }
    case ir::DType::kPred:
      return bytes[0] != 0 ? "true" : "false";
  }
  return "";
}

bool SameHostBytes(const DeviceValue& a, const DeviceValue& b) {
  return a.shape == b.shape && a.host.has_value() && b.host.has_value() &&
         a.host->bytes == b.host->bytes;
}

}  // namespace

void Capture::Reject(std::string why) {
  if (!replayable) return;  // keep the first reason
  replayable = false;
  why_not = std::move(why);
}

StepRecorder::StepRecorder(const std::vector<std::shared_ptr<TensorImpl>>& inputs,
                           const StepResults& previous)
    : previous_observer_(SetBarrierObserver(this)), previous_(previous) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodePtr node = inputs[i]->node();
    capture_.inputs.push_back(node->shape);
    if (!node->is_leaf()) {
      capture_.Reject(absl::StrCat("input ", i, " has pending operations"));
      input_values_.push_back(nullptr);
      continue;
    }
    for (size_t j = 0; j < i; ++j) {
      if (input_values_[j] == node->value.get()) {
        capture_.Reject(absl::StrCat("inputs ", j, " and ", i, " are the same tensor"));
      }
    }
    input_values_.push_back(node->value.get());
  }
  // What exists before fn runs, on any thread; a value fn reads that is none of these was
  // made by fn.
  for (const std::shared_ptr<TensorImpl>& live : LiveTensors()) {
    NodePtr node = live->node();
    if (node->is_leaf()) preexisting_.insert(node->value.get());
  }
  // This thread's pending tensors would join the step's barrier (other threads' would not).
  for (const std::shared_ptr<TensorImpl>& live : ThreadLiveTensors()) {
    if (!live->node()->is_leaf()) {
      capture_.Reject("tensors had pending operations before the call");
      break;
    }
  }
}

StepRecorder::~StepRecorder() { SetBarrierObserver(previous_observer_); }

// An enclosing compiled step's recorder (a compiled step called inside another step
// function) sees every barrier and read of this one too.
void StepRecorder::OnHostRead() {
  if (previous_observer_ != nullptr) previous_observer_->OnHostRead();
  if (in_barrier_) return;
  capture_.graph_break = true;
  capture_.Reject("the step function reads a tensor on the host (item, to_vector)");
}

void StepRecorder::OnBarrier(const BarrierRecord& record) {
  if (previous_observer_ != nullptr) previous_observer_->OnBarrier(record);
  if (!in_barrier_) {
    capture_.graph_break = true;
    capture_.Reject(record.donate ? "the step function calls seam::sync"
                                  : "the step function reads a tensor on the host");
    return;
  }
  if (saw_barrier_) {
    capture_.Reject("the step ran more than one barrier");
    return;
  }
  saw_barrier_ = true;
  if (record.replicated) {
    capture_.Reject("the step is data parallel (replicated)");
    return;
  }
  Classify(record);
}

void StepRecorder::Classify(const BarrierRecord& record) {
  capture_.computation = record.computation;
  capture_.aliases = *record.aliases;
  const auto& parameters = *record.parameters;
  for (size_t p = 0; p < parameters.size(); ++p) {
    const DeviceValue* value = parameters[p].get();
    ParameterSource source;
    source.shape = value->shape;
    if (value->replicas != nullptr) capture_.Reject("a value is per-replica");
    bool found = false;
    for (size_t i = 0; i < input_values_.size() && !found; ++i) {
      if (input_values_[i] == value) {
        source.kind = Kind::kInput;
        source.index = static_cast<int64_t>(i);
        found = true;
      }
    }
    for (size_t r = 0; r < previous_.values.size() && !found; ++r) {
      if (previous_.carried[r] && previous_.values[r].lock().get() == value) {
        source.kind = Kind::kCarried;
        source.index = static_cast<int64_t>(r);
        found = true;
      }
    }
    if (!found && preexisting_.contains(value)) {
      source.kind = Kind::kExternal;
      source.external = parameters[p];
      found = true;
    }
    if (!found && value->host.has_value()) {
      source.kind = Kind::kFixed;
      source.fixed = parameters[p];
      found = true;
    }
    if (!found) capture_.Reject(absl::StrCat("parameter ", p, " has a value of unknown origin"));
    capture_.sources.push_back(std::move(source));
  }
  for (const ir::Alias& alias : capture_.aliases) {
    const ParameterSource& source = capture_.sources[static_cast<size_t>(alias.parameter_index)];
    if (source.kind != Kind::kCarried) {
      capture_.Reject(absl::StrCat("parameter ", alias.parameter_index, " (", KindName(source),
                                   ") is donated"));
    }
  }
  const auto& results = *record.results;
  capture_.destinations.resize(results.size());
  destination_handles_.resize(results.size());
  capture_.results.values.reserve(results.size());
  for (const NodePtr& leaf : results) {
    capture_.result_shapes.push_back(leaf->shape);
    capture_.results.values.push_back(leaf->value);
  }
  for (size_t k = 0; k < record.pending->size(); ++k) {
    destination_handles_[(*record.result_of)[k]].push_back((*record.pending)[k]);
  }
}

Capture StepRecorder::Finish(const std::vector<std::shared_ptr<TensorImpl>>& outputs) {
  if (!saw_barrier_) capture_.Reject("the step computes nothing");
  for (size_t k = 0; k < outputs.size() && capture_.replayable; ++k) {
    NodePtr node = outputs[k]->node();
    int64_t result = -1;
    for (size_t r = 0; r < capture_.results.values.size(); ++r) {
      if (node->is_leaf() && capture_.results.values[r].lock() == node->value) {
        result = static_cast<int64_t>(r);
      }
    }
    if (result < 0) capture_.Reject(absl::StrCat("output ", k, " is not computed by the step"));
    capture_.output_result.push_back(result);
  }
  capture_.results.carried.assign(destination_handles_.size(), false);
  for (size_t r = 0; r < destination_handles_.size(); ++r) {
    for (std::shared_ptr<TensorImpl>& handle : destination_handles_[r]) {
      bool is_output = false;
      for (const auto& output : outputs) is_output = is_output || output == handle;
      if (is_output) continue;
      // Holders besides this list: the Tensor objects that share the handle.
      long holders = handle.use_count() - 1;
      capture_.destinations[r].push_back({handle, holders});
      capture_.results.carried[r] = true;
    }
    destination_handles_[r].clear();
  }
  return std::move(capture_);
}

std::string DescribeChange(const Capture& before, const Capture& after, bool* guarded) {
  bool ignored;
  if (guarded == nullptr) guarded = &ignored;
  *guarded = true;
  if (before.inputs.size() != after.inputs.size()) {
    return absl::StrCat("the number of inputs changed from ", before.inputs.size(), " to ",
                        after.inputs.size());
  }
  for (size_t i = 0; i < before.inputs.size(); ++i) {
    if (!(before.inputs[i] == after.inputs[i])) {
      return absl::StrCat("input ", i, " changed from ", before.inputs[i].ToString(), " to ",
                          after.inputs[i].ToString());
    }
  }
  *guarded = false;
  if (before.computation != after.computation) {
    return "the step's program changed (another compile-cache entry)";
  }
  if (before.sources.size() != after.sources.size()) {
    return absl::StrCat("the number of program parameters changed from ", before.sources.size(),
                        " to ", after.sources.size());
  }
  for (size_t p = 0; p < before.sources.size(); ++p) {
    const ParameterSource& a = before.sources[p];
    const ParameterSource& b = after.sources[p];
    if (a.kind != b.kind || a.index != b.index || !(a.shape == b.shape)) {
      return absl::StrCat("parameter ", p, " ", b.shape.ToString(), " was ", KindName(a),
                          " and is now ", KindName(b));
    }
    if (a.kind == Kind::kFixed && !SameHostBytes(*a.fixed, *b.fixed)) {
      std::string was = ValueText(*a.fixed), now = ValueText(*b.fixed);
      return absl::StrCat("a fixed value: parameter ", p, " ", b.shape.ToString(), " changed",
                          was.empty() ? "" : absl::StrCat(" from ", was, " to ", now),
                          ": pass it as an input");
    }
    if (a.kind == Kind::kExternal && a.external.lock() != b.external.lock()) {
      return absl::StrCat("parameter ", p, " ", b.shape.ToString(),
                          " reads another tensor from outside the step: pass it as an input");
    }
  }
  if (before.output_result != after.output_result) return "the outputs changed";
  *guarded = true;
  if (!(before.aliases == after.aliases)) {
    return absl::StrCat("the donations changed (", before.aliases.size(), " then ",
                        after.aliases.size(), " input/output aliases)");
  }
  if (before.destinations.size() != after.destinations.size()) {
    return absl::StrCat("the number of results changed from ", before.destinations.size(), " to ",
                        after.destinations.size());
  }
  for (size_t r = 0; r < before.destinations.size(); ++r) {
    const auto& a = before.destinations[r];
    const auto& b = after.destinations[r];
    bool same = a.size() == b.size();
    for (size_t d = 0; same && d < a.size(); ++d) same = a[d].holders == b[d].holders;
    if (!same) {
      return absl::StrCat("result ", r, " ", after.result_shapes[r].ToString(),
                          " is assigned to other tensor handles than before");
    }
  }
  return "";
}

}  // namespace seam::lazy
