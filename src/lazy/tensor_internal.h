// Helpers shared by the files that implement seam::Tensor's operations (src/lazy/ops_*.cc,
// autodiff.cc, src/nn): wrapping nodes in tensors and back. Part of the implementation of
// include/seam/tensor.h (scripts/check-modules.py counts it as that module); the node-level
// operations they call are in src/lazy/node_ops.h, which the step machinery uses too.
#ifndef SEAM_LAZY_TENSOR_INTERNAL_H_
#define SEAM_LAZY_TENSOR_INTERNAL_H_

#include <memory>
#include <vector>

#include "seam/tensor.h"
#include "src/lazy/lazy_tensor.h"
#include "src/lazy/node_ops.h"

namespace seam {

class TensorAccess {
 public:
  static Tensor Wrap(lazy::NodePtr node);
  static const std::shared_ptr<lazy::TensorImpl>& Impl(const Tensor& tensor, const char* what);
};

namespace lazy {

NodePtr NodeOf(const Tensor& tensor, const char* what);

// seam::grad, with errors naming `caller` ("optimizer step" for an optimizer's parameters).
std::vector<Tensor> Gradients(const char* caller, const Tensor& loss,
                              const std::vector<Tensor>& params);
inline Tensor Wrap(NodePtr node) { return TensorAccess::Wrap(std::move(node)); }

ir::DType ToIr(DType dtype);
DType FromIr(ir::DType dtype);

}  // namespace lazy
}  // namespace seam

#endif  // SEAM_LAZY_TENSOR_INTERNAL_H_
