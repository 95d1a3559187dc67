// A compiled program of the CPU plugin: the verified IR plus a plan for running it.
#ifndef SEAM_PLUGINS_CPU_EXECUTABLE_H_
#define SEAM_PLUGINS_CPU_EXECUTABLE_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/program.h"
#include "src/plugins/cpu/buffer.h"
#include "src/plugins/cpu/collectives.h"

namespace seam::cpu {

class Executable {
 public:
  // Parses and verifies IR text ("seam-ir" format).
  static absl::StatusOr<std::shared_ptr<const Executable>> Compile(std::string_view ir_text);

  const ir::Program& program() const { return program_; }
  const std::vector<ir::Shape>& parameter_shapes() const { return parameter_shapes_; }
  const std::vector<ir::Shape>& result_shapes() const { return result_shapes_; }
  // last_use()[i]: the instruction after which value i is released; the instruction count
  // for results; -1 for values nothing reads.
  const std::vector<int>& last_use() const { return last_use_; }

  // Runs the program on the calling thread. `inputs[i]` holds parameter i (shapes were
  // checked by the caller). Returns one memory block per result: a new one, or for an
  // output with an input/output alias the donated parameter's block (the value is copied
  // into it at the end of the run), so the caller must not read a donated input elsewhere.
  // `replica` is this run's replica id; its all_reduce instructions meet the other
  // replicas of their group through `rendezvous` (null: a lone replica, where every
  // all_reduce is a copy). Fails only when the rendezvous is aborted.
  absl::StatusOr<std::vector<std::shared_ptr<DeviceMemory>>> Run(
      const std::vector<std::shared_ptr<DeviceMemory>>& inputs, int64_t replica = 0,
      Rendezvous* rendezvous = nullptr) const;

 private:
  explicit Executable(ir::Program program);
  // Computes one non-parameter instruction from its operands' memory into `out`.
  void RunInstruction(const ir::Instruction& inst, const std::vector<const uint8_t*>& in,
                      uint8_t* out) const;

  ir::Program program_;
  std::vector<ir::Shape> parameter_shapes_;
  std::vector<ir::Shape> result_shapes_;
  // last_use_[i]: the last instruction that reads value i, or -1; values that are results
  // are kept to the end. Intermediates are released after their last use.
  std::vector<int> last_use_;
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_EXECUTABLE_H_
