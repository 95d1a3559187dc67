// Tensor::sort and Tensor::topk through the public API: values and indices against
// std::stable_sort (computed here) for every accepted dtype, NaN and ties, 0-sized axes;
// the values' gradient against central finite differences in f64; the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "error_of.h"
#include "grad_check.h"
#include "seam/tensor.h"

namespace seam {
namespace {

// The expected sort of one lane: ascending with NaN above everything (or that order
// reversed), stable.
template <typename T>
std::vector<int64_t> StableOrder(const std::vector<T>& lane, bool descending) {
  std::vector<int64_t> order(lane.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  auto key_less = [](T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  };
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return descending ? key_less(lane[b], lane[a]) : key_less(lane[a], lane[b]);
  });
  return order;
}

// x [rows, cols] sorted along `axis`: the expected indices and values, row-major.
template <typename T>
void Expected(const std::vector<T>& x, int64_t rows, int64_t cols, int64_t axis, bool descending,
              int64_t k, std::vector<int64_t>* indices, std::vector<T>* values) {
  const int64_t lanes = axis == 1 ? rows : cols, extent = axis == 1 ? cols : rows;
  const int64_t out_rows = axis == 1 ? rows : k, out_cols = axis == 1 ? k : cols;
  indices->assign(static_cast<size_t>(out_rows * out_cols), 0);
  values->assign(indices->size(), T{});
  for (int64_t l = 0; l < lanes; ++l) {
    std::vector<T> lane;
    for (int64_t e = 0; e < extent; ++e) lane.push_back(x[axis == 1 ? l * cols + e : e * cols + l]);
    const std::vector<int64_t> order = StableOrder(lane, descending);
    for (int64_t j = 0; j < k; ++j) {
      const int64_t at = axis == 1 ? l * out_cols + j : j * out_cols + l;
      (*indices)[at] = order[j];
      (*values)[at] = lane[order[j]];
    }
  }
}

// Few distinct values (ties), and for floats NaN, +-inf and signed zeros.
template <typename T>
std::vector<T> Data(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) {
    const int pick = static_cast<int>(rng() % 12);
    if constexpr (std::is_floating_point_v<T>) {
      const T specials[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                            -std::numeric_limits<T>::infinity(), T(-0.0), T(0.0)};
      x = pick < 5 ? specials[pick] : static_cast<T>(static_cast<int>(rng() % 7) - 3) / 2;
    } else {
      x = static_cast<T>(static_cast<int64_t>(rng() % 9) - 4) * (pick == 0 ? 1000000 : 1);
    }
  }
  return v;
}

template <typename T>
bool SameValues(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a[i]) && std::isnan(b[i])) continue;
      if (std::signbit(a[i]) != std::signbit(b[i])) return false;
    }
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

// The dtype whose host element type is T (values are read back through it).
template <typename T>
DType HostDType() {
  if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
  if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kInt32;
  return DType::kInt64;
}

template <typename T>
void CheckSorts(DType dtype) {
  const int64_t rows = 5, cols = 9;
  const std::vector<T> x = Data<T>(rows * cols, 3 + static_cast<int>(dtype));
  const Tensor t = Tensor::from_vector(x, {rows, cols}).to(dtype);
  for (int64_t axis : {0, 1}) {
    for (bool descending : {false, true}) {
      const int64_t extent = axis == 1 ? cols : rows;
      std::vector<int64_t> indices;
      std::vector<T> values;
      Expected(x, rows, cols, axis, descending, extent, &indices, &values);
      SortResult r = t.sort(axis, descending);
      EXPECT_EQ(r.indices.dtype(), DType::kInt64);
      EXPECT_EQ(r.indices.to_vector<int64_t>(), indices)
          << dtype_name(dtype) << " axis " << axis << " descending " << descending;
      EXPECT_TRUE(SameValues(r.values.to(HostDType<T>()).template to_vector<T>(), values))
          << dtype_name(dtype) << " axis " << axis;
    }
    const int64_t k = 3;
    std::vector<int64_t> indices;
    std::vector<T> values;
    Expected(x, rows, cols, axis, true, k, &indices, &values);
    SortResult top = t.topk(k, axis);
    EXPECT_EQ(top.indices.to_vector<int64_t>(), indices) << dtype_name(dtype) << " topk " << axis;
    EXPECT_TRUE(SameValues(top.values.to(HostDType<T>()).template to_vector<T>(), values));
  }
}

TEST(SortTest, MatchesStableSortForEveryDType) {
  CheckSorts<double>(DType::kFloat64);
  CheckSorts<int64_t>(DType::kInt64);
}

// float32, bfloat16 (its data are small halves, exact in bfloat16) and int32 from host
// vectors of their own element types.
TEST(SortTest, MatchesStableSortForNarrowDTypes) {
  CheckSorts<float>(DType::kFloat32);
  CheckSorts<float>(DType::kBFloat16);
  CheckSorts<int32_t>(DType::kInt32);
}

// 300 x 300 elements: above the CPU plugin's threshold for splitting lanes over threads.
TEST(SortTest, LargeSortsAlongEitherAxis) {
  const int64_t n = 300;
  const std::vector<float> x = Data<float>(static_cast<size_t>(n * n), 17);
  const Tensor t = Tensor::from_vector(x, {n, n});
  for (int64_t axis : {0, 1}) {
    std::vector<int64_t> indices;
    std::vector<float> values;
    Expected(x, n, n, axis, axis == 0, n, &indices, &values);
    SortResult r = t.sort(axis, axis == 0);
    EXPECT_EQ(r.indices.to_vector<int64_t>(), indices) << "axis " << axis;
    EXPECT_TRUE(SameValues(r.values.to_vector<float>(), values)) << "axis " << axis;
  }
}

TEST(SortTest, ZeroSizedShapes) {
  Tensor empty_axis = Tensor::zeros({3, 0});
  SortResult r = empty_axis.sort(1);
  EXPECT_EQ(r.values.shape(), (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(r.indices.to_vector<int64_t>().size(), 0u);
  SortResult t = Tensor::zeros({0, 4}).topk(2, 1);
  EXPECT_EQ(t.values.shape(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(t.indices.shape(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(Tensor::zeros({2, 3}).topk(0, 1).values.shape(), (std::vector<int64_t>{2, 0}));
}

TEST(SortTest, TopkAndSortGradientsMatchFiniteDifferences) {
  using gradcheck::CheckGrad;
  using V = std::vector<Tensor>;
  CheckGrad([](const V& x) { return x[0].topk(2, 1).values; }, {{3, 5}});
  CheckGrad([](const V& x) { return x[0].topk(3, 0).values; }, {{4, 2}});
  CheckGrad([](const V& x) { return x[0].sort(0, false).values * x[0].sort(0).values; }, {{4, 3}});
  CheckGrad([](const V& x) { return x[0].sort(-1, true).values.exp(); }, {{2, 6}});
}

TEST(SortTest, IndicesCarryNoGradient) {
  Tensor x = Tensor::from_vector(std::vector<double>{3, 1, 2}, {3});
  SortResult r = x.topk(2, 0);
  // Only the values reach x: the loss through the indices alone has no parameter path.
  std::vector<double> g = grad((r.values * 2.0).sum() + r.indices.to(DType::kFloat64).sum(), {x})[0]
                              .to_vector<double>();
  EXPECT_EQ(g, (std::vector<double>{2, 0, 2}));
}

TEST(SortTest, Errors) {
  Tensor x = Tensor::zeros({2, 3});
  EXPECT_EQ(ErrorOf([&] { x.topk(4, 1); }),
            "topk: k=4 is outside [0, 3], the size of axis 1 of f32[2,3]");
  EXPECT_EQ(ErrorOf([&] { x.topk(-1, -1); }),
            "topk: k=-1 is outside [0, 3], the size of axis -1 of f32[2,3]");
  EXPECT_EQ(ErrorOf([&] { x.sort(2); }), "sort: axis 2 is out of range for f32[2,3]");
  EXPECT_EQ(ErrorOf([&] { x.topk(1, -3); }), "topk: axis -3 is out of range for f32[2,3]");
  Tensor b = Tensor::zeros({2}) > 0.0;
  EXPECT_EQ(ErrorOf([&] { b.sort(0); }), "sort: needs a numeric tensor, got pred[2]");
}

}  // namespace
}  // namespace seam
