// The Python tensor: a seam::Tensor plus what PyTorch's autograd semantics need on top of
// the C++ API's grad(loss, params) (docs/python.md, "Autograd").
//
// A leaf that requires grad is its own only leaf; every other tensor carries the set of
// such leaves it was computed from (shared, immutable, weak: a dead leaf's gradient is not
// wanted). backward() differentiates the loss with respect to exactly that set and adds each
// gradient into the leaf's `grad`.
#ifndef SEAM_PYTHON_PY_TENSOR_H_
#define SEAM_PYTHON_PY_TENSOR_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "seam/tensor.h"

namespace seam::python {

namespace py = pybind11;

struct PyTensor;
using PyTensorPtr = std::shared_ptr<PyTensor>;
using LeafSet = std::vector<std::weak_ptr<PyTensor>>;
using LeafSetPtr = std::shared_ptr<const LeafSet>;

struct PyTensor : std::enable_shared_from_this<PyTensor> {
  explicit PyTensor(Tensor v) : value(std::move(v)) {}

  Tensor value;
  // Set by the user (requires_grad=True, requires_grad_()) on a leaf only.
  bool leaf_requires_grad = false;
  // The leaves this tensor was computed from (null: none); a leaf has none.
  LeafSetPtr leaves;
  // The accumulated gradient of a leaf (None until the first backward()).
  PyTensorPtr grad;
  // A leaf's set of one leaf, itself, made on first use (LeavesOf): the operations on a
  // parameter share it instead of allocating one each.
  mutable LeafSetPtr self_leaves;

  bool is_leaf() const { return leaves == nullptr; }
  bool requires_grad() const { return is_leaf() ? leaf_requires_grad : true; }
};

// Whether operations record the leaves they depend on (off inside seam.no_grad()).
bool grad_enabled();
void set_grad_enabled(bool enabled);

// The leaves `t` depends on, as a set to pass on (itself when it is a leaf needing grad).
LeafSetPtr LeavesOf(const PyTensor& t);
// The union of the inputs' leaves (null when grad is off or none has any).
LeafSetPtr MergeLeaves(std::span<const PyTensor* const> inputs);
inline LeafSetPtr MergeLeaves(std::initializer_list<const PyTensor*> inputs) {
  return MergeLeaves(std::span<const PyTensor* const>(inputs.begin(), inputs.size()));
}

// A result of an operation on `inputs`: it depends on their leaves.
PyTensorPtr Result(Tensor value, std::span<const PyTensor* const> inputs);
inline PyTensorPtr Result(Tensor value, std::initializer_list<const PyTensor*> inputs) {
  return Result(std::move(value), std::span<const PyTensor* const>(inputs.begin(), inputs.size()));
}
inline PyTensorPtr Result(Tensor value, const std::vector<const PyTensor*>& inputs) {
  return Result(std::move(value), std::span<const PyTensor* const>(inputs));
}
// A result that carries no gradient (comparisons, indices, integer conversions).
PyTensorPtr Constant(Tensor value);

// Python numbers (bool, int, float and NumPy scalars) as seam scalars; nullopt for
// anything else.
std::optional<Scalar> ToScalar(py::handle h);

// A NumPy array operand of `op` with a tensor like `like` (host.cc): the array converted to
// the tensor's dtype, as a Python number would be; nothing when `other` is not an array;
// an Error naming both dtypes when the conversion would drop values (a float array with
// an integer tensor, a non-bool array with a bool tensor).
std::optional<Tensor> ArrayOperand(const char* op, const Tensor& like, py::handle other);

// seam::Error with code kInvalidArgument (a Python ValueError subclass).
[[noreturn]] void ThrowInvalid(const std::string& message);

// backward(): differentiates `loss` (times `gradient` when given) with respect to the leaves
// it was computed from and adds each gradient into the leaf's .grad (autograd.cc).
void BackwardInto(const PyTensor& loss, const PyTensor* gradient);
// t.item(): the one element as a Python number (host.cc).
py::object ItemObject(const Tensor& value);

// The fast entry points' helpers (fast_calls.cc). FastTensor: the C++ tensor of a seam
// tensor object (a Python subclass such as Parameter included), null for anything else.
const PyTensor* FastTensor(PyObject* o);
// A new reference to `t`'s Python object (None for null), as pybind11 would return it.
PyObject* WrapTensor(PyTensorPtr t);
// Inside a catch block: sets the Python exception pybind11's translators make of the
// exception being handled (seam errors as their seam.* classes) and returns null.
PyObject* RaiseTranslated();
// Puts `def` (METH_FASTCALL | METH_KEYWORDS) in place of the method type.<name>, keeping the
// bound function it replaces in *replaced (for CallReplaced) and its docstring.
void ReplaceMethod(PyTypeObject* type, PyMethodDef& def, PyObject** replaced);
// Calls `replaced` (a bound function) with the same arguments, `self` first when not null:
// the fallback of a fast entry point for the calls it does not take itself.
PyObject* CallReplaced(PyObject* replaced, PyObject* self, PyObject* const* args, size_t nargs,
                       PyObject* kwnames);
// Runs `body` (which returns a PyTensorPtr, null for None) and returns its Python object, or
// null with the Python exception set.
template <typename Body>
PyObject* FastCall(Body&& body) {
  try {
    return WrapTensor(body());
  } catch (...) {
    return RaiseTranslated();
  }
}

// Binding groups, one per source file.
void BindErrors(py::module_& m);
void BindTensor(py::module_& m);
void BindTensorOps(py::module_& m, py::class_<PyTensor, PyTensorPtr>& cls);
// Direct number slots for tensor op tensor/number (fast_ops.cc); after BindTensorOps.
void InstallFastOperators(py::class_<PyTensor, PyTensorPtr>& cls);
void BindHost(py::module_& m, py::class_<PyTensor, PyTensorPtr>& cls);
void BindAutograd(py::module_& m);
void BindNn(py::module_& m);
void BindOptim(py::module_& m);
void BindRuntime(py::module_& m);
void BindDistributed(py::module_& m);
// Replaces the bindings of the calls a training step makes every time by direct entry points
// (fast_calls.cc; the optimizer's in optim.cc). After every Bind* above.
void InstallFastCalls(py::module_& m);
void InstallFastOptimizerCalls();
void InstallFastCompiledCall();

}  // namespace seam::python

#endif  // SEAM_PYTHON_PY_TENSOR_H_
