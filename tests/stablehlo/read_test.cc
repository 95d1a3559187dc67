// The StableHLO reader's errors (every one INVALID_ARGUMENT with "line L, column C:"), its
// constants (hex bit patterns survive: NaN payloads, -0, inf, denormals), its pretty forms,
// module attributes, and hostile input (sizes checked before allocating; no crash on any
// prefix or byte flip of a valid module).
#include "src/stablehlo/read.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "src/ir/text.h"

namespace seam::stablehlo {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A module around `body` (ops of @main over %arg0: tensor<4xf32>, returning one value).
std::string Module(const std::string& body, const std::string& result = "tensor<4xf32>") {
  return "module @m {\n"
         "  func.func public @main(%arg0: tensor<4xf32>) -> " +
         result + " {\n" + body + "  }\n}\n";
}

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<ir::Program> program = ReadStableHlo(text);
  if (program.ok()) return "OK";
  EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument) << program.status();
  return std::string(program.status().message());
}

TEST(StableHloReadErrorTest, UnknownOpNamesItWithLineAndColumn) {
  EXPECT_EQ(ErrorOf(Module("    %0 = \"stablehlo.frobnicate\"(%arg0) : (tensor<4xf32>) -> "
                           "tensor<4xf32>\n    return %0 : tensor<4xf32>\n")),
            "line 3, column 10: unknown op 'stablehlo.frobnicate'");
  EXPECT_EQ(ErrorOf(Module("    %0 = stablehlo.frobnicate %arg0 : tensor<4xf32>\n"
                           "    return %0 : tensor<4xf32>\n")),
            "line 3, column 10: unknown op 'stablehlo.frobnicate'");
  EXPECT_EQ(ErrorOf(Module("    %0 = \"stablehlo.custom_call\"(%arg0) : (tensor<4xf32>) -> "
                           "tensor<4xf32>\n    return %0 : tensor<4xf32>\n")),
            "line 3, column 10: unknown op 'stablehlo.custom_call'");
}

TEST(StableHloReadErrorTest, UnknownAttributeAndType) {
  EXPECT_EQ(ErrorOf(Module("    %0 = \"stablehlo.add\"(%arg0, %arg0) {fast = 1 : i64} : "
                           "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
                           "    return %0 : tensor<4xf32>\n")),
            "line 3, column 41: unknown attribute 'fast' of 'stablehlo.add'");
  EXPECT_EQ(ErrorOf(Module("    %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf16>\n"
                           "    return %0 : tensor<4xf32>\n")),
            "line 3, column 55: unsupported element type 'f16' in 'tensor<4xf16>' (seam reads "
            "f32, f64, bf16, i1, i32, i64)");
  EXPECT_THAT(ErrorOf(Module("    %0 = stablehlo.abs %arg0 : !stablehlo.token\n"
                             "    return %0 : tensor<4xf32>\n")),
              StartsWith("line 3, column 32: "));
  EXPECT_THAT(ErrorOf("module {\n  func.func @main(%arg0: tensor<?xf32>) -> tensor<4xf32> {\n"),
              StartsWith("line 2, column 26: unsupported type 'tensor<?xf32>'"));
  EXPECT_EQ(ErrorOf("module @m attributes {mhlo.sharding = \"x\"} {\n}\n"),
            "line 2, column 1: expected 'func.func @main', found '}'");
}

TEST(StableHloReadErrorTest, WrongTypeOfAnOperand) {
  EXPECT_EQ(ErrorOf(Module("    %0 = stablehlo.add %arg0, %arg0 : tensor<3xf32>\n"
                           "    return %0 : tensor<4xf32>\n")),
            "line 3, column 24: value '%arg0' has type 'tensor<4xf32>', the op's type says "
            "'tensor<3xf32>'");
  // A result type the op cannot have is the verifier's error, at the op's line.
  EXPECT_THAT(ErrorOf(Module("    %0 = \"stablehlo.add\"(%arg0, %arg0) : (tensor<4xf32>, "
                             "tensor<4xf32>) -> tensor<4xi32>\n    return %0 : tensor<4xi32>\n",
                             "tensor<4xi32>")),
              StartsWith("line 3, column 5: %1 (add): "));
}

TEST(StableHloReadErrorTest, UnbalancedRegion) {
  EXPECT_EQ(ErrorOf("module @m {\n  func.func public @main(%arg0: tensor<4xf32>) -> "
                    "tensor<4xf32> {\n    return %arg0 : tensor<4xf32>\n  }\n"),
            "line 5, column 1: unbalanced region: the module opened at line 1, column 11 has no "
            "'}' (end of input)");
  EXPECT_EQ(ErrorOf("func.func @main(%arg0: tensor<4xf32>) -> tensor<f32> {\n"
                    "  %c = stablehlo.constant dense<0.0> : tensor<f32>\n"
                    "  %0 = \"stablehlo.reduce\"(%arg0, %c) ({\n"
                    "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                    "    %s = stablehlo.add %a, %b : tensor<f32>\n"
                    "    stablehlo.return %s : tensor<f32>\n"),
            "line 7, column 1: unbalanced region: the region opened at line 3, column 39 has "
            "no '}' (end of input)");
  EXPECT_THAT(ErrorOf("module @m {\n  func.func public @main() -> tensor<f32> {\n"
                      "    %0 = stablehlo.constant dense<[[1.0]> : tensor<f32>\n"),
              StartsWith("line 3, column"));
}

TEST(StableHloReadErrorTest, UndefinedValue) {
  EXPECT_EQ(ErrorOf(Module("    %0 = stablehlo.add %arg0, %9 : tensor<4xf32>\n"
                           "    return %0 : tensor<4xf32>\n")),
            "line 3, column 31: use of undefined value '%9'");
  EXPECT_EQ(ErrorOf(Module("    return %x : tensor<4xf32>\n")),
            "line 3, column 12: use of undefined value '%x'");
}

TEST(StableHloReadErrorTest, AValueDefinedTwiceIsRefused) {
  EXPECT_EQ(ErrorOf(Module("    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n"
                           "    %0 = stablehlo.negate %arg0 : tensor<4xf32>\n"
                           "    return %0 : tensor<4xf32>\n")),
            "line 4, column 5: value '%0' is defined twice");
  // A multi-result op over a name a one-result op already holds: %1 is %1#0.
  const std::string text =
      "module @m {\n"
      "  func.func public @main(%arg0: tensor<3xi64>) -> tensor<2xi32> {\n"
      "    %0 = \"stablehlo.bitcast_convert\"(%arg0) : (tensor<3xi64>) -> tensor<3xui64>\n"
      "    %1 = stablehlo.add %arg0, %arg0 : tensor<3xi64>\n"
      "    %1:2 = \"stablehlo.rng_bit_generator\"(%0) {rng_algorithm = "
      "#stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, "
      "tensor<2xi32>)\n"
      "    return %1#1 : tensor<2xi32>\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(ErrorOf(text), "line 5, column 5: value '%1#0' is defined twice");
}

TEST(StableHloReadTest, ConstantsNothingReadsAreLeftOut) {
  // The reduce folds its init in, so its constant is left unread, and so is %3; the
  // constant %2 is a result and stays.
  const char* text = R"(module @m {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<f32>) {
    %0 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.constant dense<0x3F800000> : tensor<f32>
    %3 = stablehlo.constant dense<0x40000000> : tensor<f32>
    return %1, %2 : tensor<2xf32>, tensor<f32>
  }
}
)";
  absl::StatusOr<ir::Program> program = ReadStableHlo(text);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<ir::Program> expected = ir::ParseProgram(
      "program @m replicas=1 {\n"
      "  %0 = parameter(0) : f32[2,3]\n"
      "  %1 = reduce_sum(%0), axes={1} : f32[2]\n"
      "  %2 = constant(1) : f32[]\n"
      "  return (%1, %2)\n"
      "}\n");
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_EQ(ir::PrintProgram(*program), ir::PrintProgram(*expected));
}

TEST(StableHloReadErrorTest, BytecodeHasItsOwnMessage) {
  const std::string bytecode("ML\xEFR\x00\x01StableHLO_v1.0.0", 22);
  EXPECT_EQ(ErrorOf(bytecode),
            "line 1, column 1: the program is MLIR bytecode (magic 'ML\\xEFR'); this plugin reads "
            "StableHLO text only: serialize the module as text");
  EXPECT_EQ(std::string(kHloFormatMessage),
            "program format 'hlo' (HloModuleProto) is not supported by this plugin; supported: "
            "mlir (StableHLO text), seam-ir");
}

TEST(StableHloReadErrorTest, BodiesTheReaderDoesNotKnow) {
  EXPECT_EQ(ErrorOf(Module("    %c = stablehlo.constant dense<0.0> : tensor<f32>\n"
                           "    %0 = \"stablehlo.reduce\"(%arg0, %c) ({\n"
                           "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                           "      %s = stablehlo.subtract %a, %b : tensor<f32>\n"
                           "      stablehlo.return %s : tensor<f32>\n"
                           "    }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> "
                           "tensor<f32>\n    return %0 : tensor<f32>\n",
                           "tensor<f32>")),
            "line 4, column 41: unrecognised reduce body (the reader takes one add, multiply, "
            "maximum or minimum of the two arguments)");
}

TEST(StableHloReadErrorTest, ModuleAttributesAndFunctions) {
  EXPECT_EQ(ErrorOf("module @m attributes {mhlo.num_partitions = 2 : i32} {\n"
                    "  func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
                    "    return %arg0 : tensor<f32>\n  }\n}\n"),
            "line 1, column 23: mhlo.num_partitions must be 1 (seam runs one partition)");
  EXPECT_EQ(ErrorOf("module @m attributes {mhlo.spmd = 2 : i32} {\n"
                    "  func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
                    "    return %arg0 : tensor<f32>\n  }\n}\n"),
            "line 1, column 23: unknown module attribute 'mhlo.spmd'");
  EXPECT_EQ(ErrorOf("module @m {\n  func.func private @helper(%arg0: tensor<f32>) -> "
                    "tensor<f32> {\n    return %arg0 : tensor<f32>\n  }\n}\n"),
            "line 2, column 21: function '@helper': the reader takes one function, @main");
}

TEST(StableHloReadErrorTest, HostileSizesAreRefusedBeforeAllocating) {
  EXPECT_THAT(ErrorOf("func.func @main(%arg0: tensor<99999999999999999999xf32>) -> "
                      "tensor<f32> {\n"),
              StartsWith("line 1, column 24: unsupported type"));
  EXPECT_THAT(ErrorOf("func.func @main(%arg0: tensor<4611686018427387904x4611686018427387904xf32>)"
                      " -> tensor<f32> {\n  return %arg0 : tensor<f32>\n}\n"),
              StartsWith("line 1, column 24: 'tensor<4611686018427387904x"));
  EXPECT_THAT(ErrorOf("func.func @main() -> tensor<100000000000xf32> {\n"
                      "  %0 = stablehlo.constant dense<1.0> : tensor<100000000000xf32>\n"
                      "  return %0 : tensor<100000000000xf32>\n}\n"),
              HasSubstr("larger than the reader's limit"));
  EXPECT_THAT(ErrorOf(Module("    %0:100000 = stablehlo.abs %arg0 : tensor<4xf32>\n")),
              HasSubstr("result count 100000 must be between 1 and 64"));
  EXPECT_THAT(ErrorOf("module attributes {mhlo.num_replicas = 2 : i32} {\n"
                      "  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
                      "    %0 = \"stablehlo.all_reduce\"(%arg0) ({\n"
                      "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                      "      %s = stablehlo.add %a, %b : tensor<f32>\n"
                      "      stablehlo.return %s : tensor<f32>\n"
                      "    }) {replica_groups = dense<[[0, 1]]> : "
                      "tensor<4611686018427387904x4611686018427387904xi64>} : (tensor<4xf32>) -> "
                      "tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n"),
              HasSubstr("line 7, column 9: replica_groups has 2 values, which type"));
  EXPECT_THAT(ErrorOf("module attributes {mhlo.num_replicas = 100000000000 : i32} {\n"
                      "  func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
                      "    return %arg0 : tensor<f32>\n  }\n}\n"),
              HasSubstr("mhlo.num_replicas must be an integer from 1 to 65536"));
}

// Deep nesting (regions in regions, lists in lists, angled attributes in angled attributes)
// is refused before it can exhaust the stack.
TEST(StableHloReadErrorTest, DeepNestingIsRefused) {
  std::string regions = "func.func @main() -> tensor<f32> {\n";
  for (int i = 0; i < 100000; ++i) regions += "\"stablehlo.x\"() ({ ";
  EXPECT_THAT(ErrorOf(regions), HasSubstr("regions nested deeper than 32"));
  std::string lists = "module attributes {a = ";
  for (int i = 0; i < 100000; ++i) lists += "[";
  EXPECT_THAT(ErrorOf(lists), HasSubstr("attribute values nested deeper than 32"));
  std::string angled = "module attributes {a = ";
  for (int i = 0; i < 1000; ++i) angled += "#stablehlo.x<a = ";
  for (int i = 0; i < 1000; ++i) angled += ">";
  angled += "} {\n}\n";
  EXPECT_THAT(ErrorOf(angled), HasSubstr("attribute values nested deeper than 32"));
}

// Hex constants are bit patterns of the element type; decimal ones are rounded to it.
TEST(StableHloReadTest, ConstantsKeepTheirBits) {
  absl::StatusOr<ir::Program> p = ReadStableHlo(
      "func.func @main() -> (tensor<5xf32>, tensor<2xf64>, tensor<2xbf16>, tensor<3xf32>) {\n"
      "  %0 = stablehlo.constant dense<[0x7FC00001, 0x80000000, 0x7F800000, 0x00000001, "
      "0xFFA00000]> : tensor<5xf32>\n"
      "  %1 = stablehlo.constant dense<[0x7FF8000000000123, 0x8000000000000000]> : "
      "tensor<2xf64>\n"
      "  %2 = stablehlo.constant dense<[0x7FC1, 0x0001]> : tensor<2xbf16>\n"
      "  %3 = stablehlo.constant dense<[1.5, -2.0e-03, 0.1]> : tensor<3xf32>\n"
      "  return %0, %1, %2, %3 : tensor<5xf32>, tensor<2xf64>, tensor<2xbf16>, tensor<3xf32>\n"
      "}\n");
  ASSERT_TRUE(p.ok()) << p.status();
  auto bits32 = [&](int inst, int k) {
    uint32_t b;
    std::memcpy(&b, p->instructions[inst].literal.bytes.data() + 4 * k, 4);
    return b;
  };
  EXPECT_EQ(bits32(0, 0), 0x7FC00001u);
  EXPECT_EQ(bits32(0, 1), 0x80000000u);
  EXPECT_EQ(bits32(0, 2), 0x7F800000u);
  EXPECT_EQ(bits32(0, 3), 0x00000001u);
  EXPECT_EQ(bits32(0, 4), 0xFFA00000u);  // a signaling NaN stays signaling
  uint64_t d[2];
  std::memcpy(d, p->instructions[1].literal.bytes.data(), 16);
  EXPECT_EQ(d[0], 0x7FF8000000000123u);
  EXPECT_EQ(d[1], 0x8000000000000000u);
  uint16_t h[2];
  std::memcpy(h, p->instructions[2].literal.bytes.data(), 4);
  EXPECT_EQ(h[0], 0x7FC1);
  EXPECT_EQ(h[1], 0x0001);
  float f[3];
  std::memcpy(f, p->instructions[3].literal.bytes.data(), 12);
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[1], -2.0e-3f);
  EXPECT_EQ(f[2], 0.1f);
  EXPECT_THAT(ErrorOf("func.func @main() -> tensor<f32> {\n"
                      "  %0 = stablehlo.constant dense<0x1FFFFFFFF> : tensor<f32>\n"
                      "  return %0 : tensor<f32>\n}\n"),
              "line 2, column 33: hex value '0x1FFFFFFFF' is not a 32-bit pattern");
}

// The pretty forms people write give the same program as the generic form.
TEST(StableHloReadTest, PrettyAndGenericFormsGiveTheSameProgram) {
  const char* pretty = R"(module @same attributes {mhlo.num_replicas = 1 : i32} {
  func.func @main(%arg0: tensor<2x3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<3x4xf32> {jax.buffer_donor = true}) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2x4xf32>, tensor<2x3xi1>) {
    %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.exponential %arg0 : tensor<2x3xf32>
    %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %3 = stablehlo.compare GE, %arg0, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2xf32>, tensor<2x4xf32>, tensor<2x3xi1>
  }
}
)";
  const char* generic = R"(module @same {
  func.func public @main(%arg0: tensor<2x3xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<3x4xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2x4xf32>, tensor<2x3xi1>) {
    %0 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %1 = "stablehlo.exponential"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "stablehlo.reduce"(%1, %0) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %5 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%5) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %3 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %4 = "stablehlo.compare"(%arg0, %1) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    "func.return"(%1, %2, %3, %4) : (tensor<2x3xf32>, tensor<2xf32>, tensor<2x4xf32>, tensor<2x3xi1>) -> ()
  }
}
)";
  absl::StatusOr<ir::Program> a = ReadStableHlo(pretty);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<ir::Program> b = ReadStableHlo(generic);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(ir::PrintProgram(*a), ir::PrintProgram(*b));
  EXPECT_EQ(a->name, "same");
  ASSERT_EQ(a->aliases.size(), 1u);
  EXPECT_EQ(a->aliases[0].output_index, 0);
  EXPECT_EQ(a->aliases[0].parameter_index, 0);
}

TEST(StableHloReadTest, OnlyTheIndexResultOfArgmaxAndSortIsRead) {
  const std::string text = R"(func.func @main(%arg0: tensor<4xf32>) -> tensor<f32> {
  %i = stablehlo.iota dim = 0 : tensor<4xi64>
  %x = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %0:2 = "stablehlo.reduce"(%arg0, %i, %x, %z) ({
  ^bb0(%a: tensor<f32>, %ai: tensor<i64>, %b: tensor<f32>, %bi: tensor<i64>):
    %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
    %k = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i64>
    stablehlo.return %v, %k : tensor<f32>, tensor<i64>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xi64>, tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<i64>)
  return %0#0 : tensor<f32>
}
)";
  // This body does not keep the first index on ties nor let NaN win: not seam's argmax.
  EXPECT_EQ(ErrorOf(text),
            "line 5, column 49: unrecognised body of a two-operand reduce (the reader takes the "
            "argmax/argmin body of docs/stablehlo.md)");
}

std::string ReadCase(const std::string& name) {
  std::ifstream file(std::string(SEAM_STABLEHLO_CASES) + "/" + name);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Every prefix of a valid module, and byte flips of it, give a result or an error with a
// line and column, never a crash (the fuzz target, tests/fuzz, goes further).
TEST(StableHloReadTest, NoCrashOnPrefixesAndByteFlips) {
  for (const char* name : {"argmax.mlir", "convolution.mlir", "scatter.mlir", "rng.mlir"}) {
    const std::string text = ReadCase(name);
    ASSERT_FALSE(text.empty()) << name;
    for (size_t n = 0; n < text.size(); n += 3) {
      absl::StatusOr<ir::Program> p = ReadStableHlo(text.substr(0, n));
      if (!p.ok()) {
        EXPECT_THAT(std::string(p.status().message()), StartsWith("line ")) << name << " " << n;
      }
    }
    std::mt19937 rng(7);
    for (int k = 0; k < 300; ++k) {
      std::string flipped = text;
      flipped[rng() % flipped.size()] = static_cast<char>(rng() % 128);
      absl::StatusOr<ir::Program> p = ReadStableHlo(flipped);
      if (!p.ok()) {
        EXPECT_THAT(std::string(p.status().message()), StartsWith("line ")) << name << " " << k;
      }
    }
  }
}

}  // namespace
}  // namespace seam::stablehlo
