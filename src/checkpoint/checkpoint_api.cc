// The public safetensors API (include/seam/checkpoint.h) over src/checkpoint/safetensors.h.
#include <bit>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/checkpoint.h"
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

// A tensor's host bytes (the literal read from the device, not copied again), kept alive
// until the file is written.
struct HostCopy {
  DType dtype = DType::kF32;
  std::shared_ptr<const ir::Literal> owner;
  absl::Span<const uint8_t> bytes;
};

HostCopy Read(DType dtype, const Tensor& t) {
  absl::StatusOr<ir::Literal> literal =
      lazy::ReadTensor(TensorAccess::Impl(t, "save_file"), "save_file");
  if (!literal.ok()) Throw(literal.status());
  auto owner = std::make_shared<const ir::Literal>(*std::move(literal));
  return {dtype, owner, absl::Span<const uint8_t>(owner->bytes.data(), owner->bytes.size())};
}

HostCopy CopyOut(const std::string& name, const Tensor& t) {
  switch (t.dtype()) {
    case seam::DType::kFloat32:
      return Read(DType::kF32, t);
    case seam::DType::kFloat64:
      return Read(DType::kF64, t);
    case seam::DType::kInt32:
      return Read(DType::kI32, t);
    case seam::DType::kBool:
      break;
  }
  throw Error(ErrorCode::kInvalidArgument,
              absl::StrCat("save_file: tensor '", name,
                           "' is bool; the files hold float32, float64 and int32 tensors"));
}

// A tensor on the device, sent straight from the file's mapping: no host copy is made or
// kept, so loading needs host memory for the mapping's pages only (file-backed).
Tensor Upload(const TensorInfo& info, absl::Span<const uint8_t> bytes) {
  const ir::DType dtype = info.dtype == DType::kF32   ? ir::DType::kF32
                          : info.dtype == DType::kF64 ? ir::DType::kF64
                                                      : ir::DType::kS32;
  static const uint8_t kNoBytes = 0;  // an empty tensor still needs a valid pointer
  absl::StatusOr<lazy::NodePtr> leaf =
      lazy::UploadedLeaf(ir::Shape{dtype, info.shape}, bytes.empty() ? &kNoBytes : bytes.data());
  if (!leaf.ok()) Throw(leaf.status());
  return lazy::Wrap(*std::move(leaf));
}

}  // namespace

void save_file(const std::string& path, const std::map<std::string, Tensor>& tensors,
               const std::map<std::string, std::string>& metadata) {
  std::vector<HostCopy> copies;
  copies.reserve(tensors.size());
  std::vector<TensorToWrite> writes;
  for (const auto& [name, tensor] : tensors) {
    copies.push_back(CopyOut(name, tensor));
    writes.push_back({name, copies.back().dtype, tensor.shape(), copies.back().bytes});
  }
  if (absl::Status status = WriteFile(path, writes, metadata); !status.ok()) Throw(status);
}

Loaded load_file(const std::string& path) {
  absl::StatusOr<std::unique_ptr<File>> file = File::Open(path);
  if (!file.ok()) Throw(file.status());
  const Header& header = (*file)->header();
  for (const TensorInfo& info : header.tensors) {  // every dtype first: load all or nothing
    if (info.dtype != DType::kF32 && info.dtype != DType::kF64 && info.dtype != DType::kI32) {
      throw Error(ErrorCode::kUnimplemented,
                  absl::StrCat("load_file: ", path, ": tensor '", info.name, "' is ",
                               DTypeName(info.dtype), "; the tensor API reads F32, F64 ",
                               "and I32 (other dtypes come with the front end's types)"));
    }
  }
  Loaded loaded;
  loaded.metadata = header.metadata;
  for (const TensorInfo& info : header.tensors) {
    loaded.tensors.emplace(info.name, Upload(info, (*file)->Bytes(info)));
  }
  return loaded;
}

void write_text_file(const std::string& path, const std::string& text) {
  if (absl::Status status = WriteTextFile(path, text); !status.ok()) Throw(status);
}

}  // namespace seam::checkpoint
