// seam's lazy tensors. Operations on a Tensor record a graph; nothing runs until sync()
// (or a host read) compiles the recorded graph into one program and runs it on the device
// chosen by PJRT_DEVICE.
#ifndef SEAM_TENSOR_H_
#define SEAM_TENSOR_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "seam/source_location.h"

namespace seam {

// kBool holds comparison results (IR pred); kFloat64 is for gradient checks and precise work;
// kBFloat16 is bfloat16 (8 exponent bits like float32, 8 significand bits), for training
// with half the memory traffic; kInt64 holds integers beyond int32. New values are appended.
enum class DType { kFloat32, kInt32, kFloat64, kBool, kBFloat16, kInt64 };

// "float32", "int32", "float64", "bool", "bfloat16", "int64" (PyTorch's names without the
// "torch." prefix).
const char* dtype_name(DType dtype);

// One bfloat16 element on the host, as its raw bits (the upper half of a float32's bits;
// the layout of torch's c10::BFloat16 and of safetensors' "BF16"). Converting from float
// rounds to nearest, ties to even (a NaN stays a NaN, overflow gives an infinity);
// converting to float is exact.
struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float value) : bits(round_from(value)) {}
  static bfloat16 from_bits(uint16_t raw) {
    bfloat16 b;
    b.bits = raw;
    return b;
  }
  explicit operator float() const {
    uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &wide, sizeof f);
    return f;
  }
  friend bool operator==(bfloat16 a, bfloat16 b) { return a.bits == b.bits; }  // bitwise

 private:
  static uint16_t round_from(float value) {
    uint32_t raw;
    std::memcpy(&raw, &value, sizeof raw);
    if ((raw & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((raw >> 16) | 0x40u);
    return static_cast<uint16_t>((raw + 0x7fffu + ((raw >> 16) & 1u)) >> 16);
  }
};
static_assert(sizeof(bfloat16) == 2);

// Why an operation failed: the canonical codes of absl::Status and gRPC, with their numbers.
enum class ErrorCode : int {
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,  // misuse of the API: a bad shape, dtype, axis or argument
  kDeadlineExceeded = 4,
  kNotFound = 5,  // a file or a plugin library that is not there
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,   // out of memory
  kFailedPrecondition = 9,  // a bad environment (PJRT_DEVICE unset) or a call made too late
  kAborted = 10,            // the distributed job was lost
  kOutOfRange = 11,
  kUnimplemented = 12,  // a plugin or build lacks the feature
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,  // a malformed or truncated file
  kUnauthenticated = 16,
};

// "INVALID_ARGUMENT", "FAILED_PRECONDITION", ... (absl's names).
const char* error_code_name(ErrorCode code);

// Every failure of the API: misuse, a bad environment, a device error.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// A number combined with a tensor (t + 1, 0.5f * t, t > 0, maximum(t, 0)). It takes the
// tensor's dtype, and never silently loses its kind: an integer scalar goes with integer and
// float tensors (it must fit int32 for an int32 tensor; any int64 fits an int64 tensor; a
// float tensor gets the nearest value, e.g. rounded to bfloat16), a floating-point scalar
// only with float tensors (int32 + 1.5 is an Error: convert the tensor first,
// t.to(DType::kFloat32)), a bool only with bool tensors. Tensors of two dtypes are never
// combined implicitly either.
class Scalar {
 public:
  enum class Kind { kFloat, kInt, kBool };
  Scalar(double value) : kind_(Kind::kFloat), float_(value) {}     // NOLINT: implicit on purpose
  Scalar(float value) : Scalar(static_cast<double>(value)) {}      // NOLINT
  Scalar(bool value) : kind_(Kind::kBool), int_(value ? 1 : 0) {}  // NOLINT
  Scalar(int value) : kind_(Kind::kInt), int_(value) {}            // NOLINT
  Scalar(long value) : kind_(Kind::kInt), int_(value) {}           // NOLINT
  Scalar(long long value) : kind_(Kind::kInt), int_(value) {}      // NOLINT
  Scalar(unsigned value) : kind_(Kind::kInt), int_(value) {}       // NOLINT
  Scalar(unsigned long value) : Scalar(static_cast<unsigned long long>(value)) {}  // NOLINT
  Scalar(unsigned long long value)                                                 // NOLINT
      : kind_(Kind::kInt), int_(static_cast<int64_t>(value)), too_large_(value > INT64_MAX) {}
  Kind kind() const { return kind_; }
  double to_double() const { return kind_ == Kind::kFloat ? float_ : static_cast<double>(int_); }
  int64_t to_int() const { return int_; }  // kInt and kBool
  // An unsigned integer above INT64_MAX (every operation refuses it).
  bool too_large() const { return too_large_; }

 private:
  Kind kind_;
  double float_ = 0;
  int64_t int_ = 0;
  bool too_large_ = false;
};

namespace lazy {
class TensorImpl;
}

struct SortResult;  // values and indices (below)

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
  static Tensor from_vector(const std::vector<int64_t>& values, std::vector<int64_t> shape);
  static Tensor from_vector(const std::vector<bfloat16>& values, std::vector<int64_t> shape);
  // Float host data as a tensor of `dtype`: kFloat32, kBFloat16 (each value rounded to
  // nearest, ties to even, as torch.tensor(values, dtype=torch.bfloat16) does) or kFloat64
  // (exact). Any other dtype is an Error.
  static Tensor from_vector(const std::vector<float>& values, std::vector<int64_t> shape,
                            DType dtype);
  // The same from any contiguous host memory (an array, part of a vector, a raw buffer).
  static Tensor from_span(std::span<const float> values, std::vector<int64_t> shape);
  static Tensor from_span(std::span<const int32_t> values, std::vector<int64_t> shape);
  static Tensor from_span(std::span<const double> values, std::vector<int64_t> shape);
  static Tensor from_span(std::span<const int64_t> values, std::vector<int64_t> shape);
  static Tensor from_span(std::span<const bfloat16> values, std::vector<int64_t> shape);
  // A scalar that is always program data (never a constant), so changing it between steps
  // does not recompile: optimizers pass their hyperparameters this way.
  static Tensor scalar(float value);
  static Tensor scalar(double value, DType dtype);

  // Creation. Random tensors are drawn on the host with std::mt19937_64 seeded by `seed`
  // (normal: std::normal_distribution; uniform: std::uniform_real_distribution in [low, high))
  // and reach the device at the first sync, so a seed gives the same values everywhere.
  static Tensor zeros(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);
  static Tensor ones(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);
  // `value` is exact for integer dtypes (any int64 for kInt64; it must fit int32 for
  // kInt32); a floating-point value for an integer dtype is truncated toward zero, as
  // torch.full does; for kBFloat16 it is rounded to nearest.
  static Tensor full(const std::vector<int64_t>& shape, Scalar value,
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
  // for kFloat64, int64_t for kInt64, bfloat16 for kBFloat16 (the raw elements); float also
  // reads a kBFloat16 tensor (widened exactly, as .to(kFloat32) would); bool tensors are
  // read after .to(DType::kInt32). Any other pairing is an Error naming both types.
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
  // int32 indices of the first maximum / minimum along `axis` (a NaN counts as both: the
  // first NaN's index, as PyTorch); an empty axis is an error.
  Tensor argmax(int64_t axis) const;
  Tensor argmin(int64_t axis) const;
  // Running sum along `axis` (torch.cumsum), numeric dtypes.
  Tensor cumsum(int64_t axis) const;
  // torch.scatter(axis, index, src): a copy of this tensor with src's elements written where
  // `index` (int32 or int64, this tensor's rank) points along `axis`; for rank 2 and axis 0,
  // out[index[i][j]][j] = src[i][j]. index is at most src's size in every dimension and at
  // most this tensor's except along `axis`; src has this tensor's dtype. Where indices
  // repeat, the last in index's row-major order wins; an index outside [0, size of axis)
  // is clamped into it (PyTorch raises). Gradients: this tensor's is the result's with the
  // written positions zeroed; src's is the result's where each element landed, zero for an
  // element a later repeat overwrote (PyTorch gives those one too); index has none.
  Tensor scatter(int64_t axis, const Tensor& index, const Tensor& src) const;
  // torch.sort: the values along `axis` (< 0 counts from the end) in ascending order (or
  // descending), and the int64 indices they came from. Stable: equal values keep their input
  // order in both directions; NaN sorts above +inf (last ascending, first descending), -0
  // and +0 are equal. Numeric dtypes (not bool). The values' gradient goes back through the
  // indices (a scatter-add); the indices have none.
  SortResult sort(int64_t axis = -1, bool descending = false) const;
  // torch.topk (largest=True, sorted=True): the k largest values along `axis`, largest
  // first, and their int64 indices; ties keep input order (the descending sort's first k).
  // k must be in [0, size of the axis].
  SortResult topk(int64_t k, int64_t axis = -1) const;

  // Shapes. reshape accepts one -1 dimension; transpose swaps the two axes of a matrix.
  Tensor reshape(std::vector<int64_t> shape) const;
  Tensor transpose() const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;  // swaps two axes (< 0: from the end)
  Tensor permute(const std::vector<int64_t>& order) const;
  // NumPy broadcast_to / torch expand: dims aligned at the end, a size-1 dim stretches,
  // new leading dims are added (IR broadcast_in_dim).
  Tensor broadcast_to(std::vector<int64_t> shape) const;
  // Elements start, start + step, ... before end along `axis` (Python's x[start:end:step],
  // step >= 1). start and end follow one rule: a negative value counts from the end, then
  // each is clamped into [0, size]; an end at or before the start gives an empty axis.
  Tensor slice(int64_t axis, int64_t start, int64_t end, int64_t step = 1) const;
  static Tensor cat(const std::vector<Tensor>& tensors, int64_t axis);
  // `low[d]` elements of `value` before and `high[d]` after each dimension d (negative
  // amounts crop instead); IR pad.
  Tensor pad(const std::vector<int64_t>& low, const std::vector<int64_t>& high,
             double value = 0) const;
  // Element type conversion (IR convert); a tensor that has `dtype` already comes back as
  // itself (a copy of this handle, as torch.Tensor.to returns self).
  Tensor to(DType dtype) const;

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
  Tensor erf() const;          // the error function (float dtypes); nn::gelu uses it
  Tensor logical_not() const;  // bool tensors

  // Numerically stable composites along `axis` (x - max is exponentiated).
  Tensor softmax(int64_t axis) const;
  Tensor log_softmax(int64_t axis) const;

  // In place: this handle now refers to `value` (same shape and dtype). Other handles to the
  // old value and graphs that used it are unaffected. copy_ is the same.
  Tensor& assign(const Tensor& value);
  Tensor& copy_(const Tensor& value) { return assign(value); }
  // t += x is t.assign(t + x): the result must keep t's shape and dtype (x may broadcast to
  // t, not the other way round), or it is an Error naming the operator.
  Tensor& operator+=(const Tensor& other);
  Tensor& operator-=(const Tensor& other);
  Tensor& operator*=(const Tensor& other);
  Tensor& operator/=(const Tensor& other);
  Tensor& operator+=(Scalar other);
  Tensor& operator-=(Scalar other);
  Tensor& operator*=(Scalar other);
  Tensor& operator/=(Scalar other);

  // True while the tensor is a recorded operation not yet run by a sync.
  bool has_pending_ops() const;

 private:
  explicit Tensor(std::shared_ptr<lazy::TensorImpl> impl) : impl_(std::move(impl)) {}
  friend class TensorAccess;
  std::shared_ptr<lazy::TensorImpl> impl_;
};

// What Tensor::sort and Tensor::topk return (auto [values, indices] = x.sort(1)).
struct SortResult {
  Tensor values;
  Tensor indices;  // int64
};

// Random numbers from the default generator (docs/frontend.md "Random numbers"): a
// Philox4x32-10 key and counter held as int64 tensors (program data), advanced by every draw
// inside the step's program, so drawing in each step never recompiles. The same seed and the
// same sequence of draws give the same bits in eager and lazy mode, at every thread count
// and on every plugin. Without manual_seed the seed is 67280421310721 (PyTorch's default).
void manual_seed(uint64_t seed);  // torch.manual_seed: key = seed, counter = 0
// The seed of the next host-drawn initial value (nn::Linear and nn::Mlp built without a
// seed; Python's randn and layers): splitmix64 of manual_seed's seed and the number of such
// draws since, so the same seed and the same construction order give the same parameters in
// C++ and in Python. manual_seed restarts the sequence.
uint64_t next_init_seed();
// torch.rand: uniform in [0, 1) for kFloat32 (k * 2^-24, k the top 24 bits of a 32-bit
// random word), kFloat64 (k * 2^-53, the top 53 bits of a 64-bit word) or kBFloat16 (k * 2^-8,
// the top 8 bits of a 32-bit word); any other dtype is an Error.
Tensor rand(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32);

// Elementwise with numpy-style broadcasting. Both tensors have one dtype; a Scalar takes
// the tensor's (see Scalar). Division of int32 tensors truncates toward zero (IR divide).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, Scalar b);
Tensor minimum(const Tensor& a, Scalar b);
Tensor pow(const Tensor& a, const Tensor& b);
// torch.clamp: min(max(x, min), max) elementwise; the bounds have x's dtype and broadcast
// to x's shape; a NaN anywhere gives NaN; where min > max the result is max.
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max);
Tensor clamp(const Tensor& x, Scalar min, Scalar max);  // bounds converted to x's dtype
Tensor pow(const Tensor& a, Scalar exponent);
// Comparisons give kBool tensors (broadcasting as above); where picks a where cond is true.
Tensor eq(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
// The same as operators, elementwise like libtorch's: `(x > 0)` is a bool tensor, not a
// truth value (read it with .to(DType::kInt32) and to_vector).
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, Scalar b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, Scalar b);
Tensor operator==(Scalar a, const Tensor& b);
Tensor operator!=(Scalar a, const Tensor& b);
Tensor operator<(Scalar a, const Tensor& b);
Tensor operator<=(Scalar a, const Tensor& b);
Tensor operator>(Scalar a, const Tensor& b);
Tensor operator>=(Scalar a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
// The remainder of a / b with the sign of a (C's fmod, torch.fmod; IR remainder).
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);  // bool tensors, broadcasting
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);

// The unary math as free functions too (torch::exp(x), mlx::core::exp(x)): each is the
// member of the same name.
inline Tensor neg(const Tensor& x) { return x.neg(); }
inline Tensor exp(const Tensor& x) { return x.exp(); }
inline Tensor log(const Tensor& x) { return x.log(); }
inline Tensor tanh(const Tensor& x) { return x.tanh(); }
inline Tensor sigmoid(const Tensor& x) { return x.sigmoid(); }
inline Tensor relu(const Tensor& x) { return x.relu(); }
inline Tensor sqrt(const Tensor& x) { return x.sqrt(); }
inline Tensor rsqrt(const Tensor& x) { return x.rsqrt(); }
inline Tensor abs(const Tensor& x) { return x.abs(); }
inline Tensor sign(const Tensor& x) { return x.sign(); }
inline Tensor log1p(const Tensor& x) { return x.log1p(); }
inline Tensor floor(const Tensor& x) { return x.floor(); }
inline Tensor ceil(const Tensor& x) { return x.ceil(); }
inline Tensor gelu(const Tensor& x) { return x.gelu(); }
inline Tensor logical_not(const Tensor& x) { return x.logical_not(); }
inline Tensor softmax(const Tensor& x, int64_t axis) { return x.softmax(axis); }
inline Tensor log_softmax(const Tensor& x, int64_t axis) { return x.log_softmax(axis); }

// Reverse-mode gradients of a scalar `loss` with respect to each of `params`, as lazy
// tensors (forward and backward then run as one program at the next sync). A non-scalar
// loss, a parameter the loss does not depend on, or an op without a gradient rule on the
// path is an Error. The gradients are ordinary recorded tensors, so a loss built from them
// can be differentiated again (torch.autograd.grad with create_graph=True; e.g. the double
// backward of max_pool2d, whose gradient is a select_and_scatter).
std::vector<Tensor> grad(const Tensor& loss, const std::vector<Tensor>& params);

// The IR text of the program a sync of `tensors` would compile now (the graph of those
// that have pending operations, with the donations that sync would plan as input/output
// aliases), without running anything. For debugging and tests.
std::string pending_ir_text(const std::vector<Tensor>& tensors);

// Compiles and runs, as one program, every live tensor's pending operations (the step
// barrier; PyTorch/XLA calls it mark_step). A tensor overwritten by `assign` since the
// last sync donates its old device buffer to the program when nothing else holds it (no
// other handle, no graph outside the step); host reads never donate. `site` names the
// code site for the recompile explainer (SEAM_DEBUG=1, docs/frontend.md). In eager mode
// nothing is pending; sync cuts the recorded history kept for autodiff.
void sync(SourceLocation site = SourceLocation::current());

// Blocks until every run launched on this process's devices so far has finished (torch_xla's
// wait_device_ops). It launches nothing: operations not yet synced stay pending. Metrics read
// after it include every finished run (ExecuteTime, ExecuteReplicatedTime). Returns at once
// when no device has been used yet. A run that failed is not reported here but by the
// tensors it produced, when they are read.
void wait_device_ops();

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
