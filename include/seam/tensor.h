// seam's lazy tensors. Operations on a Tensor record a graph; nothing runs until sync()
// (or a host read) compiles the recorded graph into one program and runs it on the device
// chosen by PJRT_DEVICE.
#ifndef SEAM_TENSOR_H_
#define SEAM_TENSOR_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "seam/source_location.h"

namespace seam {

// kBool holds comparison results (IR pred); kFloat64 is for gradient checks and precise work.
enum class DType { kFloat32, kInt32, kFloat64, kBool };

// Every failure of the tensor API: misuse, a bad environment, a device error. `code` is an
// absl/gRPC canonical status code (3 = invalid argument, 9 = failed precondition, ...).
class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

namespace lazy {
class TensorImpl;
}

class Tensor {
 public:
  Tensor();  // an undefined tensor; using it in an operation is an Error

  // Host data; it reaches the device at the first sync that needs it. `values.size()` must
  // equal the product of `shape`.
  static Tensor from_vector(const std::vector<float>& values, std::vector<int64_t> shape);
  static Tensor from_vector(const std::vector<int32_t>& values, std::vector<int64_t> shape);
  // Braced lists pick the element type from their literals: {1.5f, 2.0f} or {1, 2}.
  static Tensor from_vector(std::initializer_list<float> values, std::vector<int64_t> shape) {
    return from_vector(std::vector<float>(values), std::move(shape));
  }
  static Tensor from_vector(std::initializer_list<int32_t> values, std::vector<int64_t> shape) {
    return from_vector(std::vector<int32_t>(values), std::move(shape));
  }
  static Tensor from_vector(const std::vector<double>& values, std::vector<int64_t> shape);
  // The same from any contiguous host memory (an array, part of a vector, a raw buffer).
  static Tensor from_span(std::span<const float> values, std::vector<int64_t> shape);
  static Tensor from_span(std::span<const int32_t> values, std::vector<int64_t> shape);
  static Tensor from_span(std::span<const double> values, std::vector<int64_t> shape);
  // A scalar that is always program data (never a constant), so changing it between steps
  // does not recompile: optimizers pass their hyperparameters this way.
  static Tensor scalar(float value);
  static Tensor scalar(double value, DType dtype);

  // Creation. Random tensors are drawn on the host with std::mt19937_64 seeded by `seed`
  // (normal: std::normal_distribution; uniform: std::uniform_real_distribution in [low, high))
  // and reach the device at the first sync, so a seed gives the same values everywhere.
  static Tensor zeros(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);
  static Tensor ones(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);
  static Tensor full(const std::vector<int64_t>& shape, double value,
                     DType dtype = DType::kFloat32);
  static Tensor arange(int64_t count, DType dtype = DType::kInt32);  // 0, 1, ..., count-1 (iota)
  static Tensor randn(std::vector<int64_t> shape, uint64_t seed, DType dtype = DType::kFloat32);
  static Tensor uniform(std::vector<int64_t> shape, double low, double high, uint64_t seed,
                        DType dtype = DType::kFloat32);

  bool defined() const { return impl_ != nullptr; }
  const std::vector<int64_t>& shape() const;
  DType dtype() const;
  int64_t numel() const;

  // Block until the value is on the host. A tensor with pending operations is synced
  // first (that tensor's graph only). T is float for kFloat32, int32_t for kInt32, double
  // for kFloat64; bool tensors are read after .to(DType::kInt32).
  // `site` (the caller's file:line) names the read's code site for the recompile
  // explainer (docs/frontend.md).
  template <typename T>
  std::vector<T> to_vector(SourceLocation site = SourceLocation::current()) const;
  template <typename T>
  T item(SourceLocation site = SourceLocation::current()) const;  // the single element

  // NumPy/PyTorch matmul: [..., m, k] x [..., k, n] -> [..., m, n] with the batch
  // dimensions (those before the last two) broadcast; a rank-1 operand is promoted to a row
  // (left) or a column (right) and the added dimension is dropped; [k] x [k] is a scalar.
  Tensor matmul(const Tensor& other) const;
  Tensor sum() const;  // over every axis, to a scalar
  Tensor sum(const std::vector<int64_t>& axes,
             bool keepdim = false) const;  // axes < 0 count from the end
  Tensor mean() const;
  Tensor mean(const std::vector<int64_t>& axes, bool keepdim = false) const;
  Tensor max() const;
  Tensor max(const std::vector<int64_t>& axes, bool keepdim = false) const;
  Tensor min() const;
  Tensor min(const std::vector<int64_t>& axes, bool keepdim = false) const;
  Tensor prod() const;  // IR reduce_product
  Tensor prod(const std::vector<int64_t>& axes, bool keepdim = false) const;
  Tensor argmax(int64_t axis) const;  // int32 indices of the first maximum along `axis`

  // Shapes. reshape accepts one -1 dimension; transpose swaps the two axes of a matrix.
  Tensor reshape(std::vector<int64_t> shape) const;
  Tensor transpose() const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;  // swaps two axes (< 0: from the end)
  Tensor permute(const std::vector<int64_t>& order) const;
  // NumPy broadcast_to / torch expand: dims aligned at the end, a size-1 dim stretches,
  // new leading dims are added (IR broadcast_in_dim).
  Tensor broadcast_to(std::vector<int64_t> shape) const;
  Tensor slice(int64_t axis, int64_t start, int64_t end, int64_t step = 1) const;
  static Tensor cat(const std::vector<Tensor>& tensors, int64_t axis);
  // `low[d]` elements of `value` before and `high[d]` after each dimension d (negative
  // amounts crop instead); IR pad.
  Tensor pad(const std::vector<int64_t>& low, const std::vector<int64_t>& high,
             double value = 0) const;
  Tensor to(DType dtype) const;  // element type conversion (IR convert)

  // Elementwise.
  Tensor neg() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor tanh() const;
  Tensor sigmoid() const;  // IR logistic
  Tensor relu() const;     // maximum(x, 0)
  Tensor sqrt() const;
  Tensor rsqrt() const;  // 1 / sqrt(x)
  Tensor abs() const;
  Tensor sign() const;   // -1, 0 or 1
  Tensor log1p() const;  // log(1 + x), accurate near 0
  Tensor floor() const;
  Tensor ceil() const;
  // GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (PyTorch's
  // approximate="tanh"; the IR has no erf).
  Tensor gelu() const;
  Tensor logical_not() const;  // bool tensors

  // Numerically stable composites along `axis` (x - max is exponentiated).
  Tensor softmax(int64_t axis) const;
  Tensor log_softmax(int64_t axis) const;

  // In place: this handle now refers to `value` (same shape and dtype). Other handles to the
  // old value and graphs that used it are unaffected. copy_ is the same.
  Tensor& assign(const Tensor& value);
  Tensor& copy_(const Tensor& value) { return assign(value); }

  // True while the tensor is a recorded operation not yet run by a sync.
  bool has_pending_ops() const;

 private:
  explicit Tensor(std::shared_ptr<lazy::TensorImpl> impl) : impl_(std::move(impl)) {}
  friend class TensorAccess;
  std::shared_ptr<lazy::TensorImpl> impl_;
};

// Elementwise with numpy-style broadcasting; a float operand is a scalar tensor.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, float b);
Tensor operator-(const Tensor& a, float b);
Tensor operator*(const Tensor& a, float b);
Tensor operator*(float a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, float b);
Tensor operator/(float a, const Tensor& b);
Tensor operator+(float a, const Tensor& b);
Tensor operator-(float a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, float exponent);
// Comparisons give kBool tensors (broadcasting as above); where picks a where cond is true.
Tensor eq(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// The remainder of a / b with the sign of a (C's fmod, torch.fmod; IR remainder).
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);  // bool tensors, broadcasting
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, float b);
Tensor minimum(const Tensor& a, float b);
Tensor matmul(const Tensor& a, const Tensor& b);

// Reverse-mode gradients of a scalar `loss` with respect to each of `params`, as lazy
// tensors (forward and backward then run as one program at the next sync). A non-scalar
// loss, a parameter the loss does not depend on, or an op without a gradient rule on the
// path is an Error.
std::vector<Tensor> grad(const Tensor& loss, const std::vector<Tensor>& params);

// The IR text of the program a sync of `tensors` would compile now (the graph of those
// that have pending operations), without running anything. For debugging and tests.
std::string pending_ir_text(const std::vector<Tensor>& tensors);

// Compiles and runs, as one program, every live tensor's pending operations (the step
// barrier; PyTorch/XLA calls it mark_step). A tensor overwritten by `assign` since the
// last sync donates its old device buffer to the program when nothing else holds it (no
// other handle, no graph outside the step); host reads never donate. `site` names the
// code site for the recompile explainer (SEAM_DEBUG=1, docs/frontend.md). In eager mode
// nothing is pending; sync cuts the recorded history kept for autodiff.
void sync(SourceLocation site = SourceLocation::current());

// Eager mode: every operation runs when it is recorded (one small program per op, from an
// op-level compile cache). Off by default; SEAM_EAGER=1 turns it on (read at first use, a
// value other than 0 or 1 is an Error naming the variable); set_eager overrides it.
void set_eager(bool enabled);
bool is_eager();

// Marks the tensor's current device buffer as donatable at the next sync that overwrites
// the tensor in place, even if other handles (copies) still refer to it, as the
// reference's buffer-donor flag does. Using such a copy afterwards is an Error saying the
// buffer was donated. The tensor must not have pending operations.
void set_buffer_donor(const Tensor& tensor, bool donor = true);

}  // namespace seam

#endif  // SEAM_TENSOR_H_
