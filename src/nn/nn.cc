#include "seam/nn.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/lazy/tensor_internal.h"

namespace seam::nn {

namespace {

// PyTorch's bounds for Linear's weight and bias: U(-1/sqrt(in), 1/sqrt(in)).
double LinearBound(int64_t in) { return in > 0 ? 1.0 / std::sqrt(static_cast<double>(in)) : 0.0; }

// Tensor::uniform's draws for an [in, out] array, transposed on the host to [out, in]: the
// values a seeded Linear had when it kept [in, out], so seeded models (and the curves and
// checkpoints made from them) keep their initial state dicts.
Tensor TransposedUniform(int64_t in, int64_t out, double bound, uint64_t seed, DType dtype) {
  const bool is_float =
      dtype == DType::kFloat32 || dtype == DType::kBFloat16 || dtype == DType::kFloat64;
  if (in < 0 || out < 0 || !is_float) {
    return Tensor::uniform({out, in}, -bound, bound, seed, dtype);  // its error names them
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-bound, bound);
  std::vector<double> drawn(static_cast<size_t>(in * out));
  for (double& v : drawn) v = dist(rng);
  std::vector<double> values(drawn.size());
  for (int64_t i = 0; i < in; ++i) {
    for (int64_t o = 0; o < out; ++o) values[o * in + i] = drawn[i * out + o];
  }
  if (dtype == DType::kFloat64) return Tensor::from_vector(values, {out, in});
  // Each double rounded to float, then (bfloat16) once more: Tensor::uniform's rounding.
  return Tensor::from_vector(std::vector<float>(values.begin(), values.end()), {out, in}, dtype);
}

}  // namespace

Linear::Linear(int64_t in, int64_t out, uint64_t seed, DType dtype) {
  const double bound = LinearBound(in);
  weight = TransposedUniform(in, out, bound, seed, dtype);
  bias = Tensor::uniform({out}, -bound, bound, seed ^ 0x9e3779b97f4a7c15ull, dtype);
}

Linear::Linear(int64_t in, int64_t out, DType dtype) {
  // The weight's draw, then the bias's, as Python's seam.nn.Linear makes them.
  const double bound = LinearBound(in);
  weight = Tensor::uniform({out, in}, -bound, bound, next_init_seed(), dtype);
  bias = Tensor::uniform({out}, -bound, bound, next_init_seed(), dtype);
}

Tensor Linear::forward(const Tensor& x) const { return linear(x, weight) + bias; }

Tensor linear(const Tensor& x, const Tensor& weight) {
  const lazy::NodePtr xn = lazy::NodeOf(x, "linear");
  const lazy::NodePtr wn = lazy::NodeOf(weight, "linear");
  const int64_t rank = xn->shape.rank();
  if (wn->shape.rank() != 2 || rank < 1 || xn->shape.dims[rank - 1] != wn->shape.dims[1] ||
      xn->shape.dtype != wn->shape.dtype) {
    lazy::ThrowInvalid(absl::StrCat("linear: the weight ", wn->shape.ToString(),
                                    " is not [out, in] of the input ", xn->shape.ToString(),
                                    "'s element type and last dimension"));
  }
  return lazy::Wrap(lazy::DotGeneral(xn, wn, {rank - 1}, {1}));
}

Sequential::Sequential(std::vector<std::shared_ptr<Module>> modules) {
  for (auto& module : modules) add(std::move(module));
}

Sequential& Sequential::add(std::shared_ptr<Module> module) {
  if (module == nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("Sequential: module ", modules.size(), " is null"));
  }
  modules.push_back(std::move(module));
  return *this;
}

Tensor Sequential::forward(const Tensor& x) const {
  Tensor h = x;
  for (const auto& module : modules) h = module->forward(h);
  return h;
}

void Module::train(bool mode) {
  training_ = mode;
  for (Module* child : children()) child->train(mode);
}

std::vector<Module*> Sequential::children() {
  std::vector<Module*> out;
  out.reserve(modules.size());
  for (const auto& module : modules) out.push_back(module.get());
  return out;
}

std::vector<Tensor*> Sequential::parameters() {
  std::vector<Tensor*> params;
  for (const auto& module : modules) {
    for (Tensor* p : module->parameters()) params.push_back(p);
  }
  return params;
}

Mlp::Mlp(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype) {
  if (sizes.size() < 2)
    throw Error(ErrorCode::kInvalidArgument, "Mlp: needs at least an input and an output size");
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    layers.emplace_back(sizes[i], sizes[i + 1], seed + 1000 * i, dtype);
  }
}

Mlp::Mlp(const std::vector<int64_t>& sizes, DType dtype) {
  if (sizes.size() < 2)
    throw Error(ErrorCode::kInvalidArgument, "Mlp: needs at least an input and an output size");
  for (size_t i = 0; i + 1 < sizes.size(); ++i) layers.emplace_back(sizes[i], sizes[i + 1], dtype);
}

Tensor Mlp::forward(const Tensor& x) const {
  Tensor h = x;
  for (size_t i = 0; i < layers.size(); ++i) {
    h = layers[i].forward(h);
    if (i + 1 < layers.size()) h = h.relu();
  }
  return h;
}

std::vector<Tensor*> Mlp::parameters() {
  std::vector<Tensor*> params;
  for (Linear& layer : layers) {
    params.push_back(&layer.weight);
    params.push_back(&layer.bias);
  }
  return params;
}

Tensor relu(const Tensor& x) { return x.relu(); }

namespace {

// Each problem is named on its own: the labels' dtype, then the ranks, then the row counts.
void CheckLabels(const char* op, const Tensor& logits, const Tensor& labels) {
  const auto& ls = logits.shape();
  const auto& ys = labels.shape();
  if (labels.dtype() != DType::kInt32 && labels.dtype() != DType::kInt64) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat(op, ": the labels must be int32 or int64 class indices, got ",
                             dtype_name(labels.dtype()), " labels [", absl::StrJoin(ys, ","),
                             "] (convert them with .to(DType::kInt32))"));
  }
  if (ls.size() != 2 || ys.size() != 1 || ys[0] != ls[0]) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat(op, ": logits [", absl::StrJoin(ls, ","), "] and labels [",
                             absl::StrJoin(ys, ","), "] do not match (want [n,classes] and [n])"));
  }
}

}  // namespace

Tensor cross_entropy(const Tensor& logits, const Tensor& labels) {
  CheckLabels("cross_entropy", logits, labels);
  const lazy::NodePtr node = lazy::NodeOf(logits, "cross_entropy");
  lazy::UserOpScope scope("cross_entropy", node->shape);
  int64_t classes = logits.shape()[1];
  // one_hot[i, c] = (c == label[i]), from iota + eq + convert.
  Tensor one_hot =
      eq(Tensor::arange(classes, labels.dtype()).reshape({1, classes}), labels.reshape({-1, 1}))
          .to(logits.dtype());
  return -(logits.log_softmax(1) * one_hot).sum({1}).mean();
}

Tensor correct_count(const Tensor& logits, const Tensor& labels) {
  CheckLabels("correct_count", logits, labels);
  return eq(logits.argmax(1).to(labels.dtype()), labels).to(DType::kInt32).sum();
}

double accuracy(const Tensor& logits, const Tensor& labels) {
  int32_t correct = correct_count(logits, labels).item<int32_t>();
  return static_cast<double>(correct) / static_cast<double>(labels.shape()[0]);
}

}  // namespace seam::nn
