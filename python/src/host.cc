// Tensors and host memory: NumPy arrays in (one copy into seam's host data), numpy() out
// (the device's bytes land in a buffer the array then owns: one copy), and DLPack both ways
// (CPU device; export shares the CPU plugin's buffer where it can and copies otherwise, see
// docs/python.md "NumPy and DLPack"). The GIL is released while seam reads from the device.
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "python/src/py_tensor.h"
#include "seam/interop.h"

namespace seam::python {
namespace {

// DLPack 0.8's kDLBool (the installed header, 0.6, predates it): NumPy bool arrays use it.
constexpr uint8_t kDLBoolCode = 6;

template <typename T>
py::array OwnedArray(std::vector<T>&& values, const std::vector<int64_t>& shape) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(std::vector<py::ssize_t>(shape.begin(), shape.end()), owned->data(), owner);
}

// `t` is a copy of the handle, taken with the GIL held: another Python thread may assign
// the PyTensor's value while this one waits without the GIL.
template <typename T>
std::vector<T> ReadHost(Tensor t) {
  py::gil_scoped_release release;
  return t.to_vector<T>();
}

// The tensor's elements as host memory: a typed vector kept alive by `storage`.
struct HostCopy {
  std::shared_ptr<void> storage;
  void* data = nullptr;
  DLDataType dl{};
};

template <typename T>
HostCopy MakeHostCopy(std::vector<T>&& v, uint8_t code, uint8_t bits) {
  auto owned = std::make_shared<std::vector<T>>(std::move(v));
  HostCopy out;
  out.data = owned->data();
  out.storage = owned;
  out.dl = DLDataType{code, bits, 1};
  return out;
}

HostCopy CopyToHost(const Tensor& t) {
  switch (t.dtype()) {
    case DType::kFloat32:
      return MakeHostCopy(ReadHost<float>(t), kDLFloat, 32);
    case DType::kFloat64:
      return MakeHostCopy(ReadHost<double>(t), kDLFloat, 64);
    case DType::kInt32:
      return MakeHostCopy(ReadHost<int32_t>(t), kDLInt, 32);
    case DType::kInt64:
      return MakeHostCopy(ReadHost<int64_t>(t), kDLInt, 64);
    case DType::kBFloat16:
      return MakeHostCopy(ReadHost<bfloat16>(t), kDLBfloat, 16);
    case DType::kBool: {
      std::vector<int32_t> wide = ReadHost<int32_t>(t.to(DType::kInt32));
      std::vector<uint8_t> narrow(wide.begin(), wide.end());
      return MakeHostCopy(std::move(narrow), kDLUInt, 8);  // DLPack 0.6 has no bool code
    }
  }
  ThrowInvalid("unknown dtype");
}

py::array ToNumpy(const Tensor& t) {
  const std::vector<int64_t> shape = t.shape();  // a copy: the read replaces the node
  switch (t.dtype()) {
    case DType::kFloat32:
    case DType::kBFloat16:  // NumPy has no bfloat16: widened exactly to float32
      return OwnedArray(ReadHost<float>(t), shape);
    case DType::kFloat64:
      return OwnedArray(ReadHost<double>(t), shape);
    case DType::kInt32:
      return OwnedArray(ReadHost<int32_t>(t), shape);
    case DType::kInt64:
      return OwnedArray(ReadHost<int64_t>(t), shape);
    case DType::kBool: {
      std::vector<int32_t> wide = ReadHost<int32_t>(t.to(DType::kInt32));
      auto* owned = new std::vector<uint8_t>(wide.begin(), wide.end());
      py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<uint8_t>*>(p); });
      return py::array(py::dtype("bool"), std::vector<py::ssize_t>(shape.begin(), shape.end()),
                       owned->data(), owner);
    }
  }
  ThrowInvalid("unknown dtype");
}

template <typename T>
Tensor FromBuffer(const void* data, int64_t count, std::vector<int64_t> shape) {
  std::span<const T> span(static_cast<const T*>(data), static_cast<size_t>(count));
  py::gil_scoped_release release;
  return Tensor::from_span(span, std::move(shape));
}

// A tensor from `count` elements of DLPack type `dl` at `data` (one copy).
Tensor FromTyped(const void* data, DLDataType dl, int64_t count, std::vector<int64_t> shape,
                 const std::string& what) {
  if (dl.lanes == 1) {
    if (dl.code == kDLFloat && dl.bits == 32) return FromBuffer<float>(data, count, shape);
    if (dl.code == kDLFloat && dl.bits == 64) return FromBuffer<double>(data, count, shape);
    if (dl.code == kDLInt && dl.bits == 32) return FromBuffer<int32_t>(data, count, shape);
    if (dl.code == kDLInt && dl.bits == 64) return FromBuffer<int64_t>(data, count, shape);
    if (dl.code == kDLBfloat && dl.bits == 16) return FromBuffer<bfloat16>(data, count, shape);
    if (dl.code == kDLUInt && dl.bits == 8) {  // seam has no uint8: widened exactly
      const auto* bytes = static_cast<const uint8_t*>(data);
      std::vector<int32_t> wide(bytes, bytes + count);
      py::gil_scoped_release release;
      return Tensor::from_vector(wide, std::move(shape));
    }
    if (dl.code == kDLBoolCode && dl.bits == 8) {
      const auto* bytes = static_cast<const uint8_t*>(data);
      std::vector<int32_t> wide(bytes, bytes + count);
      py::gil_scoped_release release;
      return Tensor::from_vector(wide, std::move(shape)).to(DType::kBool);
    }
  }
  ThrowInvalid(
      what + ": element type (DLPack code " + std::to_string(dl.code) + ", " +
      std::to_string(dl.bits) + " bits, " + std::to_string(dl.lanes) +
      " lanes) has no seam dtype (float32, float64, bfloat16, int32, int64, uint8 as int32, "
      "bool)");
}

DLDataType NumpyType(const py::array& a, const std::string& what) {
  const char kind = a.dtype().kind();
  const auto size = static_cast<uint8_t>(a.itemsize() * 8);
  if (kind == 'f' && (size == 32 || size == 64)) return {kDLFloat, size, 1};
  if (kind == 'i' && (size == 32 || size == 64)) return {kDLInt, size, 1};
  if (kind == 'b') return {kDLBoolCode, 8, 1};
  if (kind == 'u' && size == 8) return {kDLUInt, 8, 1};
  ThrowInvalid(
      what + ": NumPy dtype " + py::str(a.dtype()).cast<std::string>() +
      " has no seam dtype (float32, float64, int32, int64, bool, uint8 as int32; or give dtype=)");
}

Tensor FromNumpy(const py::array& a, std::optional<DType> dtype) {
  if (!(a.flags() & py::array::c_style)) ThrowInvalid("tensor: the array is not C-contiguous");
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  DLDataType dl = NumpyType(a, "tensor");
  if (dtype == DType::kBFloat16 && dl.code == kDLFloat && dl.bits == 32) {
    const auto* f = static_cast<const float*>(a.data());
    std::vector<float> values(f, f + a.size());
    py::gil_scoped_release release;
    return Tensor::from_vector(values, std::move(shape), DType::kBFloat16);
  }
  Tensor t = FromTyped(a.data(), dl, a.size(), std::move(shape), "tensor");
  if (dtype && *dtype != t.dtype()) t = t.to(*dtype);
  return t;
}

struct Exported {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  HostCopy host;
};

// The tensor's device buffer in place (float32/64, int32/64 on the CPU plugin), or
// nothing: then the export copies.
std::optional<HostCopy> SharedBuffer(Tensor t) {
  DLDataType dl{};
  switch (t.dtype()) {
    case DType::kFloat32:
      dl = DLDataType{kDLFloat, 32, 1};
      break;
    case DType::kFloat64:
      dl = DLDataType{kDLFloat, 64, 1};
      break;
    case DType::kInt32:
      dl = DLDataType{kDLInt, 32, 1};
      break;
    case DType::kInt64:
      dl = DLDataType{kDLInt, 64, 1};
      break;
    default:
      return std::nullopt;  // bfloat16 and bool are exported as converted copies
  }
  std::optional<SharedMemory> shared;
  {
    py::gil_scoped_release release;
    shared = share_memory(t);
  }
  if (!shared) return std::nullopt;
  HostCopy out;
  out.storage = std::move(shared->owner);
  out.data = shared->data;
  out.dl = dl;
  return out;
}

py::capsule ExportDlpack(const Tensor& t, bool copy) {
  auto* ex = new Exported;
  ex->shape = t.shape();
  try {
    std::optional<HostCopy> shared = copy ? std::nullopt : SharedBuffer(t);
    ex->host = shared ? std::move(*shared) : CopyToHost(t);
  } catch (...) {
    delete ex;
    throw;
  }
  DLTensor& dl = ex->managed.dl_tensor;
  dl.data = ex->host.data;
  dl.device = DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<int>(ex->shape.size());
  dl.dtype = ex->host.dl;
  dl.shape = ex->shape.data();
  dl.strides = nullptr;  // compact, row-major
  dl.byte_offset = 0;
  ex->managed.manager_ctx = ex;
  ex->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<Exported*>(self->manager_ctx);
  };
  // A capsule nobody consumed frees the tensor; a consumer renames it "used_dltensor" and
  // calls the deleter itself.
  return py::capsule(&ex->managed, "dltensor", [](PyObject* capsule) {
    // (PyCapsule_IsValid sets no exception, so an exception in flight is left alone.)
    if (PyCapsule_IsValid(capsule, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
      if (m != nullptr && m->deleter != nullptr) m->deleter(m);
    }
  });
}

Tensor ImportDlpack(py::object source) {
  py::object capsule = source;
  if (py::hasattr(source, "__dlpack__")) capsule = source.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor")) {
    ThrowInvalid(
        "from_dlpack: expected an object with __dlpack__ or an unused 'dltensor' capsule, got " +
        py::repr(source).cast<std::string>());
  }
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const DLTensor& dl = managed->dl_tensor;
  std::vector<int64_t> shape(dl.shape, dl.shape + dl.ndim);
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  auto release = [&] {
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    if (managed->deleter != nullptr) managed->deleter(managed);
  };
  try {
    if (dl.device.device_type != kDLCPU) {
      ThrowInvalid("from_dlpack: the tensor is on DLPack device type " +
                   std::to_string(dl.device.device_type) + ", not the CPU (1)");
    }
    if (dl.strides != nullptr) {
      int64_t expect = 1;
      for (int i = dl.ndim - 1; i >= 0; --i) {
        if (shape[i] != 1 && dl.strides[i] != expect) {
          ThrowInvalid(
              "from_dlpack: the tensor is not compact and row-major (strides); copy "
              "it contiguous first");
        }
        expect *= shape[i];
      }
    }
    const void* data = static_cast<const char*>(dl.data) + dl.byte_offset;
    Tensor t = FromTyped(data, dl.dtype, count, shape, "from_dlpack");
    release();
    return t;
  } catch (...) {
    release();
    throw;
  }
}

}  // namespace

// t.item(): the one element as a Python number, read straight into it (the step's loss
// read runs every step, so no NumPy array in between).
py::object ItemObject(const Tensor& value) {
  const int64_t count = value.numel();
  if (count != 1) {
    ThrowInvalid("item: only a tensor of one element converts to a Python number, this one has " +
                 std::to_string(count));
  }
  Tensor t = value;  // read without the GIL (see ReadHost)
  switch (t.dtype()) {
    case DType::kFloat32:
    case DType::kBFloat16:
      return py::float_(ReadHost<float>(t).front());
    case DType::kFloat64:
      return py::float_(ReadHost<double>(t).front());
    case DType::kInt32:
      return py::int_(ReadHost<int32_t>(t).front());
    case DType::kInt64:
      return py::int_(ReadHost<int64_t>(t).front());
    case DType::kBool:
      return py::bool_(ReadHost<int32_t>(t.to(DType::kInt32)).front() != 0);
  }
  ThrowInvalid("item: unknown dtype");
}

std::optional<Tensor> ArrayOperand(const char* op, const Tensor& like, py::handle other) {
  if (!py::isinstance<py::array>(other)) return std::nullopt;
  py::array a = py::reinterpret_borrow<py::array>(other);
  const char kind = a.dtype().kind();
  const DType to = like.dtype();
  const bool numeric = kind == 'f' || kind == 'i' || kind == 'u' || kind == 'b';
  const bool is_float = to == DType::kFloat32 || to == DType::kFloat64 || to == DType::kBFloat16;
  const bool fits = is_float             ? numeric
                    : to == DType::kBool ? kind == 'b'
                                         : kind == 'i' || kind == 'u' || kind == 'b';
  if (!fits) {
    ThrowInvalid(std::string(op) + ": a NumPy array of dtype " +
                 py::str(a.dtype()).cast<std::string>() +
                 " does not combine with a tensor of dtype " + dtype_name(to) +
                 " (the array takes the tensor's dtype; convert one of them first)");
  }
  // The array takes the tensor's dtype, as a Python number does (bfloat16 through float32).
  const char* numpy_type = to == DType::kBFloat16 ? "float32" : dtype_name(to);
  py::array converted =
      py::module_::import("numpy").attr("ascontiguousarray")(a, py::str(numpy_type));
  return FromNumpy(converted, to);
}

void BindHost(py::module_& m, py::class_<PyTensor, PyTensorPtr>& cls) {
  cls.def("numpy", [](const PyTensor& t) { return ToNumpy(t.value); });
  cls.def("item", [](const PyTensor& t) { return ItemObject(t.value); });
  cls.def(
      "__array__",
      [](const PyTensor& t, py::object dtype) {
        py::array a = ToNumpy(t.value);
        if (!dtype.is_none()) return py::array(a.attr("astype")(dtype));
        return a;
      },
      py::arg("dtype") = py::none());
  cls.def(
      "__dlpack__",
      [](const PyTensor& t, py::object, bool copy) { return ExportDlpack(t.value, copy); },
      py::arg("stream") = py::none(), py::arg("_copy") = false);
  // Whether the tensor's DLPack export would share its memory (for tests and users).
  cls.def("_dlpack_shares", [](const PyTensor& t) { return SharedBuffer(t.value).has_value(); });
  cls.def("__dlpack_device__", [](const PyTensor&) { return py::make_tuple(int(kDLCPU), 0); });
  m.def("_from_numpy",
        [](py::array a, std::optional<DType> dtype) { return Constant(FromNumpy(a, dtype)); });
  m.def("from_dlpack", [](py::object source) { return Constant(ImportDlpack(source)); });
}

}  // namespace seam::python
