#include "tests/unit/simplify_testing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

#include "absl/strings/str_cat.h"
#include "src/ir/bf16.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/compile/simplify_internal.h"
#include "src/plugins/cpu/runtime/buffer.h"

namespace seam::cpu::testing {
namespace {

double SpecialFloat(std::mt19937_64& rng) {
  static const double kSpecial[] = {0.0,
                                    -0.0,
                                    1.0,
                                    -1.0,
                                    0.5,
                                    2.0,
                                    std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN()};
  if (rng() % 3 == 0) return kSpecial[rng() % std::size(kSpecial)];
  return std::normal_distribution<double>(0.0, 3.0)(rng);
}

template <typename T>
T SpecialInt(std::mt19937_64& rng) {
  static const T kSpecial[] = {
      0, 1, -1, 2, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
  if (rng() % 3 == 0) return kSpecial[rng() % std::size(kSpecial)];
  return static_cast<T>(static_cast<int64_t>(rng() % 21) - 10);
}

ir::Literal RandomLiteral(const ir::Shape& shape, std::mt19937_64& rng) {
  ir::Literal literal;
  literal.shape = shape;
  literal.bytes.resize(shape.byte_size());
  const size_t size = ir::DTypeSize(shape.dtype);
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    uint8_t* at = literal.bytes.data() + i * size;
    auto put = [&](auto v) { std::memcpy(at, &v, sizeof(v)); };
    switch (shape.dtype) {
      case ir::DType::kF32:
        put(static_cast<float>(SpecialFloat(rng)));
        break;
      case ir::DType::kF64:
        put(SpecialFloat(rng));
        break;
      case ir::DType::kBF16:
        put(ir::FloatToBF16(static_cast<float>(SpecialFloat(rng))));
        break;
      case ir::DType::kS32:
        put(SpecialInt<int32_t>(rng));
        break;
      case ir::DType::kS64:
        put(SpecialInt<int64_t>(rng));
        break;
      case ir::DType::kPred:
        // A host buffer may hold any byte; 2 reads as true.
        put(static_cast<uint8_t>(rng() % 3));
        break;
    }
  }
  return literal;
}

}  // namespace

ir::Program Parse(const std::string& text) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status() << "\n" << text;
  return program.ok() ? *std::move(program) : ir::Program{};
}

std::vector<ir::Literal> RunWithKernels(const ir::Program& program,
                                        const std::vector<ir::Literal>& arguments) {
  std::vector<ir::Literal> values(program.instructions.size());
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const ir::Instruction& inst = program.instructions[i];
    if (inst.op == ir::Op::kParameter) {
      values[i] = arguments[inst.parameter_index];
      continue;
    }
    std::vector<const ir::Literal*> operands;
    for (int operand : inst.operands) operands.push_back(&values[operand]);
    values[i] = EvaluateWithKernels(inst, operands);
  }
  std::vector<ir::Literal> results;
  for (int r : program.results) results.push_back(values[r]);
  return results;
}

std::vector<ir::Literal> RunCompiled(const ir::Program& program,
                                     const std::vector<ir::Literal>& arguments) {
  absl::StatusOr<std::shared_ptr<const Executable>> executable =
      Executable::Compile(ir::PrintProgram(program));
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!executable.ok()) return {};
  std::vector<std::shared_ptr<DeviceMemory>> inputs;
  for (const ir::Literal& argument : arguments) {
    auto memory = std::make_shared<DeviceMemory>(argument.bytes.size());
    if (!argument.bytes.empty()) {
      std::memcpy(memory->data(), argument.bytes.data(), argument.bytes.size());
    }
    inputs.push_back(std::move(memory));
  }
  auto outputs = (*executable)->Run(inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok()) return {};
  std::vector<ir::Literal> results;
  std::vector<ir::Shape> shapes = program.ResultShapes();
  for (size_t k = 0; k < outputs->size(); ++k) {
    ir::Literal literal;
    literal.shape = shapes[k];
    const DeviceMemory& memory = *(*outputs)[k];
    literal.bytes.assign(memory.data(), memory.data() + memory.size());
    results.push_back(std::move(literal));
  }
  return results;
}

std::vector<ir::Literal> RandomArguments(const ir::Program& program, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ir::Literal> arguments;
  for (const ir::Shape& shape : program.ParameterShapes()) {
    arguments.push_back(RandomLiteral(shape, rng));
  }
  return arguments;
}

std::string CompareResults(const std::vector<ir::Literal>& want,
                           const std::vector<ir::Literal>& got) {
  if (want.size() != got.size()) {
    return absl::StrCat(got.size(), " results, expected ", want.size());
  }
  for (size_t k = 0; k < want.size(); ++k) {
    if (want[k].shape != got[k].shape) {
      return absl::StrCat("result ", k, " is ", got[k].shape.ToString(), ", expected ",
                          want[k].shape.ToString());
    }
    if (want[k].bytes == got[k].bytes) continue;
    const size_t size = ir::DTypeSize(want[k].shape.dtype);
    for (size_t i = 0; i < want[k].bytes.size(); i += size) {
      if (std::memcmp(want[k].bytes.data() + i, got[k].bytes.data() + i, size) != 0) {
        return absl::StrCat("result ", k, " (", want[k].shape.ToString(), ") differs at element ",
                            i / size);
      }
    }
  }
  return "";
}

void ExpectSameResults(const ir::Program& original, const ir::Program& simplified,
                       int argument_sets) {
  for (int seed = 1; seed <= argument_sets; ++seed) {
    std::vector<ir::Literal> arguments = RandomArguments(original, seed);
    std::vector<ir::Literal> want = RunWithKernels(original, arguments);
    EXPECT_EQ(CompareResults(want, RunWithKernels(simplified, arguments)), "")
        << "seed " << seed << "\noriginal:\n"
        << ir::PrintProgram(original) << "simplified:\n"
        << ir::PrintProgram(simplified);
    EXPECT_EQ(CompareResults(want, RunCompiled(original, arguments)), "")
        << "compiled, seed " << seed << "\n"
        << ir::PrintProgram(original);
  }
}

}  // namespace seam::cpu::testing
