// The public safetensors API (include/seam/checkpoint.h) over src/checkpoint/safetensors.h.
#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/checkpoint.h"
#include "src/base/status_macros.h"
#include "src/checkpoint/safetensors.h"
#include "src/lazy/graph_executor.h"
#include "src/lazy/runtime.h"
#include "src/lazy/step_runner.h"
#include "src/lazy/tensor_internal.h"

namespace seam::checkpoint {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; seam writes host bytes as they are");

[[noreturn]] void Throw(const absl::Status& status) {
  throw Error(static_cast<ErrorCode>(status.code()), std::string(status.message()));
}

// Host buffers for one save's tensors, each as large as the largest tensor and reused: the
// writer holds at most two (one being written, one waiting) while the caller fills a third,
// so at most three are made per save and their pages are faulted in once. (Transparent huge
// pages were tried: a first save's reads took 3-8 s instead of under 1 s on the VM of
// BENCHMARKS.md table 15, cause not pinned down.)
class HostBuffers : public std::enable_shared_from_this<HostBuffers> {
 public:
  explicit HostBuffers(size_t largest) : largest_(std::max<size_t>(largest, 1)) {}

  // A buffer of the largest tensor's size, given back to the pool when its last owner drops
  // it.
  absl::StatusOr<std::shared_ptr<uint8_t>> Take() {
    std::unique_ptr<uint8_t[]> memory;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        memory = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (memory == nullptr) memory.reset(new (std::nothrow) uint8_t[largest_]);  // not zeroed
    if (memory == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "save_file: cannot allocate ", largest_, " bytes of host memory for a tensor's bytes"));
    }
    return std::shared_ptr<uint8_t>(memory.release(), [pool = shared_from_this()](uint8_t* p) {
      std::lock_guard<std::mutex> lock(pool->mu_);
      pool->free_.emplace_back(p);
    });
  }

 private:
  const size_t largest_;
  std::mutex mu_;
  std::vector<std::unique_ptr<uint8_t[]>> free_;  // guarded by mu_
};

// A tensor's host bytes, read from the device straight into a buffer of `pool` and kept
// alive by the result until the file has them.
absl::StatusOr<TensorBytes> Read(const Tensor& t, HostBuffers& pool) {
  const std::shared_ptr<lazy::TensorImpl>& impl = TensorAccess::Impl(t, "save_file");
  const size_t size = impl->node()->shape.byte_size();
  SEAM_ASSIGN_OR_RETURN(std::shared_ptr<uint8_t> buffer, pool.Take());
  const absl::Span<uint8_t> bytes(buffer.get(), size);
  SEAM_RETURN_IF_ERROR(lazy::ReadTensorInto(impl, "save_file", bytes));
  return TensorBytes{bytes, std::move(buffer)};
}

// The file's dtype for `t`, or an Error naming the tensor.
DType FileDType(const std::string& name, const Tensor& t) {
  switch (t.dtype()) {
    case seam::DType::kFloat32:
      return DType::kF32;
    case seam::DType::kFloat64:
      return DType::kF64;
    case seam::DType::kInt32:
      return DType::kI32;
    case seam::DType::kBFloat16:
      return DType::kBF16;
    case seam::DType::kInt64:
      return DType::kI64;
    case seam::DType::kBool:
      break;
  }
  throw Error(ErrorCode::kInvalidArgument,
              absl::StrCat("save_file: tensor '", name, "' is ", dtype_name(t.dtype()),
                           "; the files hold float32, float64, bfloat16, int32 and int64 "
                           "tensors (convert it with .to())"));
}

// The tensor dtype of a file dtype; nullopt for the file dtypes the tensor API lacks.
std::optional<ir::DType> TensorDType(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return ir::DType::kF32;
    case DType::kF64:
      return ir::DType::kF64;
    case DType::kBF16:
      return ir::DType::kBF16;
    case DType::kI32:
      return ir::DType::kS32;
    case DType::kI64:
      return ir::DType::kS64;
    case DType::kBool:
    case DType::kU8:
    case DType::kI8:
    case DType::kU16:
    case DType::kI16:
    case DType::kF16:
    case DType::kU32:
    case DType::kU64:
      break;
  }
  return std::nullopt;
}

// A tensor on the device, sent straight from the file's mapping: no host copy is made or
// kept, so loading needs host memory for the mapping's pages only (file-backed).
Tensor Upload(const TensorInfo& info, ir::DType dtype, absl::Span<const uint8_t> bytes) {
  static const uint8_t kNoBytes = 0;  // an empty tensor still needs a valid pointer
  absl::StatusOr<lazy::NodePtr> leaf =
      lazy::UploadedLeaf(lazy::CurrentRuntime(), ir::Shape{dtype, info.shape},
                         bytes.empty() ? &kNoBytes : bytes.data());
  if (!leaf.ok()) Throw(leaf.status());
  return lazy::Wrap(*std::move(leaf));
}

}  // namespace

void save_file(const std::string& path, const std::map<std::string, Tensor>& tensors,
               const std::map<std::string, std::string>& metadata) {
  // Names, dtypes and shapes first (the header); each tensor is read from the device only
  // when the writing reaches it, overlapping the write of the one before.
  std::vector<const Tensor*> order;
  std::vector<TensorToWrite> writes;
  std::vector<std::shared_ptr<lazy::TensorImpl>> impls;
  size_t largest = 0;
  for (const auto& [name, tensor] : tensors) {
    writes.push_back({name, FileDType(name, tensor), tensor.shape(), {}});
    order.push_back(&tensor);
    impls.push_back(TensorAccess::Impl(tensor, "save_file"));
    largest = std::max(largest, impls.back()->node()->shape.byte_size());
  }
  // Every pending tensor (a weight transposed into PyTorch's layout) in one step, launched
  // now: the device computes them while the first ones are read and written.
  if (absl::Status s = lazy::SyncTensors(impls, /*donate=*/false); !s.ok()) Throw(s);
  auto pool = std::make_shared<HostBuffers>(largest);
  absl::Status status =
      WriteFileStreamed(path, writes, metadata, [&](size_t i) { return Read(*order[i], *pool); });
  if (!status.ok()) Throw(status);
}

Loaded load_file(const std::string& path) {
  absl::StatusOr<std::unique_ptr<File>> file = File::Open(path);
  if (!file.ok()) Throw(file.status());
  const Header& header = (*file)->header();
  for (const TensorInfo& info : header.tensors) {  // every dtype first: load all or nothing
    if (!TensorDType(info.dtype).has_value()) {
      throw Error(
          ErrorCode::kUnimplemented,
          absl::StrCat("load_file: ", path, ": tensor '", info.name, "' is ", DTypeName(info.dtype),
                       "; the tensor API reads F32, F64, ", "BF16, I32 and I64"));
    }
  }
  Loaded loaded;
  loaded.metadata = header.metadata;
  for (const TensorInfo& info : header.tensors) {
    loaded.tensors.emplace(info.name, Upload(info, *TensorDType(info.dtype), (*file)->Bytes(info)));
  }
  return loaded;
}

void write_text_file(const std::string& path, const std::string& text) {
  if (absl::Status status = WriteTextFile(path, text); !status.ok()) Throw(status);
}

}  // namespace seam::checkpoint
