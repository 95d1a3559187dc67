// Scaled dot-product attention, MultiheadAttention and the pre-norm TransformerBlock
// (include/seam/nn.h, docs/frontend.md "Attention"). Composed from dot_general, softmax,
// select and reshapes, so autodiff differentiates them like any other expression.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "seam/nn.h"
#include "src/lazy/tensor_internal.h"

namespace seam::nn {
namespace {

std::string Described(const Tensor& t) {
  return absl::StrCat(dtype_name(t.dtype()), "[", absl::StrJoin(t.shape(), ","), "]");
}

[[noreturn]] void ThrowSdpa(const Tensor& q, const Tensor& k, const Tensor& v,
                            const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument,
              absl::StrCat("scaled_dot_product_attention: query ", Described(q), ", key ",
                           Described(k), " and value ", Described(v), " do not fit: ", why));
}

void CheckSdpa(const Tensor& q, const Tensor& k, const Tensor& v) {
  const DType dtype = q.dtype();
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kBFloat16) {
    ThrowSdpa(q, k, v, "they must be floating-point tensors");
  }
  if (k.dtype() != dtype || v.dtype() != dtype) ThrowSdpa(q, k, v, "their dtypes differ");
  const size_t rank = q.shape().size();
  if (rank < 2 || k.shape().size() != rank || v.shape().size() != rank) {
    ThrowSdpa(q, k, v, "they must have one rank, at least 2 ([..., L, E])");
  }
  const std::vector<int64_t> batch(q.shape().begin(), q.shape().end() - 2);
  if (std::vector<int64_t>(k.shape().begin(), k.shape().end() - 2) != batch ||
      std::vector<int64_t>(v.shape().begin(), v.shape().end() - 2) != batch) {
    ThrowSdpa(q, k, v, "their leading (batch) dimensions differ");
  }
  if (k.shape()[rank - 1] != q.shape()[rank - 1]) {
    ThrowSdpa(q, k, v,
              absl::StrCat("the embedding size (last dim) of query is ", q.shape()[rank - 1],
                           ", of key ", k.shape()[rank - 1]));
  }
  if (v.shape()[rank - 2] != k.shape()[rank - 2]) {
    ThrowSdpa(q, k, v,
              absl::StrCat("key has ", k.shape()[rank - 2], " positions (dim -2), value has ",
                           v.shape()[rank - 2]));
  }
}

// keep[i, j] = (j <= i) for a query position i and a key position j, as PyTorch's is_causal
// (torch.ones(L, S).tril()), built from iotas so the program holds no data for it.
Tensor CausalKeep(int64_t queries, int64_t keys) {
  return ge(Tensor::arange(queries).reshape({queries, 1}), Tensor::arange(keys).reshape({1, keys}));
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    bool is_causal) {
  CheckSdpa(q, k, v);
  const lazy::NodePtr qn = lazy::NodeOf(q, "scaled_dot_product_attention");
  const lazy::NodePtr kn = lazy::NodeOf(k, "scaled_dot_product_attention");
  lazy::UserOpScope scope("scaled_dot_product_attention", qn->shape);
  const auto rank = static_cast<int64_t>(q.shape().size());
  const int64_t queries = q.shape()[rank - 2], keys = k.shape()[rank - 2];
  const int64_t embed = q.shape()[rank - 1];
  // scores[..., i, j] = sum_e q[..., i, e] k[..., j, e]: one dot_general contracting the last
  // dims of both, so key is never transposed in memory.
  std::vector<int64_t> batch_axes;
  for (int64_t i = 0; i + 2 < rank; ++i) batch_axes.push_back(i);
  Tensor scores =
      lazy::Wrap(lazy::DotGeneral(qn, kn, {rank - 1}, {rank - 1}, batch_axes, batch_axes));
  scores = scores * (1.0 / std::sqrt(static_cast<double>(embed)));
  if (is_causal) {
    const Tensor minus_inf = lazy::Wrap(lazy::ConstantNode(
        lazy::ScalarLiteral(lazy::ToIr(q.dtype()), -std::numeric_limits<double>::infinity())));
    scores = where(CausalKeep(queries, keys), scores, minus_inf);
  }
  return scores.softmax(rank - 1).matmul(v);
}

static int64_t CheckedEmbedDim(int64_t embed_dim, int64_t num_heads) {
  if (embed_dim <= 0 || num_heads <= 0 || embed_dim % num_heads != 0) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("MultiheadAttention: embed_dim (", embed_dim,
                             ") must be a positive multiple of num_heads (", num_heads, ")"));
  }
  return embed_dim;
}

MultiheadAttention::MultiheadAttention(int64_t embed_dim, int64_t num_heads, uint64_t seed,
                                       DType dtype)
    : embed_dim(CheckedEmbedDim(embed_dim, num_heads)),
      num_heads(num_heads),
      // out_proj is an nn.Linear (Kaiming-uniform weight) whose bias PyTorch then zeroes.
      out_proj(embed_dim, embed_dim, seed ^ 0x5851f42d4c957f2dull, dtype) {
  // xavier_uniform_ on PyTorch's [3E, E] in_proj_weight: bound sqrt(6 / (E + 3E)).
  const double in_bound = std::sqrt(6.0 / static_cast<double>(4 * embed_dim));
  in_proj_weight = Tensor::uniform({embed_dim, 3 * embed_dim}, -in_bound, in_bound, seed, dtype);
  in_proj_bias = Tensor::zeros({3 * embed_dim}, dtype);
  out_proj.bias = Tensor::zeros({embed_dim}, dtype);
}

Tensor MultiheadAttention::forward(const Tensor& x) const { return forward(x, false); }

Tensor MultiheadAttention::forward(const Tensor& x, bool is_causal) const {
  const std::vector<int64_t>& shape = x.shape();
  if ((shape.size() != 3 && shape.size() != 2) || shape.back() != embed_dim) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("MultiheadAttention: the input must be [N, L, ", embed_dim,
                             "] (batch_first) or [L, ", embed_dim, "], got ", Described(x)));
  }
  if (shape.size() == 2)
    return forward(x.reshape({1, shape[0], shape[1]}), is_causal).reshape(shape);
  const int64_t n = shape[0], len = shape[1], heads = num_heads, dim = embed_dim / num_heads;
  // q, k and v each from its third of the projection ([E, E] columns of in_proj_weight),
  // then [N, L, E] -> [N, L, H, D] -> [N, H, L, D]. Slicing the small weight instead of the
  // [N, L, 3E] product keeps the slices' gradients (zero-padded copies, summed) at the
  // weight's size: on the width-256 step that is 3 x 196K elements instead of 3 x 1.5M.
  const auto part = [&](int64_t i) {
    const Tensor w = in_proj_weight.slice(1, i * embed_dim, (i + 1) * embed_dim);
    const Tensor b = in_proj_bias.slice(0, i * embed_dim, (i + 1) * embed_dim);
    return (x.matmul(w) + b).reshape({n, len, heads, dim}).permute({0, 2, 1, 3});
  };
  const Tensor heads_out = scaled_dot_product_attention(part(0), part(1), part(2), is_causal);
  return out_proj.forward(heads_out.permute({0, 2, 1, 3}).reshape({n, len, embed_dim}));
}

std::vector<Tensor*> MultiheadAttention::parameters() {
  return {&in_proj_weight, &in_proj_bias, &out_proj.weight, &out_proj.bias};
}

std::vector<NamedParameter> MultiheadAttention::named_parameters() {
  return {{"in_proj_weight", &in_proj_weight, /*transposed=*/true},
          {"in_proj_bias", &in_proj_bias, false},
          {"out_proj.weight", &out_proj.weight, false},
          {"out_proj.bias", &out_proj.bias, false}};
}

TransformerBlock::TransformerBlock(int64_t width, int64_t num_heads, uint64_t seed, bool causal,
                                   DType dtype)
    : causal(causal),
      ln_1({width}, 1e-5, dtype),
      attn(width, num_heads, seed, dtype),
      ln_2({width}, 1e-5, dtype),
      mlp({std::make_shared<Linear>(width, 4 * width, seed + 1, dtype),
           std::make_shared<Lambda>([](const Tensor& h) { return nn::gelu(h); }),
           std::make_shared<Linear>(4 * width, width, seed + 2, dtype)}) {}

Tensor TransformerBlock::forward(const Tensor& x) const {
  const Tensor h = x + nn::dropout(attn.forward(ln_1.forward(x), causal), dropout, is_training());
  return h + nn::dropout(mlp.forward(ln_2.forward(h)), dropout, is_training());
}

std::vector<Tensor*> TransformerBlock::parameters() {
  std::vector<Tensor*> params;
  for (const NamedParameter& p : named_parameters()) params.push_back(p.tensor);
  return params;
}

std::vector<NamedParameter> TransformerBlock::named_parameters() {
  std::vector<NamedParameter> params;
  const auto add = [&](const std::string& prefix, std::vector<NamedParameter> more) {
    for (NamedParameter& p : more) {
      p.name = prefix + p.name;
      params.push_back(std::move(p));
    }
  };
  add("ln_1.", ln_1.named_parameters());
  add("attn.", attn.named_parameters());
  add("ln_2.", ln_2.named_parameters());
  add("mlp.", mlp.named_parameters());
  return params;
}

std::vector<Module*> TransformerBlock::children() { return {&ln_1, &attn, &ln_2, &mlp}; }

}  // namespace seam::nn
