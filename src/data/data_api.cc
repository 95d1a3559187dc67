// The public data API (include/seam/data.h): the loaders of idx.h, with seam::Error.
#include "seam/data.h"
#include "src/data/idx.h"

namespace seam::data {
namespace {

[[noreturn]] void Throw(const absl::Status& status) {
  throw Error(static_cast<int>(status.code()), std::string(status.message()));
}

}  // namespace

IdxArray read_idx(const std::string& path) {
  absl::StatusOr<IdxArray> array = ReadIdx(path);
  if (!array.ok()) Throw(array.status());
  return *std::move(array);
}

ImageSet load_fashion_mnist(bool train, const std::string& dir) {
  absl::StatusOr<ImageSet> set = LoadFashionMnist(dir, train);
  if (!set.ok()) Throw(set.status());
  return *std::move(set);
}

}  // namespace seam::data
