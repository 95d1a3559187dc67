// The public safetensors API (include/seam/checkpoint.h) over src/checkpoint/safetensors.h.
#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/checkpoint.h"
#include "src/base/status_macros.h"
#include "src/checkpoint/safetensors.h"
#include "src/lazy/graph_executor.h"
#include "src/lazy/step_runner.h"
#include "src/lazy/tensor_internal.h"

namespace seam::checkpoint {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; seam writes host bytes as they are");

[[noreturn]] void Throw(const absl::Status& status) {
  throw Error(static_cast<ErrorCode>(status.code()), std::string(status.message()));
}

// Host buffers for one save's tensors, reused: the writer holds at most two (one being
// written, one waiting) while the caller fills a third, so a few buffers, each grown to the
// largest tensor it has held, serve the whole file and their pages are faulted in once.
class HostBuffers : public std::enable_shared_from_this<HostBuffers> {
 public:
  // A buffer of at least `size` bytes, given back to the pool when its last owner drops it.
  std::shared_ptr<uint8_t> Take(size_t size) {
    Buffer buffer;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // The smallest free buffer that fits, else the largest free one (grown below).
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it) {
        if (best == free_.end() || Better(*it, *best, size)) best = it;
      }
      if (best != free_.end()) {
        buffer = std::move(*best);
        free_.erase(best);
      }
    }
    if (buffer.capacity < size) {
      buffer.data.reset(new uint8_t[std::max<size_t>(size, 1)]);  // not zeroed: overwritten
      buffer.capacity = size;
    }
    uint8_t* data = buffer.data.release();
    const size_t capacity = buffer.capacity;
    return std::shared_ptr<uint8_t>(data, [pool = shared_from_this(), capacity](uint8_t* p) {
      std::lock_guard<std::mutex> lock(pool->mu_);
      pool->free_.push_back({std::unique_ptr<uint8_t[]>(p), capacity});
    });
  }

 private:
  struct Buffer {
    std::unique_ptr<uint8_t[]> data;
    size_t capacity = 0;
  };
  // For a tensor of `size` bytes: one that fits beats one that does not; among those that
  // fit the smaller, among those that do not the larger.
  static bool Better(const Buffer& a, const Buffer& b, size_t size) {
    const bool a_fits = a.capacity >= size, b_fits = b.capacity >= size;
    if (a_fits != b_fits) return a_fits;
    return a_fits ? a.capacity < b.capacity : a.capacity > b.capacity;
  }
  std::mutex mu_;
  std::vector<Buffer> free_;  // guarded by mu_
};

// A tensor's host bytes, read from the device straight into a buffer of `pool` and kept
// alive by the result until the file has them.
absl::StatusOr<TensorBytes> Read(const Tensor& t, HostBuffers& pool) {
  const std::shared_ptr<lazy::TensorImpl>& impl = TensorAccess::Impl(t, "save_file");
  const size_t size = impl->node()->shape.byte_size();
  std::shared_ptr<uint8_t> buffer = pool.Take(size);
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
      lazy::UploadedLeaf(ir::Shape{dtype, info.shape}, bytes.empty() ? &kNoBytes : bytes.data());
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
  for (const auto& [name, tensor] : tensors) {
    writes.push_back({name, FileDType(name, tensor), tensor.shape(), {}});
    order.push_back(&tensor);
  }
  auto pool = std::make_shared<HostBuffers>();
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
