// The gradient rules of select_and_scatter, reduce_window_min and scatter_replace on IR
// nodes the front end does not record (other ranks, windows in every dimension, windowed
// scatters, an index_vector_dim that is not last), against central finite differences in
// f64. The public functions that reach them are tested in conv_test and index_test.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "grad_check.h"
#include "seam/tensor.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace {

using gradcheck::CheckGrad;
using gradcheck::CheckGradAt;
using lazy::NodeOf;

ir::Attributes Window(std::vector<int64_t> size, std::vector<int64_t> stride,
                      std::vector<int64_t> low, std::vector<int64_t> high) {
  return {{"window_dimensions", size},
          {"window_strides", stride},
          {"padding_low", low},
          {"padding_high", high}};
}

Tensor SelectAndScatter(const Tensor& x, const Tensor& source, const ir::Attributes& window) {
  return lazy::Wrap(lazy::MakeNode(ir::Op::kSelectAndScatter,
                                   {NodeOf(x, "test"), NodeOf(source, "test")}, window));
}

// Both operands: the source's rule, and the operand's zero (the result is piecewise constant
// in it, so the central differences are 0 away from ties).
TEST(GradRulesIrTest, SelectAndScatterBothOperands) {
  const ir::Attributes window = Window({1, 3, 2}, {1, 2, 1}, {0, 1, 0}, {0, 1, 1});
  CheckGrad([&](const auto& in) { return SelectAndScatter(in[0], in[1], window); },
            {{2, 5, 4}, {2, 3, 4}});
  // The first window lies entirely in padding: its source value goes nowhere.
  const ir::Attributes padded = Window({2}, {1}, {2}, {0});
  CheckGrad([&](const auto& in) { return SelectAndScatter(in[0], in[1], padded); }, {{3}, {4}});
}

// Ties everywhere in the operand (values from {0, 1}): the source's adjoint must read the
// element the forward op selected (the first maximum of each window).
TEST(GradRulesIrTest, SelectAndScatterSourceWithTies) {
  std::vector<double> ties(size_t{3} * 6 * 5);
  for (size_t i = 0; i < ties.size(); ++i) ties[i] = static_cast<double>(i * 5 / 4 % 2);
  const Tensor x = Tensor::from_vector(ties, {3, 6, 5});
  const ir::Attributes window = Window({2, 3, 3}, {1, 1, 2}, {1, 0, 1}, {0, 1, 1});
  CheckGrad([&](const auto& in) { return SelectAndScatter(x, in[0], window); }, {{3, 5, 3}});
}

TEST(GradRulesIrTest, ReduceWindowMinInEveryDimension) {
  ir::Attributes window = Window({2, 2, 3}, {1, 2, 2}, {0, 1, 1}, {1, 0, 1});
  window["base_dilation"] = {1, 1, 1};
  window["window_dilation"] = {1, 1, 1};
  CheckGrad(
      [&](const auto& in) {
        return lazy::Wrap(
            lazy::MakeNode(ir::Op::kReduceWindowMin, {NodeOf(in[0], "test")}, window));
      },
      {{3, 4, 6}});
}

Tensor ScatterReplace(const Tensor& operand, const Tensor& indices, const Tensor& updates,
                      const ir::Attributes& numbers) {
  return lazy::Wrap(lazy::MakeNode(
      ir::Op::kScatterReplace,
      {NodeOf(operand, "test"), NodeOf(indices, "test"), NodeOf(updates, "test")}, numbers));
}

// 2x3 windows at rows 1, 2 and 9 (clamped to 3) of a 5x4 operand: rows 2 and 3 are written
// twice, and the later window wins there.
TEST(GradRulesIrTest, ScatterReplaceOverlappingWindows) {
  const Tensor rows = Tensor::from_vector({1, 2, 9}, {3, 1});
  const ir::Attributes numbers = {{"update_window_dims", {1, 2}},
                                  {"inserted_window_dims", {}},
                                  {"scatter_dims_to_operand_dims", {0}},
                                  {"index_vector_dim", {1}}};
  CheckGrad([&](const auto& in) { return ScatterReplace(in[0], rows, in[1], numbers); },
            {{5, 4}, {3, 2, 3}});
}

// Index vectors along dimension 0 of the indices ((1, 0), (1, 1), (3, 3)), windows of 2 along
// the operand's columns: (1, 1) is written by the first two, and the second wins.
TEST(GradRulesIrTest, ScatterReplaceVectorsAlongTheFirstDimension) {
  const Tensor vectors = Tensor::from_vector(std::vector<int64_t>{1, 1, 3, 0, 1, 3}, {2, 3});
  const ir::Attributes numbers = {{"update_window_dims", {1}},
                                  {"inserted_window_dims", {0}},
                                  {"scatter_dims_to_operand_dims", {0, 1}},
                                  {"index_vector_dim", {0}}};
  CheckGrad([&](const auto& in) { return ScatterReplace(in[0], vectors, in[1], numbers); },
            {{4, 5}, {3, 2}});
  // By hand, with the loss sum(result): the operand keeps 1 where nothing was written; of
  // the updates, only the first's (1, 1) was overwritten.
  const Tensor operand = Tensor::zeros({4, 5}, DType::kFloat64);
  const Tensor updates = Tensor::zeros({3, 2}, DType::kFloat64);
  std::vector<Tensor> g =
      grad(ScatterReplace(operand, vectors, updates, numbers).sum(), {operand, updates});
  EXPECT_EQ(g[0].to_vector<double>(),
            (std::vector<double>{1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(g[1].to_vector<double>(), (std::vector<double>{1, 0, 1, 1, 1, 1}));
}

}  // namespace
}  // namespace seam
