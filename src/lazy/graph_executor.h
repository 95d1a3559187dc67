// The step barrier: lowers pending graphs to one program and runs it through the seam.
#ifndef SEAM_LAZY_GRAPH_EXECUTOR_H_
#define SEAM_LAZY_GRAPH_EXECUTOR_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/program.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// A program built from the graphs of some nodes: results[i] is the value of roots[i];
// parameter p is the leaf value leaves[p] (distinct values, in first-use order).
struct LoweredGraph {
  ir::Program program;
  std::vector<std::shared_ptr<DeviceValue>> leaves;
};
LoweredGraph LowerGraph(const std::vector<NodePtr>& roots);

// Sends every value that exists only on the host to `device`, in one TransferToDevice.
absl::Status UploadLeaves(runtime::ComputationClient& client, const std::string& device,
                          const std::vector<std::shared_ptr<DeviceValue>>& leaves);

// For every tensor with pending operations: builds one program over all of them, sends
// the host values it needs (one TransferToDevice), compiles it unless the compile cache
// has it (CachedCompile / UncachedCompile), runs it, and points each tensor at its new
// device value. Tensors without pending operations are left alone. With `donate` (the
// step barrier, seam::sync), tensors overwritten by `assign` give their old device buffer
// to the program when nothing else holds it (src/lazy/donation.h). A compile-cache miss
// is reported to the recompile explainer under the current sync site.
absl::Status SyncTensors(const std::vector<std::shared_ptr<TensorImpl>>& tensors,
                         bool donate = false);

// The tensor's value on the host (syncing the tensor first if it has pending operations;
// a host read never donates). `op` names the caller in errors.
absl::StatusOr<ir::Literal> ReadTensor(const std::shared_ptr<TensorImpl>& tensor,
                                       std::string_view op = "to_vector");

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
