// Plans worked out at compile time: a dot_general's DotPlan (sizes and how each operand
// reaches the [batch, m, k] x [batch, k, n] layout), a data movement's GatherPlan
// (kernels.h) and the executable's per-step plans (executable.h). Checked: the plan of each
// layout, and that every layout, batched dots and 0-sized dimensions give the same bytes
// through an executable (fused and unfused) as the one-call kernel, and the reference
// evaluator's values (exactly for integers and pred); which steps get which plan; RunInto
// with a reused result list.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/ir/bf16.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using ir::DType;

struct DotCase {
  std::vector<int64_t> lhs, rhs, lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
};

// The case index of DotCases below where the attention-head cases start.
constexpr int kFirstHeadCase = 22;

std::vector<DotCase> DotCases() {
  return {
      {{4, 3}, {3, 5}, {}, {}, {1}, {0}},                 // [m,k] x [k,n]
      {{3, 4}, {3, 5}, {}, {}, {0}, {0}},                 // [k,m] x [k,n]
      {{4, 3}, {5, 3}, {}, {}, {1}, {1}},                 // [m,k] x [n,k]
      {{3, 4}, {5, 3}, {}, {}, {0}, {1}},                 // [k,m] x [n,k]
      {{7}, {7}, {}, {}, {0}, {0}},                       // vector . vector
      {{7}, {7, 2}, {}, {}, {0}, {0}},                    // vector x matrix
      {{2, 7}, {7}, {}, {}, {1}, {0}},                    // matrix x vector
      {{2, 4, 3}, {2, 3, 5}, {0}, {0}, {2}, {1}},         // batched
      {{2, 3, 4}, {2, 5, 3}, {0}, {0}, {1}, {2}},         // batched, both transposed
      {{4, 2, 3}, {3, 2, 5}, {1}, {1}, {2}, {0}},         // batch not leading: strided
      {{4, 3, 2}, {2, 5, 3}, {2}, {0}, {1}, {2}},         // batch last on lhs
      {{2, 3, 4, 5}, {4, 5, 6}, {}, {}, {2, 3}, {0, 1}},  // two contracting, two free
      {{2, 3, 4, 5}, {5, 4, 6}, {}, {}, {2, 3}, {1, 0}},  // contracting in another order
      {{3, 2, 4}, {4, 6}, {}, {}, {2}, {0}},              // two free dims on lhs
      {{4, 3, 2}, {4, 6}, {}, {}, {0}, {0}},              // lhs free dims after contracting
      {{2, 1, 3}, {2, 3, 1}, {0}, {0}, {2}, {1}},         // unit dims
      {{0, 3}, {3, 5}, {}, {}, {1}, {0}},                 // m = 0
      {{4, 0}, {0, 5}, {}, {}, {1}, {0}},                 // k = 0: zeros
      {{4, 3}, {3, 0}, {}, {}, {1}, {0}},                 // n = 0
      {{0, 4, 3}, {0, 3, 5}, {0}, {0}, {2}, {1}},         // no batches
      {{2, 4, 0}, {2, 0, 5}, {0}, {0}, {2}, {1}},         // batched, k = 0
      {{3, 2, 0}, {0, 2, 5}, {1}, {1}, {2}, {0}},         // strided, k = 0
      // Attention heads read in place ([batch, seq, heads, dim]): q.k^T, p.v, and a
      // transposed strided lhs; then q.k^T large enough for BLAS (not the small loop).
      {{2, 4, 3, 5}, {2, 6, 3, 5}, {0, 2}, {0, 2}, {3}, {3}},
      {{2, 3, 4, 6}, {2, 6, 3, 5}, {0, 1}, {0, 2}, {3}, {1}},
      {{2, 5, 3, 4}, {2, 5, 3, 6}, {0, 2}, {0, 2}, {1}, {1}},
      {{2, 24, 3, 32}, {2, 40, 3, 32}, {0, 2}, {0, 2}, {3}, {3}},
  };
}

bool Has(const std::vector<int64_t>& v, int64_t d) {
  return std::find(v.begin(), v.end(), d) != v.end();
}

// Batch dims, then lhs's free dims, then rhs's.
std::vector<int64_t> ResultDims(const DotCase& c) {
  std::vector<int64_t> out;
  for (int64_t d : c.lhs_batch) out.push_back(c.lhs[d]);
  for (int64_t d = 0; d < static_cast<int64_t>(c.lhs.size()); ++d) {
    if (!Has(c.lhs_batch, d) && !Has(c.lhs_contracting, d)) out.push_back(c.lhs[d]);
  }
  for (int64_t d = 0; d < static_cast<int64_t>(c.rhs.size()); ++d) {
    if (!Has(c.rhs_batch, d) && !Has(c.rhs_contracting, d)) out.push_back(c.rhs[d]);
  }
  return out;
}

std::string Type(const std::string& dtype, const std::vector<int64_t>& dims) {
  return absl::StrCat(dtype, "[", absl::StrJoin(dims, ","), "]");
}

std::string List(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

std::string DotLine(const DotCase& c, const std::string& dtype) {
  return absl::StrCat(
      "  %d = dot_general(%a, %b), lhs_batch=", List(c.lhs_batch),
      ", lhs_contracting=", List(c.lhs_contracting), ", rhs_batch=", List(c.rhs_batch),
      ", rhs_contracting=", List(c.rhs_contracting), " : ", Type(dtype, ResultDims(c)), "\n");
}

std::string DotProgram(const DotCase& c, const std::string& dtype) {
  return absl::StrCat("program @dot {\n  %a = parameter(0) : ", Type(dtype, c.lhs),
                      "\n  %b = parameter(1) : ", Type(dtype, c.rhs), "\n", DotLine(c, dtype),
                      "  return (%d)\n}\n");
}

// w - s * dot(a, b): a dot update (one gemm accumulating into w).
std::string UpdateProgram(const DotCase& c, const std::string& dtype) {
  const std::string out = Type(dtype, ResultDims(c));
  return absl::StrCat("program @update {\n  %a = parameter(0) : ", Type(dtype, c.lhs),
                      "\n  %b = parameter(1) : ", Type(dtype, c.rhs),
                      "\n  %w = parameter(2) : ", out, "\n  %s = parameter(3) : ", dtype, "[]\n",
                      DotLine(c, dtype), "  %sb = broadcast_in_dim(%s), dims={} : ", out,
                      "\n  %p = multiply(%sb, %d) : ", out, "\n  %u = subtract(%w, %p) : ", out,
                      "\n  return (%u)\n}\n");
}

ir::Literal RandomLiteral(DType dtype, const std::vector<int64_t>& dims, unsigned seed) {
  ir::Literal literal;
  literal.shape = ir::Shape{dtype, dims};
  literal.bytes.resize(literal.shape.byte_size());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  for (int64_t i = 0; i < literal.shape.num_elements(); ++i) {
    const float f = real(rng);
    const int v = static_cast<int>(rng() % 7) - 3;
    uint8_t* at = literal.bytes.data() + i * ir::DTypeSize(dtype);
    switch (dtype) {
      case DType::kF32:
        std::memcpy(at, &f, sizeof f);
        break;
      case DType::kF64: {
        const double d = f;
        std::memcpy(at, &d, sizeof d);
        break;
      }
      case DType::kS32: {
        const int32_t x = v;
        std::memcpy(at, &x, sizeof x);
        break;
      }
      case DType::kS64: {
        const int64_t x = v;
        std::memcpy(at, &x, sizeof x);
        break;
      }
      case DType::kBF16: {
        const uint16_t x = ir::FloatToBF16(f);
        std::memcpy(at, &x, sizeof x);
        break;
      }
      case DType::kPred:
        *at = v > 0;
        break;
    }
  }
  return literal;
}

// The elements of a literal as doubles (bf16 widened).
std::vector<double> Values(DType dtype, const std::vector<uint8_t>& bytes) {
  const size_t size = ir::DTypeSize(dtype);
  std::vector<double> values(bytes.size() / size);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t* at = bytes.data() + i * size;
    switch (dtype) {
      case DType::kF32: {
        float f;
        std::memcpy(&f, at, sizeof f);
        values[i] = f;
        break;
      }
      case DType::kF64:
        std::memcpy(&values[i], at, sizeof(double));
        break;
      case DType::kS32: {
        int32_t x;
        std::memcpy(&x, at, sizeof x);
        values[i] = x;
        break;
      }
      case DType::kS64: {
        int64_t x;
        std::memcpy(&x, at, sizeof x);
        values[i] = static_cast<double>(x);
        break;
      }
      case DType::kBF16: {
        uint16_t x;
        std::memcpy(&x, at, sizeof x);
        values[i] = ir::BF16ToFloat(x);
        break;
      }
      case DType::kPred:
        values[i] = *at;
        break;
    }
  }
  return values;
}

// Within float tolerance of the reference (exact for integers and pred).
void ExpectMatchesReference(const std::string& text, const std::vector<ir::Literal>& args,
                            const std::vector<uint8_t>& got, DType dtype, const std::string& what) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::vector<ir::Literal>> reference = ir::Evaluate(*program, args);
  ASSERT_TRUE(reference.ok()) << reference.status();
  const std::vector<double> expected = Values(dtype, (*reference)[0].bytes);
  const std::vector<double> actual = Values(dtype, got);
  ASSERT_EQ(actual.size(), expected.size()) << what;
  const double tol = dtype == DType::kBF16  ? 3e-2
                     : dtype == DType::kF32 ? 1e-5
                     : dtype == DType::kF64 ? 1e-12
                                            : 0.0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (tol == 0) {
      ASSERT_EQ(actual[i], expected[i]) << what << " element " << i;
    } else {
      ASSERT_NEAR(actual[i], expected[i], tol * (1 + std::fabs(expected[i])))
          << what << " element " << i;
    }
  }
}

const std::vector<std::pair<std::string, DType>>& DTypes() {
  static const auto* dtypes = new std::vector<std::pair<std::string, DType>>{
      {"f32", DType::kF32}, {"f64", DType::kF64},   {"s32", DType::kS32},
      {"s64", DType::kS64}, {"bf16", DType::kBF16}, {"pred", DType::kPred}};
  return *dtypes;
}

DotDimensions DimensionsOf(const DotCase& c) {
  return DotDimensions{c.lhs_batch, c.rhs_batch, c.lhs_contracting, c.rhs_contracting};
}

TEST(DotPlanTest, LayoutsAndSizes) {
  struct Expected {
    int case_index;
    int64_t batches, m, k, n;
    DotPlan::Layout lhs, rhs;
  };
  const std::vector<Expected> expected = {
      {0, 1, 4, 3, 5, DotPlan::kAsIs, DotPlan::kAsIs},
      {1, 1, 4, 3, 5, DotPlan::kTransposed, DotPlan::kAsIs},
      {2, 1, 4, 3, 5, DotPlan::kAsIs, DotPlan::kTransposed},
      {3, 1, 4, 3, 5, DotPlan::kTransposed, DotPlan::kTransposed},
      {4, 1, 1, 7, 1, DotPlan::kAsIs, DotPlan::kAsIs},
      {7, 2, 4, 3, 5, DotPlan::kAsIs, DotPlan::kAsIs},
      {8, 2, 4, 3, 5, DotPlan::kTransposed, DotPlan::kTransposed},
      {9, 2, 4, 3, 5, DotPlan::kAsIs, DotPlan::kAsIs},
      {10, 2, 4, 3, 5, DotPlan::kCopy, DotPlan::kTransposed},
      {11, 1, 6, 20, 6, DotPlan::kAsIs, DotPlan::kAsIs},
      {12, 1, 6, 20, 6, DotPlan::kAsIs, DotPlan::kCopy},
      {17, 1, 4, 0, 5, DotPlan::kAsIs, DotPlan::kAsIs},
  };
  const std::vector<DotCase> cases = DotCases();
  for (const Expected& e : expected) {
    const DotCase& c = cases[e.case_index];
    DotPlan plan =
        PlanDot(ir::Shape{DType::kF32, c.lhs}, ir::Shape{DType::kF32, c.rhs}, DimensionsOf(c));
    SCOPED_TRACE(e.case_index);
    EXPECT_EQ(plan.batches, e.batches);
    EXPECT_EQ(plan.m, e.m);
    EXPECT_EQ(plan.k, e.k);
    EXPECT_EQ(plan.n, e.n);
    EXPECT_TRUE(plan.blas);
    EXPECT_EQ(plan.lhs.layout, e.lhs);
    EXPECT_EQ(plan.rhs.layout, e.rhs);
  }
  // Strided operands: each batch's matrix read in place, rows ld apart.
  const struct {
    int case_index;
    DotPlan::Layout lhs, rhs;
    int64_t lda, ldb;
    std::vector<int64_t> lhs_strides, rhs_strides;
  } strided[] = {
      {9, DotPlan::kAsIs, DotPlan::kAsIs, 6, 10, {3}, {5}},
      {kFirstHeadCase, DotPlan::kAsIs, DotPlan::kTransposed, 15, 15, {60, 5}, {90, 5}},
      {kFirstHeadCase + 1, DotPlan::kAsIs, DotPlan::kAsIs, 6, 15, {24}, {90, 5}},
      {kFirstHeadCase + 2, DotPlan::kTransposed, DotPlan::kAsIs, 12, 18, {60, 4}, {90, 6}},
  };
  for (const auto& e : strided) {
    const DotCase& c = cases[e.case_index];
    SCOPED_TRACE(e.case_index);
    for (DType dtype : {DType::kF32, DType::kF64}) {
      DotPlan plan = PlanDot(ir::Shape{dtype, c.lhs}, ir::Shape{dtype, c.rhs}, DimensionsOf(c));
      EXPECT_EQ(plan.lhs.layout, e.lhs);
      EXPECT_EQ(plan.rhs.layout, e.rhs);
      EXPECT_EQ(plan.lhs.ld, e.lda);
      EXPECT_EQ(plan.rhs.ld, e.ldb);
      EXPECT_EQ(plan.lhs.batch_strides, e.lhs_strides);
      EXPECT_EQ(plan.rhs.batch_strides, e.rhs_strides);
    }
    // bf16 and integers take dense batches: copies.
    for (DType dtype : {DType::kBF16, DType::kS32}) {
      DotPlan plan = PlanDot(ir::Shape{dtype, c.lhs}, ir::Shape{dtype, c.rhs}, DimensionsOf(c));
      EXPECT_TRUE(plan.lhs.layout == DotPlan::kCopy || plan.rhs.layout == DotPlan::kCopy);
    }
  }
  // Without BLAS (integers), a transposed operand is copied into the canonical layout.
  const DotCase& transposed = cases[1];
  DotPlan plan = PlanDot(ir::Shape{DType::kS32, transposed.lhs},
                         ir::Shape{DType::kS32, transposed.rhs}, DimensionsOf(transposed));
  EXPECT_FALSE(plan.blas);
  EXPECT_EQ(plan.lhs.layout, DotPlan::kCopy);
  EXPECT_EQ(plan.lhs.copy_bytes, 12 * sizeof(int32_t));
  EXPECT_EQ(plan.rhs.layout, DotPlan::kAsIs);
}

TEST(DotPlanTest, EveryLayoutAndDtypeGivesTheOneCallKernelsBytes) {
  int seed = 0;
  for (const DotCase& c : DotCases()) {
    for (const auto& [name, dtype] : DTypes()) {
      const std::string text = DotProgram(c, name);
      SCOPED_TRACE(text);
      std::vector<ir::Literal> args = {RandomLiteral(dtype, c.lhs, ++seed),
                                       RandomLiteral(dtype, c.rhs, ++seed)};
      std::vector<uint8_t> direct(ir::Shape{dtype, ResultDims(c)}.byte_size() + 1, 0xAB);
      DotGeneral(args[0].shape, args[0].bytes.data(), args[1].shape, args[1].bytes.data(),
                 DimensionsOf(c), direct.data());
      EXPECT_EQ(direct.back(), 0xAB) << "wrote past the result";
      direct.pop_back();
      for (bool fuse : {true, false}) {
        auto executable = harness::CompileOrDie(text, fuse);
        ASSERT_NE(executable, nullptr);
        std::vector<std::vector<uint8_t>> bytes = harness::RunBytes(*executable, args);
        ASSERT_EQ(bytes.size(), 1u);
        EXPECT_EQ(bytes[0], direct) << (fuse ? "fused" : "unfused");
      }
      ExpectMatchesReference(text, args, direct, dtype, name);
    }
  }
}

// RunDotRows over a strided plan, in pieces that cross batches, gives RunDot's bytes.
TEST(DotPlanTest, RowsOfStridedOperandsMatchTheWholeProduct) {
  for (int index :
       {9, kFirstHeadCase, kFirstHeadCase + 1, kFirstHeadCase + 2, kFirstHeadCase + 3}) {
    const DotCase c = DotCases()[index];
    SCOPED_TRACE(index);
    DotPlan plan =
        PlanDot(ir::Shape{DType::kF32, c.lhs}, ir::Shape{DType::kF32, c.rhs}, DimensionsOf(c));
    ASSERT_TRUE(DotRowsSupported(plan));
    const ir::Literal a = RandomLiteral(DType::kF32, c.lhs, 7);
    const ir::Literal b = RandomLiteral(DType::kF32, c.rhs, 8);
    const size_t bytes = ir::Shape{DType::kF32, ResultDims(c)}.byte_size();
    std::vector<uint8_t> whole(bytes), rows(bytes);
    RunDot(plan, a.bytes.data(), b.bytes.data(), whole.data());
    const int64_t total = plan.batches * plan.m;
    for (int64_t first = 0; first < total; first += 3) {
      RunDotRows(plan, a.bytes.data(), b.bytes.data(), first, std::min(total, first + 3), false,
                 1.0F, rows.data());
    }
    if (plan.small) {  // the small loop's sums are the same however the rows are split
      EXPECT_EQ(rows, whole);
      continue;
    }
    // A library gemm may block a part of the rows differently: the order of sums only.
    const auto* x = reinterpret_cast<const float*>(rows.data());
    const auto* y = reinterpret_cast<const float*>(whole.data());
    for (size_t i = 0; i < bytes / sizeof(float); ++i) {
      ASSERT_NEAR(x[i], y[i], 1e-5F * (1 + std::fabs(y[i]))) << "element " << i;
    }
  }
}

// A plan writing its result in a transpose's layout (WriteResultTransposed) gives the bytes
// of the transpose of the dense result: small loop and BLAS, f32 and f64, strided operands.
TEST(DotPlanTest, ResultsWrittenTransposedAreTheTransposeOfTheProduct) {
  const std::vector<DotCase> cases = DotCases();
  const struct {
    int case_index;
    std::vector<int64_t> permutation;
  } transposed[] = {
      {7, {1, 0, 2}},  // [2, 4, 5] -> [4, 2, 5]
      {kFirstHeadCase, {0, 2, 1, 3}},
      {kFirstHeadCase + 1, {2, 0, 1, 3}},
      {kFirstHeadCase + 3, {0, 2, 1, 3}},
  };
  for (const auto& t : transposed) {
    const DotCase& c = cases[t.case_index];
    SCOPED_TRACE(t.case_index);
    for (DType dtype : {DType::kF32, DType::kF64}) {
      const ir::Shape result{dtype, ResultDims(c)};
      DotPlan plan = PlanDot(ir::Shape{dtype, c.lhs}, ir::Shape{dtype, c.rhs}, DimensionsOf(c));
      DotPlan dense = plan;
      ASSERT_TRUE(WriteResultTransposed(&plan, result, static_cast<int64_t>(c.lhs_batch.size()),
                                        t.permutation));
      const ir::Literal a = RandomLiteral(dtype, c.lhs, 11), b = RandomLiteral(dtype, c.rhs, 12);
      std::vector<uint8_t> product(result.byte_size()), want(result.byte_size());
      std::vector<uint8_t> got(result.byte_size() + 1, 0xAB);
      RunDot(dense, a.bytes.data(), b.bytes.data(), product.data());
      Transpose(result, product.data(), t.permutation, want.data());
      RunDot(plan, a.bytes.data(), b.bytes.data(), got.data());
      EXPECT_EQ(got.back(), 0xAB) << "wrote past the result";
      got.pop_back();
      EXPECT_EQ(got, want);
    }
  }
  // The rhs's free dimension must stay last (rows of the result contiguous), and integer
  // products keep their dense result.
  const DotCase& heads = cases[kFirstHeadCase];
  const ir::Shape result{DType::kF32, ResultDims(heads)};
  DotPlan plan = PlanDot(ir::Shape{DType::kF32, heads.lhs}, ir::Shape{DType::kF32, heads.rhs},
                         DimensionsOf(heads));
  EXPECT_FALSE(WriteResultTransposed(&plan, result, 2, {0, 1, 3, 2}));
  EXPECT_EQ(plan.out.ld, plan.n);
  DotPlan integers = PlanDot(ir::Shape{DType::kS32, heads.lhs}, ir::Shape{DType::kS32, heads.rhs},
                             DimensionsOf(heads));
  EXPECT_FALSE(
      WriteResultTransposed(&integers, ir::Shape{DType::kS32, ResultDims(heads)}, 2, {0, 2, 1, 3}));
}

TEST(DotPlanTest, DotUpdatesOfEveryLayoutMatchTheReference) {
  int seed = 100;
  for (const DotCase& c : DotCases()) {
    for (const auto& [name, dtype] : {std::pair<std::string, DType>{"f32", DType::kF32},
                                      std::pair<std::string, DType>{"f64", DType::kF64}}) {
      const std::string text = UpdateProgram(c, name);
      SCOPED_TRACE(text);
      std::vector<ir::Literal> args = {
          RandomLiteral(dtype, c.lhs, ++seed), RandomLiteral(dtype, c.rhs, ++seed),
          RandomLiteral(dtype, ResultDims(c), ++seed), RandomLiteral(dtype, {}, ++seed)};
      auto executable = harness::CompileOrDie(text, true);
      ASSERT_NE(executable, nullptr);
      std::vector<std::vector<uint8_t>> bytes = harness::RunBytes(*executable, args);
      ASSERT_EQ(bytes.size(), 1u);
      ExpectMatchesReference(text, args, bytes[0], dtype, name);
    }
  }
}

TEST(GatherPlanTest, UnitDimensionsDropAndNeighboursMerge) {
  // A row broadcast over 3 rows: a fill dimension and a copied one.
  GatherPlan row = PlanBroadcast(ir::Shape{DType::kF32, {4}}, ir::Shape{DType::kF32, {3, 4}}, {1});
  EXPECT_EQ(row.dims, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(row.strides, (std::vector<int64_t>{0, 1}));
  // An identity transpose walks the operand in order: one dimension.
  GatherPlan identity = PlanTranspose(ir::Shape{DType::kF64, {2, 1, 3, 4}}, {0, 1, 2, 3});
  EXPECT_EQ(identity.element_bytes, 8);
  EXPECT_EQ(identity.dims, (std::vector<int64_t>{24}));
  EXPECT_EQ(identity.strides, (std::vector<int64_t>{1}));
  // A scalar to [2,3]: one fill.
  GatherPlan fill = PlanBroadcast(ir::Shape{DType::kS32, {}}, ir::Shape{DType::kS32, {2, 3}}, {});
  EXPECT_EQ(fill.dims, (std::vector<int64_t>{6}));
  EXPECT_EQ(fill.strides, (std::vector<int64_t>{0}));
  // Nothing to move.
  GatherPlan empty =
      PlanBroadcast(ir::Shape{DType::kF32, {3}}, ir::Shape{DType::kF32, {0, 3}}, {1});
  EXPECT_EQ(empty.dims, (std::vector<int64_t>{0}));
}

TEST(GatherPlanTest, BroadcastsTransposesAndSlicesMatchTheReference) {
  const std::vector<std::string> bodies = {
      "%a = parameter(0) : f32[3,4]\n  %t = transpose(%a), permutation={1,0} : f32[4,3]",
      "%a = parameter(0) : f32[2,3,4]\n  %t = transpose(%a), permutation={2,0,1} : f32[4,2,3]",
      "%a = parameter(0) : s64[2,3,4]\n  %t = transpose(%a), permutation={0,2,1} : s64[2,4,3]",
      "%a = parameter(0) : s32[2,1,4]\n  %t = transpose(%a), permutation={1,2,0} : s32[1,4,2]",
      "%a = parameter(0) : f32[4]\n  %t = broadcast_in_dim(%a), dims={1} : f32[3,4]",
      "%a = parameter(0) : f32[3]\n  %t = broadcast_in_dim(%a), dims={0} : f32[3,4]",
      "%a = parameter(0) : f64[3,1]\n  %t = broadcast_in_dim(%a), dims={0,2} : f64[3,5,4]",
      "%a = parameter(0) : bf16[2,3]\n  %t = broadcast_in_dim(%a), dims={0,2} : bf16[2,4,3]",
      "%a = parameter(0) : pred[3]\n  %t = broadcast_in_dim(%a), dims={1} : pred[2,3,2]",
      "%a = parameter(0) : f32[]\n  %t = broadcast_in_dim(%a), dims={} : f32[0,3]",
      "%a = parameter(0) : f32[0]\n  %t = broadcast_in_dim(%a), dims={1} : f32[3,0]",
      "%a = parameter(0) : f32[1,1]\n  %t = broadcast_in_dim(%a), dims={0,1} : f32[1,1]",
      "%a = parameter(0) : f32[5,6]\n  %t = slice(%a), start={1,2}, limit={5,6}, stride={2,1} : "
      "f32[2,4]",
      "%a = parameter(0) : f32[5,6]\n  %t = slice(%a), start={0,1}, limit={5,6}, stride={1,2} : "
      "f32[5,3]",
  };
  unsigned seed = 300;
  for (const std::string& body : bodies) {
    const std::string text = absl::StrCat("program @move {\n  ", body, "\n  return (%t)\n}\n");
    SCOPED_TRACE(text);
    for (bool fuse : {true, false}) {
      auto executable = harness::CompileOrDie(text, fuse);
      ASSERT_NE(executable, nullptr);
      const ir::Shape& shape = executable->parameter_shapes()[0];
      std::vector<ir::Literal> args = {RandomLiteral(shape.dtype, shape.dims, ++seed)};
      std::vector<std::vector<uint8_t>> bytes = harness::RunBytes(*executable, args);
      ASSERT_EQ(bytes.size(), 1u);
      absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
      ASSERT_TRUE(program.ok());
      absl::StatusOr<std::vector<ir::Literal>> reference = ir::Evaluate(*program, args);
      ASSERT_TRUE(reference.ok()) << reference.status();
      EXPECT_EQ(bytes[0], (*reference)[0].bytes) << (fuse ? "fused" : "unfused");
    }
  }
}

// Rank-2 gathers (a row broadcast, a column broadcast, a transpose) computed in pieces, as
// a fused loop's tiles ask for them: pieces starting at a row's start take the whole-row
// path, the others the general one; every element must be the one its position names.
TEST(GatherPlanTest, RankTwoPiecesMatchTheElementsTheyName) {
  constexpr int64_t kRows = 300, kCols = 7;
  std::vector<float> in(kRows * kCols);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f + 1.0f;
  const ir::Shape out_shape{DType::kF32, {kRows, kCols}};
  struct Case {
    std::string name;
    GatherPlan plan;
    std::function<int64_t(int64_t, int64_t)> source;  // (row, column) -> index into `in`
  };
  const std::vector<Case> cases = {
      {"row broadcast", PlanBroadcast({DType::kF32, {kCols}}, out_shape, {1}),
       [](int64_t, int64_t c) { return c; }},
      {"column broadcast", PlanBroadcast({DType::kF32, {kRows}}, out_shape, {0}),
       [](int64_t r, int64_t) { return r; }},
      {"transpose", PlanTranspose({DType::kF32, {kCols, kRows}}, {1, 0}),
       [](int64_t r, int64_t c) { return c * kRows + r; }},
  };
  // Piece lengths: whole rows, a tile, and lengths that leave the next piece mid-row.
  const std::vector<int64_t> lengths = {kCols * 3, 1024, 5, kCols, 13, kCols * 40, 1};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<float> out(kRows * kCols, -1.0f);
    int64_t start = 0;
    for (size_t k = 0; start < kRows * kCols; ++k) {
      const int64_t n = std::min(lengths[k % lengths.size()], kRows * kCols - start);
      GatherElements(c.plan, reinterpret_cast<const uint8_t*>(in.data()), start, n,
                     reinterpret_cast<uint8_t*>(out.data()));
      start += n;
    }
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t col = 0; col < kCols; ++col) {
        ASSERT_EQ(out[r * kCols + col], in[c.source(r, col)]) << "row " << r << " column " << col;
      }
    }
  }
}

constexpr char kSteps[] = R"(program @steps {
  %x = parameter(0) : f32[4,3]
  %w = parameter(1) : f32[3,5]
  %b = parameter(2) : f32[5]
  %d = dot_general(%x, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[4,5]
  %t = tanh(%d) : f32[4,5]
  %s = reduce_sum(%t), axes={1} : f32[4]
  %m = reduce_max(%d), axes={0} : f32[5]
  %bb = broadcast_in_dim(%b), dims={1} : f32[4,5]
  %e = add(%bb, %t) : f32[4,5]
  alias output 0 = parameter 1
  return (%w, %s, %m, %e)
})";

TEST(StepPlanTest, StepsGetTheirPlansAndRunIntoReusesTheList) {
  for (bool fuse : {true, false}) {
    SCOPED_TRACE(fuse ? "fused" : "unfused");
    auto executable = harness::CompileOrDie(kSteps, fuse);
    ASSERT_NE(executable, nullptr);
    const FusionPlan& fusion = executable->fusion();
    ASSERT_EQ(executable->step_plans().size(), fusion.steps.size());
    int dots = 0, reduces = 0;
    for (size_t s = 0; s < fusion.steps.size(); ++s) {
      const StepPlan& plan = executable->step_plans()[s];
      for (const ReducePlan& r : plan.reduces) {
        ++reduces;
        EXPECT_EQ(r.operand_shape, (ir::Shape{DType::kF32, {4, 5}}));
        EXPECT_EQ(r.axes, std::vector<int64_t>{r.op == ir::Op::kReduceSum ? 1 : 0});
      }
      const int i = fusion.steps[s].instruction;
      if (fusion.steps[s].group >= 0 || fusion.update_of[i] >= 0) continue;
      if (executable->program().instructions[i].op == ir::Op::kDotGeneral) {
        ++dots;
        EXPECT_EQ(plan.dot.m, 4);
        EXPECT_EQ(plan.dot.k, 3);
        EXPECT_EQ(plan.dot.n, 5);
      }
    }
    EXPECT_EQ(reduces, 2) << "each reduction has its plan, as a step or with its group";
    EXPECT_EQ(dots, 1);

    std::vector<ir::Literal> args = {RandomLiteral(DType::kF32, {4, 3}, 1),
                                     RandomLiteral(DType::kF32, {3, 5}, 2),
                                     RandomLiteral(DType::kF32, {5}, 3)};
    const std::vector<std::vector<uint8_t>> expected = harness::RunBytes(*executable, args);
    std::vector<std::shared_ptr<DeviceMemory>> results(7);  // stale entries are replaced
    for (int run = 0; run < 2; ++run) {
      std::vector<std::shared_ptr<DeviceMemory>> inputs = harness::ToDevice(args);
      auto input = [&](size_t i) -> const std::shared_ptr<DeviceMemory>& { return inputs[i]; };
      ASSERT_TRUE(executable->RunInto(input, results).ok());
      ASSERT_EQ(results.size(), expected.size());
      EXPECT_EQ(results[0], inputs[1]) << "the donated parameter's block";
      for (size_t k = 0; k < results.size(); ++k) {
        EXPECT_EQ(std::vector<uint8_t>(results[k]->data(), results[k]->data() + results[k]->size()),
                  expected[k])
            << "result " << k;
      }
    }
  }
}

}  // namespace
}  // namespace seam::cpu
