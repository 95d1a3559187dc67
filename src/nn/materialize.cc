#include "src/nn/materialize.h"

#include <memory>

#include "absl/status/status.h"
#include "src/lazy/graph_executor.h"
#include "src/lazy/tensor_internal.h"

namespace seam::nn {

void MaterializeNow(const std::vector<Tensor*>& tensors, const char* what) {
  std::vector<std::shared_ptr<lazy::TensorImpl>> pending;
  for (Tensor* t : tensors) {
    if (t->has_pending_ops()) pending.push_back(TensorAccess::Impl(*t, what));
  }
  if (pending.empty()) return;
  if (absl::Status s = lazy::SyncTensors(pending, /*donate=*/false); !s.ok()) lazy::Throw(s);
}

}  // namespace seam::nn
