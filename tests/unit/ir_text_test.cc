#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "src/ir/text.h"

namespace seam::ir {
namespace {

Instruction Param(int64_t index, Shape shape) {
  Instruction inst;
  inst.op = Op::kParameter;
  inst.parameter_index = index;
  inst.shape = std::move(shape);
  return inst;
}

Instruction Const(Literal literal) {
  Instruction inst;
  inst.op = Op::kConstant;
  inst.shape = literal.shape;
  inst.literal = std::move(literal);
  return inst;
}

Instruction Node(Op op, std::vector<int> operands, Shape shape, Attributes attrs = {}) {
  Instruction inst;
  inst.op = op;
  inst.operands = std::move(operands);
  inst.shape = std::move(shape);
  inst.attrs = std::move(attrs);
  return inst;
}

Shape F32(std::vector<int64_t> dims) { return Shape{DType::kF32, std::move(dims)}; }
Shape S32(std::vector<int64_t> dims) { return Shape{DType::kS32, std::move(dims)}; }

// dot_general as a plain [m,k] x [k,n] matrix product.
Attributes MatmulDims() {
  return {{"lhs_batch", {}}, {"lhs_contracting", {1}}, {"rhs_batch", {}}, {"rhs_contracting", {0}}};
}

Program Make(std::vector<Instruction> instructions, std::vector<int> results) {
  Program p;
  p.instructions = std::move(instructions);
  p.results = std::move(results);
  return p;
}

// Printing, parsing and printing again must reproduce both the text and the program.
void ExpectRoundTrip(const Program& program) {
  std::string text = PrintProgram(program);
  absl::StatusOr<Program> parsed = ParseProgram(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  EXPECT_EQ(*parsed, program) << text;
  EXPECT_EQ(PrintProgram(*parsed), text);
}

Program ExampleProgram() {
  return Make(
      {Param(0, F32({4, 3})), Const(Literal::ScalarF32(2.5f)),
       Const(Literal::FromS32({1, 2, 3, 4}, {2, 2})),
       Node(Op::kBroadcastInDim, {1}, F32({4, 3}), {{"dims", {}}}),
       Node(Op::kAdd, {0, 3}, F32({4, 3})), Node(Op::kReduceSum, {4}, F32({4}), {{"axes", {1}}})},
      {5, 4});
}

TEST(IrTextTest, PrintsCanonicalText) {
  EXPECT_EQ(PrintProgram(ExampleProgram()),
            "program @main replicas=1 {\n"
            "  %0 = parameter(0) : f32[4,3]\n"
            "  %1 = constant(2.5) : f32[]\n"
            "  %2 = constant({1, 2, 3, 4}) : s32[2,2]\n"
            "  %3 = broadcast_in_dim(%1), dims={} : f32[4,3]\n"
            "  %4 = add(%0, %3) : f32[4,3]\n"
            "  %5 = reduce_sum(%4), axes={1} : f32[4]\n"
            "  return (%5, %4)\n"
            "}\n");
}

TEST(IrTextTest, RoundTripsExample) { ExpectRoundTrip(ExampleProgram()); }

TEST(IrTextTest, RoundTripsScalarProgram) {
  Program p =
      Make({Param(0, F32({})), Param(1, F32({})), Node(Op::kMultiply, {0, 1}, F32({}))}, {2});
  p.name = "scalar";
  p.replica_count = 8;
  ExpectRoundTrip(p);
  EXPECT_TRUE(absl::StrContains(PrintProgram(p), "program @scalar replicas=8 {"));
}

TEST(IrTextTest, RoundTripsS32Program) {
  Program p = Make({Param(1, S32({2, 3})), Param(0, S32({3, 2})),
                    Const(Literal::FromS32({-2147483647 - 1, 0, 2147483647}, {3})),
                    Node(Op::kDotGeneral, {0, 1}, S32({2, 2}), MatmulDims()),
                    Node(Op::kSubtract, {3, 3}, S32({2, 2})), Node(Op::kAdd, {4, 3}, S32({2, 2})),
                    Node(Op::kMultiply, {5, 4}, S32({2, 2})),
                    Node(Op::kBroadcastInDim, {2}, S32({2, 3}), {{"dims", {1}}}),
                    Node(Op::kReduceSum, {7}, S32({}), {{"axes", {0, 1}}}),
                    Node(Op::kReduceSum, {6}, S32({2, 2}), {{"axes", {}}})},
                   {8, 9, 8, 2});
  ExpectRoundTrip(p);
  std::string text = PrintProgram(p);
  EXPECT_TRUE(absl::StrContains(text, "constant({-2147483648, 0, 2147483647}) : s32[3]"));
  EXPECT_TRUE(absl::StrContains(text, "reduce_sum(%7), axes={0,1} : s32[]"));
  EXPECT_TRUE(absl::StrContains(text, "return (%8, %9, %8, %2)"));
}

// One instruction of every op of ops.def, in canonical text.
constexpr char kEveryOp[] = R"(program @every_op replicas=2 {
  %0 = parameter(0) : f32[2,3]
  %1 = parameter(1) : s32[2,3]
  %2 = constant({true, false}) : pred[2]
  %3 = constant({1.5, -0.25}) : bf16[2]
  %4 = constant(0) : f32[]
  %5 = iota(), dimension={1} : s32[2,3]
  %6 = neg(%0) : f32[2,3]
  %7 = abs(%1) : s32[2,3]
  %8 = sign(%0) : f32[2,3]
  %9 = exp(%0) : f32[2,3]
  %10 = log(%0) : f32[2,3]
  %11 = log1p(%0) : f32[2,3]
  %12 = tanh(%0) : f32[2,3]
  %13 = logistic(%0) : f32[2,3]
  %14 = sqrt(%0) : f32[2,3]
  %15 = rsqrt(%0) : f32[2,3]
  %16 = floor(%0) : f32[2,3]
  %17 = ceil(%0) : f32[2,3]
  %18 = not(%2) : pred[2]
  %19 = add(%0, %6) : f32[2,3]
  %20 = subtract(%0, %6) : f32[2,3]
  %21 = multiply(%0, %6) : f32[2,3]
  %22 = divide(%1, %5) : s32[2,3]
  %23 = remainder(%1, %5) : s32[2,3]
  %24 = power(%0, %6) : f32[2,3]
  %25 = maximum(%0, %6) : f32[2,3]
  %26 = minimum(%0, %6) : f32[2,3]
  %27 = and(%1, %5) : s32[2,3]
  %28 = or(%2, %18) : pred[2]
  %29 = eq(%0, %6) : pred[2,3]
  %30 = ne(%0, %6) : pred[2,3]
  %31 = lt(%1, %5) : pred[2,3]
  %32 = le(%2, %18) : pred[2]
  %33 = gt(%3, %3) : pred[2]
  %34 = ge(%0, %6) : pred[2,3]
  %35 = select(%29, %0, %6) : f32[2,3]
  %36 = convert(%1) : bf16[2,3]
  %37 = broadcast_in_dim(%3), dims={0} : bf16[2,4]
  %38 = reshape(%0) : f32[3,1,2]
  %39 = transpose(%0), permutation={1,0} : f32[3,2]
  %40 = slice(%0), limit={2,3}, start={0,1}, stride={1,2} : f32[2,1]
  %41 = concatenate(%0, %6, %0), dimension={0} : f32[6,3]
  %42 = pad(%0, %4), high={0,1}, interior={1,0}, low={1,-1} : f32[4,3]
  %43 = reduce_sum(%0), axes={1} : f32[2]
  %44 = reduce_product(%1), axes={0,1} : s32[]
  %45 = reduce_max(%0), axes={} : f32[2,3]
  %46 = reduce_min(%0), axes={0} : f32[3]
  %47 = dot_general(%0, %6), lhs_batch={0}, lhs_contracting={1}, rhs_batch={0}, rhs_contracting={1} : f32[2]
  %48 = all_reduce_sum(%0), group_size={2}, replica_groups={0,1} : f32[2,3]
  %49 = all_reduce_max(%1), group_size={1}, replica_groups={1,0} : s32[2,3]
  %50 = all_reduce_min(%0), group_size={2}, replica_groups={1,0} : f32[2,3]
  %51 = convolution(%0, %0), feature_group_count={1}, input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={}, kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, kernel_spatial_dims={}, lhs_dilation={}, output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={}, padding_high={}, padding_low={}, rhs_dilation={}, window_strides={} : f32[2,2]
  %52 = reduce_window_sum(%0), base_dilation={1,1}, padding_high={0,1}, padding_low={1,0}, window_dilation={1,1}, window_dimensions={2,2}, window_strides={1,2} : f32[2,2]
  %53 = reduce_window_max(%0), base_dilation={1,2}, padding_high={0,0}, padding_low={0,0}, window_dilation={1,1}, window_dimensions={1,2}, window_strides={1,1} : f32[2,4]
  %54 = reduce_window_min(%0), base_dilation={1,1}, padding_high={0,0}, padding_low={0,0}, window_dilation={1,2}, window_dimensions={2,2}, window_strides={1,1} : f32[1,1]
  %55 = select_and_scatter(%0, %52), padding_high={0,1}, padding_low={1,0}, window_dimensions={2,2}, window_strides={1,2} : f32[2,3]
  %56 = gather(%0, %1), collapsed_slice_dims={0}, index_vector_dim={2}, offset_dims={2}, slice_sizes={1,3}, start_index_map={0} : f32[2,3,3]
  %57 = scatter_add(%0, %1, %56), index_vector_dim={2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, update_window_dims={2} : f32[2,3]
  %58 = scatter_replace(%0, %1, %56), index_vector_dim={2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, update_window_dims={2} : f32[2,3]
  %59 = erf(%0) : f32[2,3]
  %60 = clamp(%0, %0, %0) : f32[2,3]
  %61 = argmax(%0), axis={1} : s64[2]
  %62 = argmin(%1), axis={0} : s64[3]
  %63 = cumsum(%1), axis={1} : s32[2,3]
  %64 = reduce_sum(%62), axes={0} : s64[]
  %65 = rng_bit_generator(%64, %61) : s64[4,1]
  %66 = argsort(%0), axis={1}, descending={1} : s64[2,3]
  return (%50, %49, %48, %47)
}
)";

TEST(IrTextTest, RoundTripsEveryOp) {
  absl::StatusOr<Program> parsed = ParseProgram(kEveryOp);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(PrintProgram(*parsed), kEveryOp);
  ExpectRoundTrip(*parsed);
  std::vector<bool> seen(kNumOps, false);
  for (const Instruction& inst : parsed->instructions) seen[static_cast<int>(inst.op)] = true;
  for (int i = 0; i < kNumOps; ++i) {
    // Elementwise rows are covered row by row below; a new one needs no line above.
    if (OpElementwiseKind(static_cast<Op>(i)) != ElementwiseKind::kNone) continue;
    EXPECT_TRUE(seen[i]) << OpName(static_cast<Op>(i));
  }
}

// ops.def's combiner column agrees with the text name of each reduction row (reduce_sum,
// reduce_window_max, all_reduce_min...), so a row that names the wrong combiner, which the
// reference and the plugin would then both fold the same wrong way, fails here.
TEST(IrTextTest, EveryReductionRowIsNamedForItsCombiner) {
  int reductions = 0;
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<Op>(i);
    const std::string name(OpName(op));
    const bool named = name.rfind("reduce_", 0) == 0 || name.rfind("all_reduce_", 0) == 0;
    EXPECT_EQ(named, ReductionOf(op) != Combiner::kNone) << name;
    std::string suffix;
    switch (ReductionOf(op)) {
      case Combiner::kSum:
        suffix = "_sum";
        break;
      case Combiner::kProduct:
        suffix = "_product";
        break;
      case Combiner::kMax:
        suffix = "_max";
        break;
      case Combiner::kMin:
        suffix = "_min";
        break;
      case Combiner::kNone:
        continue;
    }
    ++reductions;
    EXPECT_TRUE(name.size() > suffix.size() &&
                name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        << name << " folds with " << suffix.substr(1);
    EXPECT_EQ(OpEffect(op) == Effect::kCollective, IsAllReduce(op)) << name;
  }
  EXPECT_GE(reductions, 10);
  EXPECT_EQ(OpEffect(Op::kRngBitGenerator), Effect::kRandom);
  EXPECT_EQ(OpEffect(Op::kAdd), Effect::kPure);
  EXPECT_TRUE(OpFloatOnly(Op::kExp));
  EXPECT_FALSE(OpFloatOnly(Op::kAdd));
  EXPECT_EQ(ReductionIdentity<int32_t>(Combiner::kMax), INT32_MIN);
  EXPECT_EQ(ReductionIdentity<float>(Combiner::kMin), std::numeric_limits<float>::infinity());
}

struct ElementwiseRow {
  Op op;
  int arity;
  DTypeSet dtypes;
};

// Every unary, binary and compare row of ops.def, read from the table itself.
std::vector<ElementwiseRow> ElementwiseRows() {
  return {
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo)
#define SEAM_IR_UNARY(name, text, dtypes, stablehlo) {Op::name, 1, dtypes},
#define SEAM_IR_BINARY(name, text, dtypes, stablehlo) {Op::name, 2, dtypes},
#define SEAM_IR_COMPARE(name, text, dtypes, direction) {Op::name, 2, dtypes},
#include "src/ir/ops.def"
#undef SEAM_IR_OP
#undef SEAM_IR_UNARY
#undef SEAM_IR_BINARY
#undef SEAM_IR_COMPARE
  };
}

TEST(IrTextTest, RoundTripsEveryElementwiseRowInEveryDType) {
  const std::vector<ElementwiseRow> rows = ElementwiseRows();
  ASSERT_FALSE(rows.empty());
  for (const ElementwiseRow& row : rows) {
    EXPECT_EQ(OpArity(row.op), row.arity) << OpName(row.op);
    EXPECT_NE(OpElementwiseKind(row.op), ElementwiseKind::kNone) << OpName(row.op);
    for (DType dtype : kAllDTypeList) {
      if (!Contains(row.dtypes, dtype)) continue;
      const std::string type = std::string(DTypeName(dtype)) + "[2,3]";
      const bool compare = OpElementwiseKind(row.op) == ElementwiseKind::kCompare;
      std::string text = "program @row replicas=1 {\n  %0 = parameter(0) : " + type + "\n";
      if (row.arity == 2) text += "  %1 = parameter(1) : " + type + "\n";
      text += "  %" + std::to_string(row.arity) + " = " + std::string(OpName(row.op)) +
              (row.arity == 2 ? "(%0, %1)" : "(%0)") + " : " + (compare ? "pred[2,3]" : type) +
              "\n  return (%" + std::to_string(row.arity) + ")\n}\n";
      absl::StatusOr<Program> parsed = ParseProgram(text);
      ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
      EXPECT_EQ(PrintProgram(*parsed), text);
    }
  }
}

TEST(IrTextTest, RoundTripsConstantsOfEveryDType) {
  float bf16_max = 3.38953139e38f;
  Program p = Make(
      {Const(Literal::FromF64({0.1, -0.0, 1e308, 5e-324, -std::numeric_limits<double>::infinity()},
                              {5})),
       Const(Literal::FromBF16({0.1f, -0.0f, bf16_max, 1.0f / 3, 1e-40f}, {5})),
       Const(Literal::FromS64(
           {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 0}, {3})),
       Const(Literal::FromPred({true, false, true}, {3, 1})), Const(Literal::FromPred({}, {0})),
       Const(Literal::FromPred({false}, {}))},
      {0, 1, 2, 3, 4, 5});
  ExpectRoundTrip(p);
  std::string text = PrintProgram(p);
  EXPECT_TRUE(absl::StrContains(text, "constant({0.1, -0, 1e+308, 5e-324, -inf}) : f64[5]"));
  // bf16 values print as the f32 they are: 0.1 rounds to 0.10009765625.
  EXPECT_TRUE(absl::StrContains(
      text, "constant({0.100097656, -0, 3.3895314e+38, 0.33398438, 9.1835e-41}) : bf16[5]"))
      << text;
  EXPECT_TRUE(
      absl::StrContains(text, "constant({-9223372036854775808, 9223372036854775807, 0}) : s64[3]"));
  EXPECT_TRUE(absl::StrContains(text, "constant({true, false, true}) : pred[3,1]"));
  EXPECT_TRUE(absl::StrContains(text, "constant({}) : pred[0]"));
  EXPECT_TRUE(absl::StrContains(text, "constant(false) : pred[]"));
  // Text for bf16 is read as f32 and rounded to nearest even.
  absl::StatusOr<Program> parsed =
      ParseProgram("program @b {\n  %0 = constant({0.1, 1.00390625}) : bf16[2]\n  return (%0)\n}");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->instructions[0].literal, Literal::FromBF16({0.10009765625f, 1.0f}, {2}));
}

TEST(IrTextTest, RoundTripsEmptyAndSpecialConstants) {
  float tiny = std::numeric_limits<float>::denorm_min();
  Program p = Make({Const(Literal::FromF32({}, {0, 3})), Const(Literal::FromS32({}, {0})),
                    Const(Literal::FromF32({0.1f, -0.0f, 1e30f, tiny, 3.4028235e38f}, {5})),
                    Const(Literal::FromF32({std::numeric_limits<float>::infinity(),
                                            -std::numeric_limits<float>::infinity()},
                                           {2, 1}))},
                   {0, 1, 2, 3});
  ExpectRoundTrip(p);
  std::string text = PrintProgram(p);
  EXPECT_TRUE(absl::StrContains(text, "%0 = constant({}) : f32[0,3]"));
  EXPECT_TRUE(absl::StrContains(text, "%1 = constant({}) : s32[0]"));
  EXPECT_TRUE(absl::StrContains(text, "constant({0.1, -0, 1e+30, 1e-45, 3.4028235e+38})"));
  EXPECT_TRUE(absl::StrContains(text, "constant({inf, -inf}) : f32[2,1]"));
}

TEST(IrTextTest, NanPrintsAndParsesAsNan) {
  Program p = Make({Const(Literal::ScalarF32(std::numeric_limits<float>::quiet_NaN()))}, {0});
  std::string text = PrintProgram(p);
  EXPECT_TRUE(absl::StrContains(text, "%0 = constant(nan) : f32[]"));
  absl::StatusOr<Program> parsed = ParseProgram(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(std::isnan(parsed->instructions[0].literal.f32()[0]));
  EXPECT_EQ(PrintProgram(*parsed), text);
}

TEST(IrTextTest, QuotesNamesThatAreNotPlain) {
  Program p = Make({Param(0, F32({}))}, {0});
  for (std::string name : {"", "a b", "quote\"back\\slash", "tab\tnew\nline\x01", "ü"}) {
    p.name = name;
    ExpectRoundTrip(p);
  }
  p.name = "a b";
  EXPECT_TRUE(absl::StartsWith(PrintProgram(p), "program @\"a b\" replicas=1 {\n"));
  p.name = "step-1.fwd_2";
  EXPECT_TRUE(absl::StartsWith(PrintProgram(p), "program @step-1.fwd_2 replicas=1 {\n"));
}

TEST(IrTextTest, HandWrittenTextPrintsCanonically) {
  const char* text = R"(
# A comment before the program.
program   @net {   # no replicas: defaults to 1
  %x = parameter(0):f32[2,3]
  %w=parameter( 1 ) : f32[3,2]   # trailing comment

  %mm = dot_general(%x,%w), rhs_contracting={0}, lhs_contracting={1},
        lhs_batch={}, rhs_batch={} : f32[2,2]
  %b.1 = constant( { 1 , 2 } ) : f32[2]
  %bb = broadcast_in_dim( %b.1 ) , dims = { 1 } : f32[2,2]
  %sum = add(%mm, %bb) : f32[2,2]
  %r = reduce_sum(%sum), axes={0,1} : f32[]
  return ( %r , %sum )
}  # done
)";
  absl::StatusOr<Program> parsed = ParseProgram(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(PrintProgram(*parsed),
            "program @net replicas=1 {\n"
            "  %0 = parameter(0) : f32[2,3]\n"
            "  %1 = parameter(1) : f32[3,2]\n"
            "  %2 = dot_general(%0, %1), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, "
            "rhs_contracting={0} : f32[2,2]\n"
            "  %3 = constant({1, 2}) : f32[2]\n"
            "  %4 = broadcast_in_dim(%3), dims={1} : f32[2,2]\n"
            "  %5 = add(%2, %4) : f32[2,2]\n"
            "  %6 = reduce_sum(%5), axes={0,1} : f32[]\n"
            "  return (%6, %5)\n"
            "}\n");
  EXPECT_EQ(parsed->results, (std::vector<int>{6, 5}));
  EXPECT_EQ(parsed->instructions[3].literal, Literal::FromF32({1, 2}, {2}));
}

TEST(IrTextTest, AcceptsNumericNamesOutOfOrder) {
  absl::StatusOr<Program> parsed = ParseProgram(
      "program @p {\n %7 = parameter(0) : s32[]\n %0 = add(%7, %7) : s32[]\n return (%0)\n}");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->instructions[1].operands, (std::vector<int>{0, 0}));
  EXPECT_EQ(parsed->results, (std::vector<int>{1}));
}

struct BadCase {
  const char* text;
  int line;
  const char* contains;
};

TEST(IrTextTest, RejectsMalformedInput) {
  const std::string header = "program @m {\n";
  const BadCase cases[] = {
      {"", 1, "expected 'program', found end of input"},
      {"   \n# only a comment\n", 3, "expected 'program'"},
      {"prog @m {", 1, "expected 'program', found 'prog'"},
      {"program main {", 1, "found 'main'"},
      {"program @m replicas=0 {\n", 1, "replicas must be >= 1, found '0'"},
      {"program @m replicas=-3 {\n", 1, "found '-3'"},
      {"program @m replicas=x {\n", 1, "expected a replica count, found 'x'"},
      {"program @m replicas=99999999999999999999 {\n", 1, "'99999999999999999999' is out of range"},
      {"program @m replicas=1\n", 2, "expected '{' to open the program body, found end of input"},
      {"program @\"abc {\n", 1, "unterminated quoted program name"},
      {"program @\"a\\qb\" {\n", 1, "invalid escape in program name"},
      {"program @m {\n  %0 = parameter(0) @ f32[]\n", 2,
       "expected ':' after the operands, found '@'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  %1 = parameter(1) : f32[]\n"
       "  %2 = mul(%0, %1) : f32[]\n",
       4, "unknown op 'mul'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  %1 = add(%0, %x) : f32[]\n", 3,
       "%x is not defined"},
      {"program @m {\n  %0 = add(%0, %0) : f32[]\n", 2, "%0 is not defined"},
      {"program @m {\n  %a = parameter(0) : f32[]\n  %a = parameter(1) : f32[]\n", 3,
       "%a is already defined (line 2)"},
      {"program @m {\n  %0 = constant({1, 2, 3}) : f32[2,2]\n  return (%0)\n}\n", 2,
       "constant has 3 values, shape f32[2,2] needs 4"},
      {"program @m {\n  %0 = constant(1) : f32[-1]\n", 2,
       "expected a non-negative dimension, found '-1'"},
      {"program @m {\n  %0 = parameter(0) : f32[4294967296,4294967296]\n", 2,
       "size overflows int64"},
      {"program @m {\n  %0 = parameter(0) : f32[99999999999999999999]\n", 2,
       "'99999999999999999999' is out of range"},
      {"program @m {\n  %0 = parameter(0) : f16[]\n", 2,
       "expected a dtype (f32, f64, bf16, s32, s64 or pred), found 'f16'"},
      {"program @m {\n  %0 = parameter(0) : f32[2 3]\n", 2,
       "expected ',' or ']' in the dimensions, found '3'"},
      {"program @m {\n  %0 = constant(3000000000) : s32[]\n  return (%0)\n}", 2,
       "s32 value '3000000000' is out of range"},
      {"program @m {\n  %0 = constant(2.5) : s32[]\n  return (%0)\n}", 2,
       "expected an s32 value, found '2.5'"},
      {"program @m {\n  %0 = constant(1e50) : f32[]\n  return (%0)\n}", 2,
       "f32 value '1e50' is out of range"},
      {"program @m {\n  %0 = constant(abc) : f32[]\n  return (%0)\n}", 2,
       "expected an f32 value, found 'abc'"},
      {"program @m {\n  %0 = constant(1) : pred[]\n  return (%0)\n}", 2,
       "expected a pred value (true or false), found '1'"},
      {"program @m {\n  %0 = constant(true) : bf16[]\n  return (%0)\n}", 2,
       "expected a bf16 value, found 'true'"},
      {"program @m {\n  %0 = constant(3.4e38) : bf16[]\n  return (%0)\n}", 2,
       "bf16 value '3.4e38' is out of range"},
      {"program @m {\n  %0 = constant(1e400) : f64[]\n  return (%0)\n}", 2,
       "f64 value '1e400' is out of range"},
      {"program @m {\n  %0 = constant(x) : f64[]\n  return (%0)\n}", 2,
       "expected an f64 value, found 'x'"},
      {"program @m {\n  %0 = constant(9223372036854775808) : s64[]\n  return (%0)\n}", 2,
       "s64 value '9223372036854775808' is out of range"},
      {"program @m {\n  %0 = constant(1.5) : s64[]\n  return (%0)\n}", 2,
       "expected an s64 value, found '1.5'"},
      {"program @m {\n  %0 = parameter(0) : f32[2]\n  %1 = exp(%0) : s32[2]\n"
       "  %2 = exp(%1) : s32[2]\n  return (%2)\n}",
       3, "%1 (exp): declared shape s32[2] differs from inferred f32[2]"},
      {"program @m {\n  %0 = parameter(0) : s32[2]\n  %1 = exp(%0) : s32[2]\n  return (%1)\n}", 3,
       "%1 (exp): operand 0 has element type s32, expected f32, f64 or bf16"},
      {"program @m {\n  %0 = parameter(0) : s32[2]\n  %1 = concatenate() : s32[2]\n"
       "  return (%1)\n}",
       3, "%1 (concatenate): has 0 operands, expected at least 1"},
      {"program @m {\n  %0 = constant() : f32[]\n", 2, "expected a constant value, found ')'"},
      {"program @m {\n  %0 = constant({1 2}) : f32[2]\n", 2, "found '2'"},
      {"program @m {\n  %0 = parameter(%1) : f32[]\n", 2, "expected a parameter index, found '%1'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  %1 = reduce_sum(%0), axes={0}, axes={0} : "
       "f32[]\n",
       3, "duplicate attribute 'axes'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  %1 = reduce_sum(%0), axes=0 : f32[]\n", 3,
       "expected '{' to open the values of 'axes', found '0'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  %1 = reduce_sum(%0), axes={x} : f32[]\n", 3,
       "expected an integer in 'axes', found 'x'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  return (%0)\n", 4,
       "expected '}' after the return, found end of input"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  return (%0) )", 3,
       "expected '}' after the return, found ')'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  return (%0)\n}\ngarbage", 5,
       "expected end of input after '}', found 'garbage'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  return (%0)\n}}", 4,
       "expected end of input after '}', found '}'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  return (%0 %0)\n}", 3,
       "expected ',' or ')' in the return list, found '%0'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  return (%9)\n}", 3, "%9 is not defined"},
      {"program @m {\n  = parameter(0) : f32[]\n", 2,
       "expected an instruction like '%x = ...' or 'return', found '='"},
      {"program @m {\n  % = parameter(0) : f32[]\n", 2, "found '%'"},
      {"program @m {\n  %0 parameter(0) : f32[]\n", 2, "expected '=' after %0, found 'parameter'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  \x01\n", 3, "found '\\x01'"},
      // Errors of the final verification point at the offending instruction's line.
      {"program @m {\n  %0 = parameter(0) : f32[3]\n  %1 = parameter(1) : f32[4]\n"
       "  %2 = add(%0, %1) : f32[3]\n  return (%2)\n}",
       4, "%2 (add): operand 1 has shape f32[4], expected f32[3] (operand 0)"},
      {"program @m {\n  %0 = parameter(0) : f32[3]\n  %1 = add(%0) : f32[3]\n  return (%1)\n}", 3,
       "%1 (add): has 1 operands, expected 2"},
      {"program @m {\n  %0 = parameter(0) : f32[2,3]\n\n  %1 = reduce_sum(%0), axes={1} : f32[3]\n"
       "  return (%1)\n}",
       4, "%1 (reduce_sum): declared shape f32[3] differs from inferred f32[2]"},
      {"program @m {\n  %0 = parameter(1) : f32[]\n  return (%0)\n}", 2,
       "%0 (parameter): parameter index 1 is out of range, program has 1 parameters"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  %1 = add(%0, %0), dims={0} : f32[]\n"
       "  return (%1)\n}",
       3, "%1 (add): unexpected attribute 'dims'"},
      {"program @m {\n  %0 = parameter(0) : f32[]\n  return ()\n}", 3, "result tuple is empty"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<Program> parsed = ParseProgram(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    std::string message(parsed.status().message());
    std::string prefix = "line " + std::to_string(c.line) + ": ";
    EXPECT_TRUE(absl::StartsWith(message, prefix)) << message << "\nfor:\n" << c.text;
    EXPECT_TRUE(absl::StrContains(message, c.contains)) << message << "\nfor:\n" << c.text;
  }
}

TEST(IrTextTest, ShortensLongTokensInMessages) {
  std::string text = "program @m {\n  %0 = " + std::string(5000, 'z') + "(1) : f32[]\n";
  absl::StatusOr<Program> parsed = ParseProgram(text);
  ASSERT_FALSE(parsed.ok());
  EXPECT_TRUE(absl::StartsWith(parsed.status().message(), "line 2: unknown op 'zzzz"));
  EXPECT_LT(parsed.status().message().size(), 100u);
}

// Every prefix and many single-byte mutations of a valid program must produce either a
// program or an InvalidArgument error starting with "line N: ", and never crash.
void FuzzParser(const std::string& text) {
  auto check = [](const std::string& input) {
    absl::StatusOr<Program> parsed = ParseProgram(input);
    if (parsed.ok()) {
      // Whatever parses must print to text that parses back to the same program.
      absl::StatusOr<Program> again = ParseProgram(PrintProgram(*parsed));
      ASSERT_TRUE(again.ok()) << again.status() << "\n" << input;
      EXPECT_EQ(PrintProgram(*again), PrintProgram(*parsed));
      return;
    }
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(parsed.status().message(), "line ")) << parsed.status();
  };
  for (size_t n = 0; n <= text.size(); ++n) check(text.substr(0, n));
  const char replacements[] = {'\0', ' ', '\n', '#', '%', '@', '"', '{', '}', '(',    ')',
                               ',',  '=', ':',  '[', ']', '-', '0', '9', 'x', '\xff', '.'};
  uint32_t seed = 12345;
  for (size_t i = 0; i < text.size(); ++i) {
    for (char r : replacements) {
      std::string mutated = text;
      mutated[i] = r;
      check(mutated);
    }
    // Also drop a byte and duplicate a pseudo-random span.
    seed = seed * 1664525u + 1013904223u;
    std::string dropped = text;
    dropped.erase(i, 1);
    check(dropped);
    std::string doubled = text;
    size_t len = (seed >> 8) % 24;
    doubled.insert(i, text.substr(seed % text.size(), len));
    check(doubled);
  }
  EXPECT_TRUE(ParseProgram(text).ok());
}

TEST(IrTextTest, SurvivesTruncationAndMutation) {
  std::string text = PrintProgram(ExampleProgram());
  text.insert(text.find("  %4"), "  %9 = constant({-1.5e+10, inf, nan}) : f32[3]\n");
  FuzzParser(text);
}

TEST(IrTextTest, SurvivesTruncationAndMutationOfTheWiderOpSet) {
  FuzzParser(R"(program @wide replicas=2 {
  %0 = parameter(0) : f32[2,3]
  %1 = constant({true, false}) : pred[2]
  %2 = constant({1.5, -0.25, nan}) : bf16[3]
  %3 = constant(-9223372036854775808) : s64[]
  %4 = constant(0.1) : f64[]
  %5 = iota(), dimension={1} : s32[2,3]
  %6 = lt(%0, %0) : pred[2,3]
  %7 = select(%6, %0, %0) : f32[2,3]
  %8 = constant(0) : f32[]
  %9 = pad(%7, %8), high={0,1}, interior={1,0}, low={1,-1} : f32[4,3]
  %10 = slice(%9), limit={4,3}, start={1,0}, stride={2,2} : f32[2,2]
  %11 = dot_general(%0, %0), lhs_batch={0}, lhs_contracting={1}, rhs_batch={0}, rhs_contracting={1} : f32[2]
  %12 = all_reduce_max(%11), group_size={2}, replica_groups={1,0} : f32[2]
  return (%12, %10, %1, %2, %3, %4, %5)
}
)");
}

}  // namespace
}  // namespace seam::ir
