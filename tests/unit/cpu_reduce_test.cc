// reduce_sum / reduce_max of the CPU plugin over adjacent axes (the [outer, reduced, inner]
// fast path: leading, trailing, middle, none, all), kept axes between reduced ones (the
// [outer, kept, inner] path) and other non-adjacent ones (the general walk), against a plain
// loop that folds each result's inputs in increasing index order in f32: the order every
// path promises, so the bits must agree exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {
namespace {

struct Case {
  std::vector<int64_t> dims;
  std::vector<int64_t> axes;
};

std::string DimsText(const std::vector<int64_t>& dims) {
  return absl::StrCat("f32[", absl::StrJoin(dims, ","), "]");
}

// The product of the trailing reduced dimensions when the kept axes form one block with
// reduced axes on both sides ([outer, kept, inner]); for a reduction of every axis (rank
// 2 or more), the last dimension ([rows, 1, last]); else 0.
int64_t KeptMiddleInner(const Case& c) {
  const int64_t rank = static_cast<int64_t>(c.dims.size());
  std::vector<bool> reduced(rank, false);
  for (int64_t a : c.axes) reduced[a] = true;
  if (rank >= 2 && static_cast<int64_t>(c.axes.size()) == rank) return c.dims[rank - 1];
  int64_t first = 0;
  while (first < rank && reduced[first]) ++first;
  int64_t last = first;
  while (last < rank && !reduced[last]) ++last;
  int64_t inner = 1;
  for (int64_t d = last; d < rank; ++d) {
    if (!reduced[d]) return 0;
    inner *= c.dims[d];
  }
  return first == 0 || last == rank || first == last ? 0 : inner;
}

// Folds in row-major order of the operand: each result accumulates its inputs by
// increasing linear index. Except f32 sums over [outer, kept, inner] with rows of at
// least kLaneSumMinimumRow: there each result adds its inputs into 32 lanes, row position
// p into lane p % 32, in increasing linear index, then the lanes fold as halves (lane l
// plus lane l + 16, then + 8, + 4, + 2, + 1) and that is added to 0.
std::vector<float> Expected(const Case& c, const std::vector<float>& x, bool max) {
  const int64_t rank = static_cast<int64_t>(c.dims.size());
  std::vector<bool> reduced(rank, false);
  for (int64_t a : c.axes) reduced[a] = true;
  const int64_t lane_inner = KeptMiddleInner(c);
  if (!max && lane_inner >= kLaneSumMinimumRow) {
    int64_t kept = 1;
    for (int64_t d = 0; d < rank; ++d) kept *= reduced[d] ? 1 : c.dims[d];
    std::vector<float> lanes(kept * 32, 0.0f);
    for (size_t pos = 0; pos < x.size(); ++pos) {
      const int64_t row = static_cast<int64_t>(pos) / lane_inner;
      const int64_t p = static_cast<int64_t>(pos) % lane_inner;
      float& lane = lanes[(row % kept) * 32 + p % 32];
      lane = lane + x[pos];
    }
    std::vector<float> acc(kept);
    for (int64_t k = 0; k < kept; ++k) {
      float* t = &lanes[k * 32];
      for (int step = 16; step >= 1; step /= 2) {
        for (int l = 0; l < step; ++l) t[l] = t[l] + t[l + step];
      }
      acc[k] = 0.0f + t[0];
    }
    return acc;
  }
  int64_t out_count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) out_count *= c.dims[d];
  }
  std::vector<float> acc(out_count, max ? -INFINITY : 0.0f);
  std::vector<int64_t> index(rank, 0);
  for (size_t pos = 0; pos < x.size(); ++pos) {
    int64_t out = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d]) out = out * c.dims[d] + index[d];
    }
    acc[out] = max ? std::max(acc[out], x[pos]) : acc[out] + x[pos];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < c.dims[d]) break;
      index[d] = 0;
    }
  }
  return acc;
}

class ReduceOrderTest : public ::testing::TestWithParam<Case> {};

TEST_P(ReduceOrderTest, SumAndMaxFoldInIndexOrder) {
  const Case& c = GetParam();
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < static_cast<int64_t>(c.dims.size()); ++d) {
    if (std::find(c.axes.begin(), c.axes.end(), d) == c.axes.end()) kept.push_back(c.dims[d]);
  }
  int64_t count = 1;
  for (int64_t d : c.dims) count *= d;
  std::mt19937 rng(static_cast<unsigned>(count));
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(count);
  for (float& v : x) v = dist(rng);
  for (const bool max : {false, true}) {
    const std::string text =
        absl::StrCat("program @r {\n  %x = parameter(0) : ", DimsText(c.dims),
                     "\n  %r = ", max ? "reduce_max" : "reduce_sum", "(%x), axes={",
                     absl::StrJoin(c.axes, ","), "} : ", DimsText(kept), "\n  return (%r)\n}");
    auto executable = Executable::Compile(text);
    ASSERT_TRUE(executable.ok()) << executable.status() << "\n" << text;
    auto input = std::make_shared<DeviceMemory>(x.size() * sizeof(float));
    if (!x.empty()) std::memcpy(input->data(), x.data(), x.size() * sizeof(float));
    auto results = (*executable)->Run({input});
    ASSERT_TRUE(results.ok()) << results.status();
    const std::vector<float> expected = Expected(c, x, max);
    ASSERT_EQ((*results)[0]->size(), expected.size() * sizeof(float)) << text;
    std::vector<float> actual(expected.size());
    if (!actual.empty()) std::memcpy(actual.data(), (*results)[0]->data(), (*results)[0]->size());
    for (size_t i = 0; i < expected.size(); ++i) {
      // Bitwise: the same additions in the same order.
      ASSERT_EQ(std::memcmp(&actual[i], &expected[i], sizeof(float)), 0)
          << text << "\nelement " << i << ": " << actual[i] << " vs " << expected[i];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ReduceOrderTest,
    ::testing::Values(Case{{256, 512}, {0}},              // bias gradient: leading axis
                      Case{{256, 10}, {1}},               // softmax row sums: trailing axis
                      Case{{13, 7}, {1}},                 // rows not a multiple of the row block
                      Case{{5, 6, 7}, {1}},               // middle axis
                      Case{{5, 6, 7}, {0, 1}},            // leading pair
                      Case{{5, 6, 7}, {1, 2}},            // trailing pair
                      Case{{5, 6, 7}, {0, 1, 2}},         // everything
                      Case{{16, 8, 256}, {0, 1, 2}},      // everything, rows of 256: lanes
                      Case{{300, 129}, {0, 1}},           // everything, rows of 129: lanes
                      Case{{300, 127}, {0, 1}},           // rows of 127: in index order
                      Case{{5, 6, 7}, {}},                // nothing
                      Case{{5, 6, 7}, {0, 2}},            // kept axis in the middle
                      Case{{8, 6, 5, 7}, {0, 2, 3}},      // batch norm's statistics, 6 channels
                      Case{{3, 17, 4, 5}, {0, 2, 3}},     // 17 channels: 8 + 8 + 1 chains
                      Case{{64, 32, 14, 14}, {0, 2, 3}},  // large: split over threads, lanes
                      Case{{3, 7, 9, 15}, {0, 2, 3}},     // rows of 135: lanes, a partial block
                      Case{{5, 3, 127}, {0, 2}},          // rows of 127: one short of lanes
                      Case{{5, 3, 128}, {0, 2}},          // rows of 128: lanes, whole blocks
                      Case{{2, 3, 4, 5, 6}, {0, 1, 4}},   // two kept axes in the middle
                      Case{{2, 3, 4, 5}, {0, 2}},         // kept, reduced, kept: the general walk
                      Case{{4, 0, 3}, {1}},               // empty reduction: the identity
                      Case{{0, 3}, {1}}));                // no results

// ReduceRange (a reduction run with the fused loop writing its operand, a stretch at a
// time): over consecutive ranges of every size, row sums and maxima (rows of 64 and 128 as
// in softmax and layer norm, and rows of odd lengths) and leading-axis sums give the same
// bits as one fold per result in index order.
TEST(ReduceRangeTest, ChunksFoldInIndexOrder) {
  const Case cases[] = {{{40, 64}, {1}},
                        {{33, 128}, {1}},
                        {{19, 37}, {1}},
                        {{9, 3}, {1}},
                        {{24, 5, 7}, {2}},
                        {{30, 48}, {0}},
                        {{4, 6, 16}, {0, 1}},
                        {{3, 5, 200}, {0, 2}},
                        {{2, 3, 7, 29}, {0, 2, 3}},
                        {{4, 9, 14, 14}, {0, 2, 3}},
                        {{6, 5, 130}, {0, 1, 2}}};
  for (const Case& c : cases) {
    int64_t count = 1;
    for (int64_t d : c.dims) count *= d;
    std::mt19937 rng(static_cast<unsigned>(count));
    std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
    std::vector<float> x(count);
    for (float& v : x) v = dist(rng);
    ir::Shape shape;
    shape.dtype = ir::DType::kF32;
    shape.dims = c.dims;
    for (const bool max : {false, true}) {
      const std::vector<float> expected = Expected(c, x, max);
      for (int64_t chunk :
           {int64_t{1}, int64_t{7}, int64_t{33}, int64_t{512}, int64_t{1000}, count}) {
        std::vector<float> actual(expected.size(), 12345.0f);
        ReduceCarry carry;
        for (int64_t first = 0; first < count; first += chunk) {
          ReduceRange(max ? ir::Op::kReduceMax : ir::Op::kReduceSum, shape,
                      reinterpret_cast<const uint8_t*>(x.data()), c.axes, first,
                      std::min(count, first + chunk), reinterpret_cast<uint8_t*>(actual.data()),
                      &carry);
        }
        for (size_t i = 0; i < expected.size(); ++i) {
          ASSERT_EQ(std::memcmp(&actual[i], &expected[i], sizeof(float)), 0)
              << DimsText(c.dims) << " axes " << absl::StrJoin(c.axes, ",")
              << (max ? " max" : " sum") << " chunk " << chunk << " element " << i << ": "
              << actual[i] << " vs " << expected[i];
        }
      }
    }
  }
}

// The lane sums against sums in double: a batch norm's statistics over feature maps of
// odd sizes (rows that fill no vector, odd channel counts), with a large common offset as
// activations after a convolution have; each result within a few f32 roundings of the
// exact sum (bounded by the sum of magnitudes), on one fold and chunk by chunk.
TEST(ReduceLanesTest, CloseToTheSumInDouble) {
  const Case cases[] = {
      {{16, 7, 13, 11}, {0, 2, 3}}, {{9, 33, 28, 28}, {0, 2, 3}}, {{5, 3, 129}, {0, 2}}};
  for (const Case& c : cases) {
    int64_t count = 1;
    for (int64_t d : c.dims) count *= d;
    const int64_t channels = c.dims[1], inner = count / c.dims[0] / channels;
    ASSERT_GE(inner, kLaneSumMinimumRow) << DimsText(c.dims);
    std::mt19937 rng(static_cast<unsigned>(count));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(count);
    for (float& v : x) v = 100.0f + dist(rng);
    std::vector<double> exact(channels, 0.0), magnitude(channels, 0.0);
    for (int64_t pos = 0; pos < count; ++pos) {
      const int64_t k = (pos / inner) % channels;
      exact[k] += x[pos];
      magnitude[k] += std::abs(x[pos]);
    }
    ir::Shape shape;
    shape.dtype = ir::DType::kF32;
    shape.dims = c.dims;
    std::vector<float> whole(channels), chunked(channels);
    Reduce(ir::Op::kReduceSum, shape, reinterpret_cast<const uint8_t*>(x.data()), c.axes,
           reinterpret_cast<uint8_t*>(whole.data()));
    ReduceCarry carry;
    for (int64_t first = 0; first < count; first += 1000) {
      ReduceRange(ir::Op::kReduceSum, shape, reinterpret_cast<const uint8_t*>(x.data()), c.axes,
                  first, std::min(count, first + 1000), reinterpret_cast<uint8_t*>(chunked.data()),
                  &carry);
    }
    // 32 lanes of count / (32 * channels) terms, then 5 levels of the fold and the last add.
    const double terms = static_cast<double>(count / channels) / 32.0 + 6.0;
    for (int64_t k = 0; k < channels; ++k) {
      const double bound = terms * 0x1p-24 * magnitude[k];
      EXPECT_NEAR(whole[k], exact[k], bound) << DimsText(c.dims) << " channel " << k;
      EXPECT_EQ(std::memcmp(&whole[k], &chunked[k], sizeof(float)), 0)
          << DimsText(c.dims) << " channel " << k << ": " << whole[k] << " vs " << chunked[k];
    }
  }
}

// A sum of every element (a loss over [batch, seq, width]) runs in the lanes too: one
// chain of half a million dependent adds was the transformer step's slowest loop. Whole
// and chunk by chunk give the same bits, within the lanes' rounding of the exact sum.
TEST(ReduceLanesTest, AFullSumRunsInLanes) {
  const std::vector<int64_t> dims{16, 128, 256};
  const int64_t count = 16 * 128 * 256;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(count);
  double exact = 0.0, magnitude = 0.0;
  for (float& v : x) {
    v = 100.0f + dist(rng);
    exact += v;
    magnitude += std::abs(v);
  }
  ir::Shape shape;
  shape.dtype = ir::DType::kF32;
  shape.dims = dims;
  const std::vector<int64_t> axes{0, 1, 2};
  float whole = 0.0f, chunked = 0.0f;
  Reduce(ir::Op::kReduceSum, shape, reinterpret_cast<const uint8_t*>(x.data()), axes,
         reinterpret_cast<uint8_t*>(&whole));
  ReduceCarry carry;
  for (int64_t first = 0; first < count; first += 16 * 1024) {
    ReduceRange(ir::Op::kReduceSum, shape, reinterpret_cast<const uint8_t*>(x.data()), axes, first,
                std::min(count, first + 16 * 1024), reinterpret_cast<uint8_t*>(&chunked), &carry);
  }
  EXPECT_EQ(std::memcmp(&whole, &chunked, sizeof(float)), 0) << whole << " vs " << chunked;
  const double bound = (count / 32.0 + 6.0) * 0x1p-24 * magnitude;
  EXPECT_NEAR(whole, exact, bound);
  // In index order the error is about 32 times the lanes' bound: the lanes are closer.
  float in_order = 0.0f;
  for (float v : x) in_order += v;
  EXPECT_LE(std::abs(whole - exact), std::abs(in_order - exact));
}

// reduce_max / reduce_min of f32 rows with the values whose rules matter: NaN anywhere in
// a row makes the quiet NaN, +0 counts above -0 (a row whose extreme is a zero of both
// signs), infinities, equal values. The row maxima and minima run lanes side by side
// (ExtremeOfRowAt: 16, 8 and 1 wide); each must give the bits of one fold per row in index
// order with these rules, written here on its own, whether whole rows (Reduce) or ranges
// that cut rows anywhere (ReduceRange) and whatever the row length (a vector, a vector and
// a tail, a tail only).
float FoldExtreme(bool max, float acc, float v) {
  if (std::isnan(acc) || std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
  if (acc == v) return (std::signbit(acc) == max) ? v : acc;  // +0 wins max, -0 wins min
  return (max ? v > acc : v < acc) ? v : acc;
}

std::vector<float> SpecialRows(int64_t rows, int64_t length, std::mt19937& rng) {
  const float pool[] = {0.0f,  -0.0f, 0.0f,     -0.0f,     -1.5f, 2.5f,
                        -3.0f, 1.0f,  INFINITY, -INFINITY, 7.0f,  -7.0f};
  std::uniform_int_distribution<int> pick(0, static_cast<int>(std::size(pool)) - 1);
  std::uniform_int_distribution<int64_t> where(0, length - 1);
  std::vector<float> x(static_cast<size_t>(rows * length));
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x.data() + r * length;
    const int64_t kind = r % 5;
    for (int64_t i = 0; i < length; ++i) row[i] = pool[pick(rng)];
    if (kind == 1) {
      // Only zeros of both signs: the extreme is a zero, its sign the rule's.
      for (int64_t i = 0; i < length; ++i) row[i] = (i + r) % 2 == 0 ? 0.0f : -0.0f;
    } else if (kind == 2) {
      row[where(rng)] = std::numeric_limits<float>::quiet_NaN();  // a NaN somewhere
    } else if (kind == 3) {
      row[length - 1] = -std::numeric_limits<float>::quiet_NaN();  // in the tail, sign set
    } else if (kind == 4) {
      // Negative values and one -0: the maximum is -0 unless the rule is broken.
      for (int64_t i = 0; i < length; ++i) row[i] = -std::fabs(row[i]);
      row[where(rng)] = -0.0f;
    }
  }
  return x;
}

TEST(ReduceExtremesTest, RowMaximaAndMinimaKeepNaNAndSignedZeros) {
  std::mt19937 rng(7);
  for (const int64_t length : {1, 3, 8, 15, 16, 17, 31, 33, 65, 128, 130}) {
    const int64_t rows = 40;
    const std::vector<float> x = SpecialRows(rows, length, rng);
    ir::Shape shape;
    shape.dtype = ir::DType::kF32;
    shape.dims = {rows, length};
    for (const bool max : {true, false}) {
      std::vector<float> expected(rows);
      for (int64_t r = 0; r < rows; ++r) {
        float acc = max ? -INFINITY : INFINITY;
        for (int64_t i = 0; i < length; ++i) acc = FoldExtreme(max, acc, x[r * length + i]);
        expected[r] = acc;
        for (const int lanes : {16, 8, 1}) {
          const float got =
              ExtremeOfRowAt(lanes, max, x.data() + r * length, length, max ? -INFINITY : INFINITY);
          ASSERT_EQ(std::memcmp(&got, &expected[r], sizeof(float)), 0)
              << (max ? "max" : "min") << " of a row of " << length << ", " << lanes
              << " lanes, row " << r << ": " << got << " vs " << expected[r];
        }
      }
      const ir::Op op = max ? ir::Op::kReduceMax : ir::Op::kReduceMin;
      std::vector<float> whole(rows, 12345.0f);
      Reduce(op, shape, reinterpret_cast<const uint8_t*>(x.data()), {1},
             reinterpret_cast<uint8_t*>(whole.data()));
      ASSERT_EQ(std::memcmp(whole.data(), expected.data(), rows * sizeof(float)), 0)
          << (max ? "max" : "min") << " Reduce, rows of " << length;
      for (const int64_t chunk : {int64_t{1}, int64_t{7}, int64_t{33}, rows * length}) {
        std::vector<float> ranged(rows, 12345.0f);
        ReduceCarry carry;
        for (int64_t first = 0; first < rows * length; first += chunk) {
          ReduceRange(op, shape, reinterpret_cast<const uint8_t*>(x.data()), {1}, first,
                      std::min(rows * length, first + chunk),
                      reinterpret_cast<uint8_t*>(ranged.data()), &carry);
        }
        ASSERT_EQ(std::memcmp(ranged.data(), expected.data(), rows * sizeof(float)), 0)
            << (max ? "max" : "min") << " ReduceRange, rows of " << length << ", chunk " << chunk;
      }
    }
  }
}

}  // namespace
}  // namespace seam::cpu
