// The independent case set (docs/stablehlo.md): for each hand-written StableHLO module
// tests/stablehlo/<case>.mlir, written from the StableHLO specification, an independently
// written seam-IR twin <case>.seam (docs/ir.md). The reader's program and the twin run
// through the reference evaluator on the same fixed arguments and must give the same
// bytes. The cases are chosen so that a swapped contracting dimension, an inverted
// permutation or a slice limit read as a size changes the values.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/ir/bf16.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/stablehlo/read.h"
#include "tests/unit/executable_harness.h"

namespace seam::stablehlo {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Fixed arguments: distinct values within 17 elements (floats in [-2, 2] by quarters,
// integers in [-3, 7], both truth values), different for each parameter and replica.
ir::Literal Argument(const ir::Shape& shape, int64_t parameter, int64_t replica) {
  ir::Literal lit;
  lit.shape = shape;
  lit.bytes.resize(shape.byte_size());
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = i * 7 + parameter * 3 + replica * 5;
    const double real = static_cast<double>(k % 17 - 8) / 4.0;
    const int64_t integer = (i * 5 + parameter + replica * 2) % 11 - 3;
    uint8_t* out = lit.bytes.data() + i * ir::DTypeSize(shape.dtype);
    switch (shape.dtype) {
      case ir::DType::kF32: {
        auto f = static_cast<float>(real);
        std::memcpy(out, &f, 4);
        break;
      }
      case ir::DType::kF64:
        std::memcpy(out, &real, 8);
        break;
      case ir::DType::kBF16: {
        uint16_t b = ir::FloatToBF16(static_cast<float>(real));
        std::memcpy(out, &b, 2);
        break;
      }
      case ir::DType::kS32: {
        auto v = static_cast<int32_t>(integer);
        std::memcpy(out, &v, 4);
        break;
      }
      case ir::DType::kS64:
        std::memcpy(out, &integer, 8);
        break;
      case ir::DType::kPred:
        *out = static_cast<uint8_t>(k % 2);
        break;
    }
  }
  return lit;
}

class ReadCaseTest : public testing::TestWithParam<const char*> {};

TEST_P(ReadCaseTest, GivesTheTwinsResultsOnTheReferenceEvaluator) {
  const std::string base = std::string(SEAM_STABLEHLO_CASES) + "/" + GetParam();
  const std::string mlir = ReadText(base + ".mlir");
  const std::string seam = ReadText(base + ".seam");
  ASSERT_FALSE(mlir.empty()) << base << ".mlir";
  ASSERT_FALSE(seam.empty()) << base << ".seam";
  absl::StatusOr<ir::Program> read = ReadStableHlo(mlir);
  ASSERT_TRUE(read.ok()) << read.status();
  absl::StatusOr<ir::Program> twin = ir::ParseProgram(seam);
  ASSERT_TRUE(twin.ok()) << twin.status();
  ASSERT_EQ(read->replica_count, twin->replica_count);
  ASSERT_EQ(read->ParameterShapes(), twin->ParameterShapes());
  ASSERT_EQ(read->ResultShapes(), twin->ResultShapes());
  std::vector<std::vector<ir::Literal>> args(read->replica_count);
  const std::vector<ir::Shape> shapes = read->ParameterShapes();
  for (int64_t r = 0; r < read->replica_count; ++r) {
    for (size_t p = 0; p < shapes.size(); ++p) {
      args[r].push_back(Argument(shapes[p], static_cast<int64_t>(p), r));
    }
  }
  auto got = ir::EvaluateReplicated(*read, args);
  ASSERT_TRUE(got.ok()) << got.status();
  auto want = ir::EvaluateReplicated(*twin, args);
  ASSERT_TRUE(want.ok()) << want.status();
  for (int64_t r = 0; r < read->replica_count; ++r) {
    for (size_t k = 0; k < (*want)[r].size(); ++k) {
      EXPECT_EQ((*got)[r][k].shape, (*want)[r][k].shape) << "replica " << r << " result " << k;
      EXPECT_EQ((*got)[r][k].bytes, (*want)[r][k].bytes) << "replica " << r << " result " << k;
    }
  }
}

// The same on the CPU plugin's compiler and kernels (one replica): the reader's program and
// the twin compile through Executable::Compile and give the same bytes.
TEST_P(ReadCaseTest, GivesTheTwinsResultsOnTheCpuPlugin) {
  const std::string base = std::string(SEAM_STABLEHLO_CASES) + "/" + GetParam();
  absl::StatusOr<ir::Program> read = ReadStableHlo(ReadText(base + ".mlir"));
  ASSERT_TRUE(read.ok()) << read.status();
  if (read->replica_count != 1) GTEST_SKIP() << "replicas=" << read->replica_count;
  absl::StatusOr<std::shared_ptr<const cpu::Executable>> got = cpu::Executable::Compile(*read);
  ASSERT_TRUE(got.ok()) << got.status();
  std::shared_ptr<const cpu::Executable> want =
      cpu::harness::CompileOrDie(ReadText(base + ".seam"), true);
  ASSERT_NE(want, nullptr);
  std::vector<ir::Literal> args;
  const std::vector<ir::Shape> shapes = read->ParameterShapes();
  for (size_t p = 0; p < shapes.size(); ++p) {
    args.push_back(Argument(shapes[p], static_cast<int64_t>(p), 0));
  }
  EXPECT_EQ(cpu::harness::RunBytes(**got, args), cpu::harness::RunBytes(*want, args));
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, ReadCaseTest,
                         testing::Values("elementwise", "integer_logical", "compare_select",
                                         "data_movement", "reduce", "argmax", "cumsum",
                                         "dot_general", "convolution", "reduce_window",
                                         "select_and_scatter", "gather", "scatter", "argsort",
                                         "rng", "all_reduce", "iota_constants", "dtypes"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace seam::stablehlo
