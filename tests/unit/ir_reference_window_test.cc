// The reference evaluator's windowed ops (convolution, reduce_window_*,
// select_and_scatter) against values worked out by hand.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"

namespace seam::ir {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A literal as (dims, values) for readable failures.
struct Values {
  std::vector<int64_t> dims;
  std::vector<double> values;
  bool operator==(const Values& other) const = default;
};
std::ostream& operator<<(std::ostream& os, const Values& v) {
  os << "dims {";
  for (int64_t d : v.dims) os << d << ",";
  os << "} values {";
  for (double x : v.values) os << x << ",";
  return os << "}";
}
Values Of(const Literal& literal) {
  Values v{literal.shape.dims, {}};
  for (int64_t i = 0; i < literal.shape.num_elements(); ++i) {
    if (literal.shape.dtype == DType::kF64) {
      v.values.push_back(reinterpret_cast<const double*>(literal.bytes.data())[i]);
    } else {
      v.values.push_back(literal.f32()[i]);
    }
  }
  return v;
}

std::vector<Literal> Eval(const std::string& body, const std::vector<Literal>& args = {}) {
  absl::StatusOr<Program> program = ParseProgram("program @t {\n" + body + "\n}\n");
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return {};
  absl::StatusOr<std::vector<Literal>> results = Evaluate(*program, args);
  EXPECT_TRUE(results.ok()) << results.status();
  return results.ok() ? *results : std::vector<Literal>{};
}

// NCHW input, OIHW kernel, NCHW result.
std::string Nchw(const std::string& spatial_attrs) {
  return "feature_group_count={1}, input_batch_dim={0}, input_feature_dim={1}, "
         "input_spatial_dims={2,3}, kernel_output_feature_dim={0}, kernel_input_feature_dim={1}, "
         "kernel_spatial_dims={2,3}, output_batch_dim={0}, output_feature_dim={1}, "
         "output_spatial_dims={2,3}, " +
         spatial_attrs;
}

TEST(ReferenceWindowTest, ConvolutionNchw) {
  std::vector<Literal> r = Eval(R"(
  %x = constant({1, 2, 3, 4, 5, 6, 7, 8, 9}) : f32[1,1,3,3]
  %k = constant({1, 1, 1, 1}) : f32[1,1,2,2]
  %valid = convolution(%x, %k), )" +
                                Nchw("window_strides={1,1}, padding_low={0,0}, "
                                     "padding_high={0,0}, lhs_dilation={1,1}, "
                                     "rhs_dilation={1,1}") +
                                R"( : f32[1,1,2,2]
  %padded = convolution(%x, %k), )" +
                                Nchw("window_strides={2,2}, padding_low={1,1}, "
                                     "padding_high={1,1}, lhs_dilation={1,1}, "
                                     "rhs_dilation={1,1}") +
                                R"( : f32[1,1,2,2]
  return (%valid, %padded))");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(Of(r[0]), Of(Literal::FromF32({12, 16, 24, 28}, {1, 1, 2, 2})));
  // Windows at padded rows/columns 0 and 2: input rows -1..0 and 1..2.
  EXPECT_EQ(Of(r[1]), Of(Literal::FromF32({1, 5, 11, 28}, {1, 1, 2, 2})));
}

TEST(ReferenceWindowTest, ConvolutionNhwcHwioMatchesNchw) {
  std::vector<Literal> r = Eval(R"(
  %x = constant({1, 2, 3, 4, 5, 6, 7, 8, 9}) : f64[1,3,3,1]
  %k = constant({1, 2, 3, 4}) : f64[2,2,1,1]
  %y = convolution(%x, %k), feature_group_count={1}, input_batch_dim={0}, input_feature_dim={3}, input_spatial_dims={1,2}, kernel_input_feature_dim={2}, kernel_output_feature_dim={3}, kernel_spatial_dims={0,1}, output_batch_dim={0}, output_feature_dim={3}, output_spatial_dims={1,2}, window_strides={1,1}, padding_low={0,0}, padding_high={0,0}, lhs_dilation={1,1}, rhs_dilation={1,1} : f64[1,2,2,1]
  return (%y))");
  ASSERT_EQ(r.size(), 1u);
  // 1*1 + 2*2 + 3*4 + 4*5 = 37, and so on.
  EXPECT_EQ(Of(r[0]), Of(Literal::FromF64({37, 47, 67, 77}, {1, 2, 2, 1})));
}

TEST(ReferenceWindowTest, ConvolutionDilationsAndGroups) {
  const std::string one_d =
      "input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2}, "
      "kernel_output_feature_dim={0}, kernel_input_feature_dim={1}, kernel_spatial_dims={2}, "
      "output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={2}, "
      "window_strides={1}, padding_low={0}, padding_high={0}";
  std::vector<Literal> r = Eval(R"(
  %x = constant({1, 2, 3}) : f32[1,1,3]
  %ones = constant({1, 1}) : f32[1,1,2]
  %lhs_dilated = convolution(%x, %ones), feature_group_count={1}, lhs_dilation={2}, rhs_dilation={1}, )" +
                                one_d + R"( : f32[1,1,4]
  %x4 = constant({1, 2, 3, 4}) : f32[1,1,4]
  %k = constant({1, 10}) : f32[1,1,2]
  %rhs_dilated = convolution(%x4, %k), feature_group_count={1}, lhs_dilation={1}, rhs_dilation={2}, )" +
                                one_d + R"( : f32[1,1,2]
  %x2 = constant({1, 2, 3, 4}) : f32[1,2,2]
  %k2 = constant({10, 100}) : f32[2,1,1]
  %grouped = convolution(%x2, %k2), feature_group_count={2}, lhs_dilation={1}, rhs_dilation={1}, )" +
                                one_d + R"( : f32[1,2,2]
  return (%lhs_dilated, %rhs_dilated, %grouped))");
  ASSERT_EQ(r.size(), 3u);
  // [1, hole, 2, hole, 3] with a window of two ones.
  EXPECT_EQ(Of(r[0]), Of(Literal::FromF32({1, 2, 2, 3}, {1, 1, 4})));
  // x[j] + 10 * x[j + 2].
  EXPECT_EQ(Of(r[1]), Of(Literal::FromF32({31, 42}, {1, 1, 2})));
  // Feature 0 sees only input feature 0, feature 1 only input feature 1.
  EXPECT_EQ(Of(r[2]), Of(Literal::FromF32({10, 20, 300, 400}, {1, 2, 2})));
}

TEST(ReferenceWindowTest, ConvolutionWindowLargerThanInputGivesEmptyResult) {
  std::vector<Literal> r = Eval(R"(
  %x = constant({1, 2}) : f32[1,1,2]
  %k = constant({1, 1, 1}) : f32[1,1,3]
  %y = convolution(%x, %k), feature_group_count={1}, input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2}, kernel_output_feature_dim={0}, kernel_input_feature_dim={1}, kernel_spatial_dims={2}, output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={2}, window_strides={1}, padding_low={0}, padding_high={0}, lhs_dilation={1}, rhs_dilation={1} : f32[1,1,0]
  return (%y))");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].shape.dims, (std::vector<int64_t>{1, 1, 0}));
}

TEST(ReferenceWindowTest, ReduceWindowPadsWithTheIdentity) {
  const std::string attrs = "base_dilation={1}, window_dilation={1}";
  std::vector<Literal> r = Eval(R"(
  %x = constant({1, 3, 2, 5}) : f32[4]
  %max = reduce_window_max(%x), window_dimensions={2}, window_strides={1}, padding_low={1}, padding_high={0}, )" +
                                attrs + R"( : f32[4]
  %sum = reduce_window_sum(%x), window_dimensions={2}, window_strides={1}, padding_low={1}, padding_high={0}, )" +
                                attrs + R"( : f32[4]
  %min = reduce_window_min(%x), window_dimensions={3}, window_strides={2}, padding_low={1}, padding_high={1}, )" +
                                attrs + R"( : f32[2]
  %y = constant({-1, -2}) : f32[2]
  %lonely = reduce_window_max(%y), window_dimensions={2}, window_strides={1}, padding_low={2}, padding_high={0}, )" +
                                attrs + R"( : f32[3]
  %x2 = constant({1, 2}) : f32[2]
  %holes = reduce_window_sum(%x2), window_dimensions={2}, window_strides={1}, padding_low={0}, padding_high={0}, base_dilation={2}, window_dilation={1} : f32[2]
  return (%max, %sum, %min, %lonely, %holes))");
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(Of(r[0]), Of(Literal::FromF32({1, 3, 3, 5}, {4})));
  EXPECT_EQ(Of(r[1]), Of(Literal::FromF32({1, 4, 5, 7}, {4})));
  EXPECT_EQ(Of(r[2]), Of(Literal::FromF32({1, 2}, {2})));
  // A window entirely in padding gives the identity.
  EXPECT_EQ(Of(r[3]), Of(Literal::FromF32({-kInf, -1, -1}, {3})));
  // [1, hole, 2]: each window holds one element.
  EXPECT_EQ(Of(r[4]), Of(Literal::FromF32({1, 2}, {2})));
}

TEST(ReferenceWindowTest, SelectAndScatterAddsAtTheFirstMaximum) {
  std::vector<Literal> r = Eval(R"(
  %x = constant({1, 5, 2, 5, 3}) : f32[5]
  %s = constant({1, 10, 100, 1000}) : f32[4]
  %a = select_and_scatter(%x, %s), window_dimensions={2}, window_strides={1}, padding_low={0}, padding_high={0} : f32[5]
  %ties = constant({4, 4}) : f32[2]
  %one = constant({7}) : f32[1]
  %b = select_and_scatter(%ties, %one), window_dimensions={2}, window_strides={1}, padding_low={0}, padding_high={0} : f32[2]
  %neg = constant({-1, -2}) : f32[2]
  %two = constant({1, 2}) : f32[2]
  %c = select_and_scatter(%neg, %two), window_dimensions={2}, window_strides={1}, padding_low={1}, padding_high={0} : f32[2]
  return (%a, %b, %c))");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(Of(r[0]), Of(Literal::FromF32({0, 11, 0, 1100, 0}, {5})));
  EXPECT_EQ(Of(r[1]), Of(Literal::FromF32({7, 0}, {2})));
  // Padding is never selected, even over negative values.
  EXPECT_EQ(Of(r[2]), Of(Literal::FromF32({3, 0}, {2})));
}

}  // namespace
}  // namespace seam::ir
