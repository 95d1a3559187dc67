// Layers and losses built from seam::Tensor operations (front-end code; see src/nn/).
#ifndef SEAM_NN_H_
#define SEAM_NN_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "seam/tensor.h"

namespace seam::nn {

// A parameter with its dotted name as PyTorch names the same parameter of the same
// architecture ("layers.0.weight"). `transposed`: PyTorch keeps it as the transpose of
// seam's layout (MultiheadAttention's in_proj_weight: seam [in, 3 * out], PyTorch
// [3 * out, in]; a Linear weight is [out, in] in both).
struct NamedParameter {
  std::string name;
  Tensor* tensor = nullptr;
  bool transposed = false;
};

// The state of a module or an Mlp, by name, in PyTorch's layout: what
// seam::checkpoint::save_file writes and what torch's load_state_dict takes.
using StateDict = std::map<std::string, Tensor>;

// A layer: a function of one tensor and the parameters it holds.
class Module {
 public:
  virtual ~Module() = default;
  virtual Tensor forward(const Tensor& x) const = 0;
  // Handles to the module's parameters; an optimizer assigns through them.
  virtual std::vector<Tensor*> parameters() { return {}; }
  // The same parameters with their names, in the same order.
  virtual std::vector<NamedParameter> named_parameters() { return {}; }
  // Module state that is not a parameter (BatchNorm2d's running statistics), by PyTorch's
  // names: in state_dict() and load_state_dict(), never in parameters() or
  // named_parameters(), so an optimizer never sees it. The forward pass may assign it.
  virtual std::vector<NamedParameter> named_buffers() { return {}; }
  // The modules this one holds (Sequential's), for train() and eval().
  virtual std::vector<Module*> children() { return {}; }
  // Every parameter then every buffer by name, in PyTorch's layout (a lazy transpose where
  // it differs).
  StateDict state_dict();
  // Sets every parameter and buffer from `state` (PyTorch's layout). Every name, shape and
  // dtype is checked first: a missing, unexpected or mismatched entry is an Error naming
  // each one, and then nothing has changed.
  void load_state_dict(const StateDict& state);
  // Training mode (the default) or evaluation mode for this module and, recursively, its
  // children, as torch.nn.Module.train()/eval(): BatchNorm2d normalizes with the batch's
  // statistics and updates its running ones in training mode, uses the running ones in
  // evaluation mode.
  void train(bool mode = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

 private:
  bool training_ = true;
};

// torch.nn.Linear: y = x @ weight^T + bias (nn::linear: one product contracting x's last
// dimension with the weight's second), weight [out, in] (PyTorch's layout) and bias [out],
// both drawn from U(-1/sqrt(in), 1/sqrt(in)) (PyTorch's bounds) by Tensor::uniform
// (std::mt19937_64). x may have leading batch dimensions ([..., in] -> [..., out]).
class Linear : public Module {
 public:
  // The weight drawn from `seed` in [in, out] order and stored transposed (the values this
  // constructor gave when Linear kept [in, out]), the bias from a seed derived from it.
  Linear(int64_t in, int64_t out, uint64_t seed, DType dtype = DType::kFloat32);
  // The weight's draw, then the bias's, each from next_init_seed() (seam::manual_seed): the
  // same values as Python's seam.nn.Linear(in, out) made at the same point of the sequence.
  Linear(int64_t in, int64_t out, DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const override;
  std::vector<Tensor*> parameters() override { return {&weight, &bias}; }
  // "weight" and "bias".
  std::vector<NamedParameter> named_parameters() override;
  Tensor weight, bias;
};

// torch.nn.functional.linear: x @ weight^T, weight in PyTorch's [out, in] layout, as one
// dot_general contracting x's last dimension with weight's second, so the program holds no
// transpose of the weight (and the weight's gradient comes out [out, in] too). x [..., in];
// the result [..., out]. A weight that is not [out, in] for x, or another dtype, is an
// Error naming both shapes.
Tensor linear(const Tensor& x, const Tensor& weight);

// A parameter-free module from a function, e.g. Lambda(nn::relu) or
// Lambda([](const Tensor& x) { return x.gelu(); }).
class Lambda : public Module {
 public:
  explicit Lambda(std::function<Tensor(const Tensor&)> fn) : fn_(std::move(fn)) {}
  Tensor forward(const Tensor& x) const override { return fn_(x); }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};

// Modules applied in order (torch.nn.Sequential):
//   nn::Sequential model({std::make_shared<nn::Linear>(784, 256, 1),
//                         std::make_shared<nn::Lambda>(nn::relu),
//                         std::make_shared<nn::Linear>(256, 10, 2)});
class Sequential : public Module {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<std::shared_ptr<Module>> modules);
  Sequential& add(std::shared_ptr<Module> module);
  Tensor forward(const Tensor& x) const override;
  std::vector<Tensor*> parameters() override;  // every module's, in order
  // Module i's parameters prefixed "<i>." (torch.nn.Sequential's names).
  std::vector<NamedParameter> named_parameters() override;
  std::vector<NamedParameter> named_buffers() override;  // prefixed the same way
  std::vector<Module*> children() override;
  std::vector<std::shared_ptr<Module>> modules;
};

// Linear layers with relu between them: sizes {784, 256, 128, 10} gives three layers.
class Mlp : public Module {
 public:
  // Layer i from the seed `seed + 1000 * i`.
  Mlp(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype = DType::kFloat32);
  // The layers in order, each drawn from next_init_seed() (seam::manual_seed): the same
  // values as a Python module holding a ModuleList of seam.nn.Linear built in that order.
  explicit Mlp(const std::vector<int64_t>& sizes, DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const override;
  // Every weight and bias, in layer order.
  std::vector<Tensor*> parameters() override;
  // "layers.<i>.weight" and "layers.<i>.bias" (a PyTorch module holding an nn.ModuleList
  // named `layers`).
  std::vector<NamedParameter> named_parameters() override;
  std::vector<Linear> layers;
};

// Normalization (src/nn/norm.cc; docs/frontend.md, "Normalization"), built from reductions,
// broadcasting and rsqrt, so gradients flow through them. PyTorch's semantics and defaults.

// torch.nn.functional.layer_norm: normalizes over the trailing dims `normalized_shape` with
// the biased variance, y = (x - mean) / sqrt(var + eps) * weight + bias; weight and bias
// (shape normalized_shape) may be undefined Tensors (no affine step).
Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);

// torch.nn.functional.batch_norm on [N, C, ...]: statistics per channel (dim 1). Training:
// the batch's mean and biased variance normalize, and, when given, *running_mean and
// *running_var ([C]) are assigned (1 - momentum) * running + momentum * batch (the
// variance unbiased, times n / (n - 1)). Evaluation: the running statistics normalize
// (they are required then). weight and bias ([C]) may be undefined.
Tensor batch_norm(const Tensor& input, Tensor* running_mean, Tensor* running_var,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  bool training = false, double momentum = 0.1, double eps = 1e-5);

// torch.nn.LayerNorm with elementwise affine: parameters "weight" (ones) and "bias" (zeros),
// both of shape normalized_shape.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5,
                     DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const override;
  std::vector<Tensor*> parameters() override { return {&weight, &bias}; }
  std::vector<NamedParameter> named_parameters() override;
  std::vector<int64_t> normalized_shape;
  double eps;
  Tensor weight, bias;
};

// torch.nn.BatchNorm2d on NCHW input: parameters "weight" (ones) and "bias" (zeros), [C];
// buffers "running_mean" (zeros), "running_var" (ones), [C], in the module's dtype, and
// "num_batches_tracked" (an int64 scalar). Each forward in training mode assigns the three
// buffers new lazy values (program data: the step's program is the same every step).
class BatchNorm2d : public Module {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const override;
  std::vector<Tensor*> parameters() override { return {&weight, &bias}; }
  std::vector<NamedParameter> named_parameters() override;
  std::vector<NamedParameter> named_buffers() override;
  int64_t num_features;
  double eps, momentum;
  Tensor weight, bias;
  // Buffers: forward (const, as every module's) updates them in training mode.
  mutable Tensor running_mean, running_var, num_batches_tracked;
};

Tensor relu(const Tensor& x);
// Mean over the batch of -log_softmax(logits)[label]; logits [n, classes] (any float dtype),
// labels [n] int32 or int64 (PyTorch's class indices are int64).
Tensor cross_entropy(const Tensor& logits, const Tensor& labels);
// The number of rows whose argmax equals the label, as an int32 scalar (lazy).
Tensor correct_count(const Tensor& logits, const Tensor& labels);
// The fraction of rows whose argmax equals the label (reads the result).
double accuracy(const Tensor& logits, const Tensor& labels);

// Convolution and pooling on NCHW tensors with PyTorch's layouts and defaults
// (docs/frontend.md, "Convolution and pooling"); pairs are {height, width}. Each records one
// IR op and has a gradient rule.
struct Conv2dOptions {
  std::array<int64_t, 2> stride = {1, 1};
  std::array<int64_t, 2> padding = {0, 0};  // zeros on both sides
  std::array<int64_t, 2> dilation = {1, 1};
  int64_t groups = 1;
};
// input [n, c, h, w], weight [out_channels, c / groups, kh, kw] -> [n, out_channels, h', w'],
// h' = (h + 2 * padding - dilation * (kh - 1) - 1) / stride + 1 (no bias: add one with
// broadcasting, e.g. y + b.reshape({1, out_channels, 1, 1})).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dOptions& options = {});
// The maximum of each window; padding counts as -inf. stride {0, 0} means the window size.
Tensor max_pool2d(const Tensor& input, std::array<int64_t, 2> kernel_size,
                  std::array<int64_t, 2> stride = {0, 0}, std::array<int64_t, 2> padding = {0, 0});
// The minimum of each window; padding counts as +inf. Not in PyTorch (where it is written
// -max_pool2d(-x), which gives the same values and gradients here too): one IR
// reduce_window_min, whose gradient, like max_pool2d's, goes to the first minimum of a window.
Tensor min_pool2d(const Tensor& input, std::array<int64_t, 2> kernel_size,
                  std::array<int64_t, 2> stride = {0, 0}, std::array<int64_t, 2> padding = {0, 0});
// The mean of each window, padding counted as zeros in a full window (PyTorch's
// count_include_pad=true).
Tensor avg_pool2d(const Tensor& input, std::array<int64_t, 2> kernel_size,
                  std::array<int64_t, 2> stride = {0, 0}, std::array<int64_t, 2> padding = {0, 0});

// torch.flatten: dimensions start_dim..end_dim (inclusive; negative counts from the end)
// merged into one, a reshape. A scalar becomes [1]. A dimension outside the tensor's rank,
// or start_dim after end_dim, is an Error naming the dimensions and the shape.
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);

// Parameter-free layers with PyTorch's names, for nn::Sequential (no Lambda needed).
// torch.nn.Flatten: flatten(x, start_dim, end_dim), start_dim 1 by default (keeps the batch).
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& x) const override;
  int64_t start_dim, end_dim;
};
// torch.nn.ReLU.
class ReLU : public Module {
 public:
  Tensor forward(const Tensor& x) const override;
};
// torch.nn.MaxPool2d and torch.nn.AvgPool2d: max_pool2d / avg_pool2d with these arguments
// (stride {0, 0}: the window size, PyTorch's stride=None).
class Pool2d : public Module {
 public:
  explicit Pool2d(std::array<int64_t, 2> kernel_size, std::array<int64_t, 2> stride = {0, 0},
                  std::array<int64_t, 2> padding = {0, 0})
      : kernel_size(kernel_size), stride(stride), padding(padding) {}
  std::array<int64_t, 2> kernel_size, stride, padding;
};
class MaxPool2d : public Pool2d {
 public:
  using Pool2d::Pool2d;
  Tensor forward(const Tensor& x) const override;
};
class AvgPool2d : public Pool2d {
 public:
  using Pool2d::Pool2d;
  Tensor forward(const Tensor& x) const override;
};

// torch.nn.Conv2d: y = conv2d(x, weight, options) + bias; weight [out, in / groups, kh, kw],
// bias [out], both drawn uniformly from [-1/sqrt(fan_in), 1/sqrt(fan_in)] with
// fan_in = in / groups * kh * kw (PyTorch's default bounds) with std::mt19937_64 seeded by
// `seed`. Parameters "weight" and "bias" in PyTorch's layout (no transpose).
class Conv2d : public Module {
 public:
  Conv2d(int64_t in, int64_t out, std::array<int64_t, 2> kernel_size, uint64_t seed,
         const Conv2dOptions& options = {}, DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const override;
  std::vector<Tensor*> parameters() override { return {&weight, &bias}; }
  std::vector<NamedParameter> named_parameters() override;
  Conv2dOptions options;
  Tensor weight, bias;
};

// torch.nn.functional.embedding: the rows of weight [num_embeddings, dim] named by integer
// `indices` (int32 or int64, any shape) -> [*indices.shape, dim]; another dtype is an Error
// naming it. An id outside [0, num_embeddings) is clamped to the nearest row (XLA's rule;
// PyTorch raises). The gradient adds each output row's gradient into its row (IR
// scatter_add), so repeated ids accumulate.
Tensor embedding(const Tensor& weight, const Tensor& indices);
// Exact GELU, x/2 * (1 + erf(x / sqrt(2))) (PyTorch's default; Tensor::gelu is the tanh form).
Tensor gelu(const Tensor& x);

// torch.nn.Embedding: weight [num_embeddings, dim] drawn from N(0, 1) (PyTorch's default)
// with Tensor::randn(seed); forward(indices) = embedding(weight, indices). Parameter
// "weight".
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t dim, uint64_t seed, DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& indices) const override;
  std::vector<Tensor*> parameters() override { return {&weight}; }
  std::vector<NamedParameter> named_parameters() override;
  Tensor weight;
};

// torch.nn.functional.dropout (inverted dropout): in training, each element is zeroed with
// probability p and the others are scaled by 1 / (1 - p); an identity when !training or p
// is 0. p outside [0, 1) is an Error naming p; x must be a float tensor. The mask comes from
// seam::rand (the default generator, docs/frontend.md "Random numbers"): seeded by
// seam::manual_seed, fresh every step without recompiling. The gradient is the same mask
// times the scale.
Tensor dropout(const Tensor& x, double p, bool training = true);

// torch.nn.Dropout: dropout(x, p, is_training()), so off after eval().
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& x) const override;
  double p;
};

// Attention (src/nn/attention.cc; docs/frontend.md, "Attention"), PyTorch's semantics.

// torch.nn.functional.scaled_dot_product_attention without dropout: query [..., L, E], key
// [..., S, E], value [..., S, Ev] (one float dtype, equal leading dims) ->
// softmax(query key^T / sqrt(E)) value, [..., L, Ev]. is_causal: query position i attends
// to key positions j <= i only (PyTorch's is_causal, the upper triangle of the [L, S] scores
// excluded). Mismatched shapes or dtypes are an Error naming all three tensors.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                    bool is_causal = false);

// torch.nn.MultiheadAttention(embed_dim, num_heads, batch_first=True) used as
// self-attention (query = key = value = x) without dropout, bias and no extra K/V biases:
// x [N, L, E] (or [L, E]) -> [N, L, E]. Parameters, by PyTorch's names and layouts in the
// state dict: "in_proj_weight" [3E, E] (q, k and v stacked; xavier_uniform, bound
// sqrt(6 / 4E)), "in_proj_bias" [3E] (zeros), "out_proj.weight" [E, E] (Linear's bound
// 1/sqrt(E)) and "out_proj.bias" [E] (zeros), drawn with std::mt19937_64 from `seed`. seam
// keeps in_proj_weight as [E, 3E] (the state dict transposes it); out_proj is a Linear.
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, uint64_t seed,
                     DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const override;  // not causal
  Tensor forward(const Tensor& x, bool is_causal) const;
  std::vector<Tensor*> parameters() override;
  std::vector<NamedParameter> named_parameters() override;
  int64_t embed_dim, num_heads;
  Tensor in_proj_weight, in_proj_bias;  // [E, 3E] and [3E]
  Linear out_proj;
};

// A pre-norm (GPT-2 style) transformer block:
//   h = x + drop(attn(ln_1(x), causal));  y = h + drop(mlp(ln_2(h))),
// where drop is nn::dropout with probability `dropout` in training mode (GPT-2's residual
// dropout; 0 by default, so the block is deterministic unless asked) and the identity after
// eval().
// mlp = Linear(width, 4 width) -> exact gelu -> Linear(4 width, width). x [N, L, width].
// Parameters "ln_1.weight", "ln_1.bias", "attn.in_proj_weight", "attn.in_proj_bias",
// "attn.out_proj.weight", "attn.out_proj.bias", "ln_2.*", "mlp.0.weight", "mlp.0.bias",
// "mlp.2.weight", "mlp.2.bias" (a PyTorch module with LayerNorm ln_1/ln_2,
// MultiheadAttention attn (batch_first) and Sequential mlp(Linear, GELU, Linear) loads the
// state dict). attn is seeded with `seed`, mlp.0 with seed + 1, mlp.2 with seed + 2.
class TransformerBlock : public Module {
 public:
  TransformerBlock(int64_t width, int64_t num_heads, uint64_t seed, bool causal = true,
                   DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const override;
  std::vector<Tensor*> parameters() override;  // named_parameters()' order
  std::vector<NamedParameter> named_parameters() override;
  std::vector<Module*> children() override;
  bool causal;
  double dropout = 0;  // in [0, 1); checked by nn::dropout when the block runs
  LayerNorm ln_1;
  MultiheadAttention attn;
  LayerNorm ln_2;
  Sequential mlp;
};

}  // namespace seam::nn

#endif  // SEAM_NN_H_
