// nn::embedding, nn::gelu (exact) and the nn::Embedding module (include/seam/nn.h,
// docs/frontend.md "Indexing and embeddings"). embedding records one IR gather; its
// gradient is a scatter_add (src/lazy/autodiff_index.cc).
#include <string>

#include "absl/strings/str_cat.h"
#include "seam/nn.h"
#include "src/lazy/tensor_internal.h"

namespace seam::nn {

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  lazy::NodePtr table = lazy::NodeOf(weight, "embedding");
  lazy::NodePtr ids = lazy::NodeOf(indices, "embedding");
  if (table->shape.rank() != 2) {
    lazy::ThrowInvalid(absl::StrCat("embedding: weight must be [num_embeddings, dim], got ",
                                    table->shape.ToString()));
  }
  if (ids->shape.dtype != ir::DType::kS32 && ids->shape.dtype != ir::DType::kS64) {
    lazy::ThrowInvalid(absl::StrCat("embedding: indices must be int32 or int64, got ",
                                    dtype_name(lazy::FromIr(ids->shape.dtype)), " (",
                                    ids->shape.ToString(), ")"));
  }
  const int64_t rank = ids->shape.rank();
  return lazy::Wrap(lazy::MakeNode(ir::Op::kGather, {table, ids},
                                   {{"offset_dims", {rank}},
                                    {"collapsed_slice_dims", {0}},
                                    {"start_index_map", {0}},
                                    {"index_vector_dim", {rank}},
                                    {"slice_sizes", {1, table->shape.dims[1]}}}));
}

Tensor gelu(const Tensor& x) {
  // x/2 * (1 + erf(x / sqrt(2))), PyTorch's default (approximate="none"), written as
  // x * (erf(x / sqrt(2)) / 2 + 1/2) so that the gradient needs Phi(x) and x (an input
  // anyway), not x/2 and 1 + erf as well: one large intermediate fewer kept for backward.
  return x * ((x * 0.7071067811865476).erf() * 0.5 + 0.5);
}

Embedding::Embedding(int64_t num_embeddings, int64_t dim, uint64_t seed, DType dtype)
    : weight(Tensor::randn({num_embeddings, dim}, seed, dtype)) {}

Tensor Embedding::forward(const Tensor& indices) const { return embedding(weight, indices); }

std::vector<NamedParameter> Embedding::named_parameters() { return {{"weight", &weight, false}}; }

}  // namespace seam::nn
