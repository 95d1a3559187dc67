// seam::share_memory (include/seam/interop.h): a computed tensor's device buffer handed
// out in place where the client can.
#include "seam/interop.h"

#include "src/lazy/graph_executor.h"
#include "src/lazy/lazy_tensor.h"
#include "src/lazy/runtime.h"
#include "src/lazy/tensor_internal.h"

namespace seam {

std::optional<SharedMemory> share_memory(const Tensor& t) {
  const std::shared_ptr<lazy::TensorImpl>& impl = TensorAccess::Impl(t, "share_memory");
  absl::Status synced = lazy::SyncTensors({impl}, /*donate=*/false);
  if (!synced.ok()) lazy::Throw(synced);
  lazy::Runtime& rt = lazy::CurrentRuntime();
  runtime::ComputationClient::DataPtr device;
  {
    const lazy::StepLock lock = rt.LockSteps();
    lazy::NodePtr node = impl->node();
    const lazy::DeviceValue* value = node->value.get();
    if (value == nullptr || value->device == nullptr || value->replicas != nullptr ||
        value->donated.load() || value->buffer_donor.load()) {
      return std::nullopt;
    }
    device = value->device;
  }
  absl::Status ready = device->AwaitReady();
  if (!ready.ok()) lazy::Throw(ready);
  absl::StatusOr<runtime::ComputationClient*> client = rt.client();
  if (!client.ok()) lazy::Throw(client.status());
  absl::StatusOr<runtime::ComputationClient::SharedHostMemory> shared =
      (*client)->ShareHostMemory(device);
  if (!shared.ok()) return std::nullopt;  // Unimplemented, or a blocked layout: copy
  return SharedMemory{shared->data, std::move(shared->owner)};
}

}  // namespace seam
