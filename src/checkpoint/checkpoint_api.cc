// The public safetensors API (include/seam/checkpoint.h) over src/checkpoint/safetensors.h.
#include <bit>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/checkpoint.h"
#include "src/checkpoint/safetensors.h"

namespace seam::checkpoint {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; seam writes host bytes as they are");

[[noreturn]] void Throw(const absl::Status& status) {
  throw Error(static_cast<int>(status.code()), std::string(status.message()));
}

// A tensor's host bytes, kept alive until the file is written.
struct HostCopy {
  DType dtype = DType::kF32;
  std::vector<uint8_t> bytes;
};

template <typename T>
std::vector<uint8_t> BytesOf(const Tensor& t) {
  std::vector<T> values = t.to_vector<T>();
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

HostCopy CopyOut(const std::string& name, const Tensor& t) {
  switch (t.dtype()) {
    case seam::DType::kFloat32:
      return {DType::kF32, BytesOf<float>(t)};
    case seam::DType::kFloat64:
      return {DType::kF64, BytesOf<double>(t)};
    case seam::DType::kInt32:
      return {DType::kI32, BytesOf<int32_t>(t)};
    case seam::DType::kBool:
      break;
  }
  throw Error(3, absl::StrCat("save_file: tensor '", name,
                              "' is bool; the files hold float32, float64 and int32 tensors"));
}

template <typename T>
Tensor MakeTensor(absl::Span<const uint8_t> bytes, const std::vector<int64_t>& shape) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return Tensor::from_vector(values, shape);
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
      throw Error(12, absl::StrCat("load_file: ", path, ": tensor '", info.name, "' is ",
                                   DTypeName(info.dtype), "; the tensor API reads F32, F64 ",
                                   "and I32 (other dtypes come with the front end's types)"));
    }
  }
  Loaded loaded;
  loaded.metadata = header.metadata;
  for (const TensorInfo& info : header.tensors) {
    absl::Span<const uint8_t> bytes = (*file)->Bytes(info);
    Tensor t = info.dtype == DType::kF32   ? MakeTensor<float>(bytes, info.shape)
               : info.dtype == DType::kF64 ? MakeTensor<double>(bytes, info.shape)
                                           : MakeTensor<int32_t>(bytes, info.shape);
    loaded.tensors.emplace(info.name, std::move(t));
  }
  return loaded;
}

void write_text_file(const std::string& path, const std::string& text) {
  if (absl::Status status = WriteTextFile(path, text); !status.ok()) Throw(status);
}

}  // namespace seam::checkpoint
