#include "src/data/idx.h"

#include <zlib.h>

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"

namespace seam::data {
namespace {

constexpr int64_t kMaxBytes = int64_t{1} << 32;  // far above any IDX file seam reads

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

// Reads exactly `size` bytes; false on a short read.
bool ReadExactly(gzFile file, void* out, size_t size) {
  auto* bytes = static_cast<uint8_t*>(out);
  while (size > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(size, 1u << 30));
    int got = gzread(file, bytes, chunk);
    if (got <= 0) return false;
    bytes += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

absl::StatusOr<IdxArray> ReadIdx(const std::string& path) {
  // gzopen reads plain files too (transparently), so both forms work.
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (file == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot open IDX file ", path));
  }
  uint8_t magic[4];
  if (!ReadExactly(file.get(), magic, sizeof(magic))) {
    return absl::DataLossError(absl::StrCat(path, ": too short for an IDX header"));
  }
  if (magic[0] != 0 || magic[1] != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not an IDX file (magic bytes ",
                                                   magic[0], " ", magic[1], ", expected 0 0)"));
  }
  if (magic[2] != 0x08) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": element type 0x", absl::Hex(magic[2]),
                                                   " is not unsigned byte (0x08)"));
  }
  IdxArray array;
  int64_t count = 1;
  for (int d = 0; d < magic[3]; ++d) {
    uint8_t be[4];
    if (!ReadExactly(file.get(), be, sizeof(be))) {
      return absl::DataLossError(absl::StrCat(path, ": header ends inside dimension ", d));
    }
    int64_t size = (int64_t{be[0]} << 24) | (be[1] << 16) | (be[2] << 8) | be[3];
    array.dims.push_back(size);
    count *= size;
    if (count > kMaxBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": dimensions describe more than ", kMaxBytes, " bytes"));
    }
  }
  array.values.resize(static_cast<size_t>(count));
  if (!ReadExactly(file.get(), array.values.data(), array.values.size())) {
    return absl::DataLossError(
        absl::StrCat(path, ": fewer bytes than the dimensions promise (", count, ")"));
  }
  return array;
}

absl::StatusOr<ImageSet> LoadFashionMnist(const std::string& dir, bool train) {
  std::string prefix = absl::StrCat(dir, "/", train ? "train" : "t10k");
  std::string images_path = prefix + "-images-idx3-ubyte.gz";
  std::string labels_path = prefix + "-labels-idx1-ubyte.gz";
  if (std::FILE* f = std::fopen(images_path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    return absl::NotFoundError(
        absl::StrCat("Fashion-MNIST not found: ", images_path,
                     " is missing. Install Debian's dataset-fashion-mnist package "
                     "(scripts/install-deps.sh does)."));
  }
  SEAM_ASSIGN_OR_RETURN(IdxArray images, ReadIdx(images_path));
  SEAM_ASSIGN_OR_RETURN(IdxArray labels, ReadIdx(labels_path));
  if (images.dims.size() != 3 || labels.dims.size() != 1 || images.dims[0] != labels.dims[0]) {
    return absl::InvalidArgumentError(absl::StrCat(images_path, " and ", labels_path,
                                                   " do not describe the same number of images"));
  }
  ImageSet set;
  set.count = images.dims[0];
  set.rows = images.dims[1];
  set.cols = images.dims[2];
  set.images.resize(images.values.size());
  for (size_t i = 0; i < images.values.size(); ++i)
    set.images[i] = static_cast<float>(images.values[i]) / 255.0f;
  set.labels.reserve(labels.values.size());
  for (uint8_t label : labels.values) {
    if (label > 9) {
      return absl::InvalidArgumentError(
          absl::StrCat(labels_path, ": label ", int{label}, " is outside 0..9"));
    }
    set.labels.push_back(label);
  }
  return set;
}

}  // namespace seam::data
