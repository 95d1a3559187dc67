#include "src/plugins/cpu/compile/fusion_plan.h"

namespace seam::cpu {

const std::vector<int>& InstructionReads(const ir::Program& program, const FusionPlan& plan,
                                         int i) {
  if (!plan.update_of.empty() && plan.update_of[i] >= 0) {
    return plan.updates[plan.update_of[i]].reads;
  }
  if (!plan.transposed_product.empty() && plan.transposed_product[i] >= 0) {
    return program.instructions[plan.transposed_product[i]].operands;
  }
  return program.instructions[i].operands;
}

const std::vector<int>& StepReads(const ir::Program& program, const FusionPlan& plan,
                                  const Step& step) {
  if (step.group >= 0) return plan.groups[step.group].inputs;
  return InstructionReads(program, plan, step.instruction);
}

std::vector<int> StepWrites(const FusionPlan& plan, const Step& step) {
  if (step.group < 0) return {step.instruction};
  std::vector<int> writes = plan.groups[step.group].outputs;
  const std::vector<int>& reduces = plan.groups[step.group].reduces;
  writes.insert(writes.end(), reduces.begin(), reduces.end());
  return writes;
}

}  // namespace seam::cpu
