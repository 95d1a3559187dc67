// The step barrier: lowers pending graphs to one program and runs it through the seam.
#ifndef SEAM_LAZY_GRAPH_EXECUTOR_H_
#define SEAM_LAZY_GRAPH_EXECUTOR_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "src/ir/program.h"
#include "src/lazy/lazy_tensor.h"
#include "src/runtime/computation_client.h"

namespace seam::lazy {

// For every tensor with pending operations: one step over all of them (the program of
// their graphs, run through the step runner, src/lazy/step_runner.h), after which each
// tensor points at its new device value. Tensors without pending operations are left
// alone. With `donate` (the step barrier, seam::sync, counted as MarkStep even when
// nothing is pending), tensors overwritten by `assign` give their old device buffer to the
// program when nothing else holds it (src/lazy/donation.h). A compile-cache miss is
// reported to the recompile explainer under the current sync site. A step whose values are
// per-replica runs on every replica (src/lazy/replicated.h).
absl::Status SyncTensors(const std::vector<std::shared_ptr<TensorImpl>>& tensors,
                         bool donate = false);

// The tensor's value on the host (syncing the tensor first if it has pending operations;
// a host read never donates). `op` names the caller in errors.
absl::StatusOr<ir::Literal> ReadTensor(const std::shared_ptr<TensorImpl>& tensor,
                                       std::string_view op = "to_vector");
// ReadTensor into caller memory of exactly the tensor's byte size (an error names both).
absl::Status ReadTensorInto(const std::shared_ptr<TensorImpl>& tensor, std::string_view op,
                            absl::Span<uint8_t> destination);

// What one step barrier ran, as seen by a BarrierObserver (seam::compile's capture,
// src/lazy/step_capture.h). The pointers are valid during the call only.
struct BarrierRecord {
  bool donate = false;
  bool replicated = false;  // data parallel: nothing else below is set
  runtime::ComputationClient::ComputationPtr computation;
  const std::vector<std::shared_ptr<DeviceValue>>* parameters = nullptr;  // parameter p
  const std::vector<ir::Alias>* aliases = nullptr;
  const std::vector<std::shared_ptr<TensorImpl>>* pending = nullptr;  // tensors synced
  const std::vector<size_t>* result_of = nullptr;  // per pending tensor: its result
  const std::vector<NodePtr>* results = nullptr;   // per result: its new leaf
};

// Sees this thread's step barriers (after their program was launched) and host reads.
class BarrierObserver {
 public:
  virtual ~BarrierObserver() = default;
  virtual void OnBarrier(const BarrierRecord& record) = 0;
  virtual void OnHostRead() = 0;
};
// Installs `observer` for the calling thread (nullptr: none); returns the previous one.
BarrierObserver* SetBarrierObserver(BarrierObserver* observer);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_GRAPH_EXECUTOR_H_
