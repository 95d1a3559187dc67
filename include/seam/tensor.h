// seam's lazy tensors. Operations on a Tensor record a graph; nothing runs until sync()
// (or a host read) compiles the recorded graph into one program and runs it on the device
// chosen by PJRT_DEVICE.
#ifndef SEAM_TENSOR_H_
#define SEAM_TENSOR_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace seam {

enum class DType { kFloat32, kInt32 };

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
  static Tensor scalar(float value);

  bool defined() const { return impl_ != nullptr; }
  const std::vector<int64_t>& shape() const;
  DType dtype() const;
  int64_t numel() const;

  // Block until the value is on the host. A tensor with pending operations is synced
  // first (that tensor's graph only). T is float for kFloat32, int32_t for kInt32.
  template <typename T>
  std::vector<T> to_vector() const;
  template <typename T>
  T item() const;  // the single element of a tensor with one element

  Tensor matmul(const Tensor& other) const;        // [m,k] x [k,n]
  Tensor sum() const;                              // over every axis, to a scalar
  Tensor sum(const std::vector<int64_t>& axes) const;  // negative axes count from the end

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
Tensor matmul(const Tensor& a, const Tensor& b);

// The IR text of the program a sync of `tensors` would compile now (the graph of those
// that have pending operations), without running anything. For debugging and tests.
std::string pending_ir_text(const std::vector<Tensor>& tensors);

// Compiles and runs, as one program, every live tensor's pending operations (the step
// barrier; the reference calls it mark_step).
void sync();

}  // namespace seam

#endif  // SEAM_TENSOR_H_
