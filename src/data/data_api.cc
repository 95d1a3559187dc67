// The public data API (include/seam/data.h): the loaders of idx.h, with seam::Error.
#include <algorithm>
#include <new>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "seam/data.h"
#include "src/data/idx.h"

namespace seam::data {
namespace {

[[noreturn]] void Throw(const absl::Status& status) {
  throw Error(static_cast<ErrorCode>(status.code()), std::string(status.message()));
}

// Running out of memory is a seam::Error too (RESOURCE_EXHAUSTED naming the file).
template <typename Load>
auto Call(const std::string& what, Load load) {
  decltype(load()) result = absl::UnknownError("");
  try {
    result = load();
  } catch (const std::bad_alloc&) {
    Throw(absl::ResourceExhaustedError(absl::StrCat(what, ": out of host memory")));
  }
  if (!result.ok()) Throw(result.status());
  return *std::move(result);
}

}  // namespace

IdxArray read_idx(const std::string& path) {
  return Call(path, [&] { return ReadIdx(path); });
}

ImageSet load_fashion_mnist(bool train, const std::string& dir) {
  return Call(dir, [&] { return LoadFashionMnist(dir, train); });
}

std::vector<int64_t> shuffled_order(int64_t count, std::mt19937_64& rng) {
  if (count < 0) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("shuffled_order: the count ", count, " is negative"));
  }
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

}  // namespace seam::data
