#include "tests/unit/executable_harness.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <utility>

#include "src/ir/text.h"
#include "src/plugins/cpu/runtime/device_layout.h"

namespace seam::cpu::harness {

std::shared_ptr<const Executable> CompileOrDie(const std::string& text, bool fuse) {
  absl::StatusOr<std::shared_ptr<const Executable>> executable = Executable::Compile(text, fuse);
  EXPECT_TRUE(executable.ok()) << executable.status() << "\n" << text;
  return executable.ok() ? *executable : nullptr;
}

std::vector<std::shared_ptr<DeviceMemory>> ToDevice(const std::vector<ir::Literal>& args) {
  std::vector<std::shared_ptr<DeviceMemory>> memory;
  memory.reserve(args.size());
  for (const ir::Literal& arg : args) {
    memory.push_back(std::make_shared<DeviceMemory>(arg.bytes.size()));
    if (!arg.bytes.empty()) std::memcpy(memory.back()->data(), arg.bytes.data(), arg.bytes.size());
  }
  return memory;
}

std::vector<ir::Literal> RunProgram(const Executable& executable,
                                    const std::vector<ir::Literal>& args) {
  auto results = executable.Run(ToDevice(args));
  EXPECT_TRUE(results.ok()) << results.status();
  std::vector<ir::Literal> literals;
  if (!results.ok()) return literals;
  for (size_t k = 0; k < results->size(); ++k) {
    ir::Literal literal;
    literal.shape = executable.result_shapes()[k];
    literal.bytes.resize(literal.shape.byte_size());
    // A result may be in a convolution's oneDNN layout (device_layout.h): as to-host does.
    if (!literal.bytes.empty()) {
      const absl::Status copied = CopyToDense(*(*results)[k], literal.bytes.data());
      EXPECT_TRUE(copied.ok()) << copied;
    }
    literals.push_back(std::move(literal));
  }
  return literals;
}

std::vector<std::vector<uint8_t>> RunBytes(const Executable& executable,
                                           const std::vector<ir::Literal>& args) {
  std::vector<std::vector<uint8_t>> bytes;
  for (ir::Literal& literal : RunProgram(executable, args)) {
    bytes.push_back(std::move(literal.bytes));
  }
  return bytes;
}

ir::Literal RandomF32(const ir::Shape& shape, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (float& v : values) v = dist(engine);
  return ir::Literal::FromF32(values, shape.dims);
}

std::vector<ir::Literal> RandomF32Arguments(const std::string& text) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  std::vector<ir::Literal> args;
  if (!program.ok()) return args;
  unsigned seed = 1;
  for (const ir::Shape& shape : program->ParameterShapes()) {
    args.push_back(RandomF32(shape, seed++));
  }
  return args;
}

}  // namespace seam::cpu::harness
