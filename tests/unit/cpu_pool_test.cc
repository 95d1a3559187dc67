// The CPU plugin's pooling fast paths (kernels_pool.cc): f32 reduce_window_max and
// select_and_scatter over the last two dimensions, against the reference evaluator, bit
// for bit: 2x2 stride 2 (the CNN's pools; rows of 7, 14, 16 and 25 windows, so that the
// vector loops' full and masked steps both run), odd sizes the windows do not cover, other
// non-overlapping and overlapping windows, and special values (NaN, infinities, signed
// zeros, ties). Cases the fast paths refuse (padding, a window over the batch dimension)
// still match through the general loops.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/kernels/kernels_window.h"

namespace seam::cpu {
namespace {

struct Case {
  std::string name;
  std::vector<int64_t> dims, window, strides, pad;
  bool fast;  // whether the fast path must take it (reduce_window_max)
};

const Case kCases[] = {
    {"cnn_pool_2x2", {4, 3, 28, 28}, {1, 1, 2, 2}, {1, 1, 2, 2}, {0, 0, 0, 0}, true},
    {"odd_sizes", {2, 3, 7, 9}, {1, 1, 2, 2}, {1, 1, 2, 2}, {0, 0, 0, 0}, true},
    {"cnn_pool2_7_windows", {4, 5, 14, 14}, {1, 1, 2, 2}, {1, 1, 2, 2}, {0, 0, 0, 0}, true},
    {"rows_of_25_windows", {2, 3, 4, 50}, {1, 1, 2, 2}, {1, 1, 2, 2}, {0, 0, 0, 0}, true},
    {"rows_of_16_windows", {3, 2, 6, 32}, {1, 1, 2, 2}, {1, 1, 2, 2}, {0, 0, 0, 0}, true},
    {"3x3_stride3", {2, 2, 10, 11}, {1, 1, 3, 3}, {1, 1, 3, 3}, {0, 0, 0, 0}, true},
    {"overlapping_3x3_stride2", {2, 2, 9, 9}, {1, 1, 3, 3}, {1, 1, 2, 2}, {0, 0, 0, 0}, true},
    {"rank3_1x2", {3, 5, 8}, {1, 1, 2}, {1, 1, 2}, {0, 0, 0}, true},
    {"padded", {2, 2, 6, 6}, {1, 1, 2, 2}, {1, 1, 2, 2}, {0, 0, 1, 1}, false},
    {"window_over_batch", {4, 2, 6, 6}, {2, 1, 2, 2}, {2, 1, 2, 2}, {0, 0, 0, 0}, false},
};

std::string Shape(const std::vector<int64_t>& dims) {
  return absl::StrCat("f32[", absl::StrJoin(dims, ","), "]");
}

int64_t Windows(int64_t n, int64_t size, int64_t stride, int64_t pad) {
  return (n + 2 * pad - size) / stride + 1;
}

std::vector<int64_t> ResultDims(const Case& c) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < c.dims.size(); ++d) {
    out.push_back(Windows(c.dims[d], c.window[d], c.strides[d], c.pad[d]));
  }
  return out;
}

std::string WindowText(const Case& c) {
  return absl::StrCat("window_dimensions={", absl::StrJoin(c.window, ","), "}, window_strides={",
                      absl::StrJoin(c.strides, ","), "}, padding_low={", absl::StrJoin(c.pad, ","),
                      "}, padding_high={", absl::StrJoin(c.pad, ","), "}");
}

std::string Ones(const Case& c) { return absl::StrJoin(std::vector<int>(c.dims.size(), 1), ","); }

// Uniform values with ties (a coarse grid) and, every few elements, a special value.
ir::Literal Values(const std::vector<int64_t>& dims, unsigned seed) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int> grid(-8, 8);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, 0.0f,
                            -0.0f};
  std::vector<float> v(static_cast<size_t>(count));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = engine() % 23 == 0 ? specials[engine() % 5] : static_cast<float>(grid(engine)) / 4;
  }
  return ir::Literal::FromF32(v, dims);
}

void ExpectSameBits(const ir::Literal& expected, const std::vector<uint8_t>& actual) {
  ASSERT_EQ(expected.bytes.size(), actual.size());
  const float* e = expected.f32();
  const auto* a = reinterpret_cast<const float*>(actual.data());
  for (size_t i = 0; i < actual.size() / sizeof(float); ++i) {
    const bool both_nan = std::isnan(e[i]) && std::isnan(a[i]);
    uint32_t e_bits = 0, a_bits = 0;
    std::memcpy(&e_bits, &e[i], sizeof(float));
    std::memcpy(&a_bits, &a[i], sizeof(float));
    ASSERT_TRUE(both_nan || e_bits == a_bits)
        << "element " << i << ": " << a[i] << " (signbit " << std::signbit(a[i]) << "), reference "
        << e[i] << " (signbit " << std::signbit(e[i]) << ")";
  }
}

ir::Program Parse(const std::string& text) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status() << "\n" << text;
  return program.ok() ? *program : ir::Program{};
}

TEST(CpuPoolTest, ReduceWindowMaxMatchesTheReference) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const ir::Program program = Parse(absl::StrCat(
        "program @p {\n  %x = parameter(0) : ", Shape(c.dims), "\n  %y = reduce_window_max(%x), ",
        WindowText(c), ", base_dilation={", Ones(c), "}, window_dilation={", Ones(c),
        "} : ", Shape(ResultDims(c)), "\n  return (%y)\n}\n"));
    ASSERT_EQ(program.instructions.size(), 2u);
    const ir::Literal x = Values(c.dims, 1);
    absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(program, {x});
    ASSERT_TRUE(expected.ok()) << expected.status();
    const ir::Instruction& pool = program.instructions[1];
    std::vector<uint8_t> out(pool.shape.byte_size());
    EXPECT_EQ(ReduceWindowMaxFast(pool, x.shape, x.bytes.data(), out.data()), c.fast);
    ReduceWindow(pool, x.shape, x.bytes.data(), out.data());
    ExpectSameBits(expected->front(), out);
  }
}

TEST(CpuPoolTest, SelectAndScatterMatchesTheReference) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::vector<int64_t> windows = ResultDims(c);
    const ir::Program program = Parse(absl::StrCat(
        "program @p {\n  %x = parameter(0) : ", Shape(c.dims),
        "\n  %s = parameter(1) : ", Shape(windows), "\n  %y = select_and_scatter(%x, %s), ",
        WindowText(c), " : ", Shape(c.dims), "\n  return (%y)\n}\n"));
    ASSERT_EQ(program.instructions.size(), 3u);
    const ir::Literal x = Values(c.dims, 2), source = Values(windows, 3);
    absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(program, {x, source});
    ASSERT_TRUE(expected.ok()) << expected.status();
    const ir::Instruction& scatter = program.instructions[2];
    std::vector<uint8_t> out(scatter.shape.byte_size(), 0xff);  // every element must be written
    const bool overlapping = c.name.rfind("overlapping", 0) == 0;
    EXPECT_EQ(
        SelectAndScatterFast(scatter, x.shape, x.bytes.data(), source.bytes.data(), out.data()),
        c.fast && !overlapping);
    std::fill(out.begin(), out.end(), 0xff);
    SelectAndScatter(scatter, x.shape, x.bytes.data(), source.bytes.data(), out.data());
    ExpectSameBits(expected->front(), out);
  }
}

}  // namespace
}  // namespace seam::cpu
