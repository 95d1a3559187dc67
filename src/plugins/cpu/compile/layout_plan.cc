#include "src/plugins/cpu/compile/layout_plan.h"

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/runtime/device_layout.h"

namespace seam::cpu {
namespace {

// One use of a parameter as a convolution's operand: the step and the operand (0 lhs, 1
// rhs).
struct ConvUse {
  int step;
  int operand;
};

// The epilogue computed inside convolution step s, or null.
const ConvEpilogue* EpilogueOf(const FusionPlan& fusion, size_t s) {
  if (s + 1 >= fusion.steps.size() || !fusion.steps[s + 1].epilogue) return nullptr;
  return &fusion.epilogues[fusion.steps[s + 1].group];
}

}  // namespace

absl::Status CheckLayoutVariable() { return CpuSettingsFromEnvironment().status(); }

LayoutPlan PlanLayouts(const ir::Program& program, const FusionPlan& fusion,
                       const BufferPlan& buffers,
                       const std::vector<std::shared_ptr<ConvolutionPlan>>& convs) {
  LayoutPlan plan;
  plan.parameters.resize(static_cast<size_t>(program.num_parameters()));
  plan.results.resize(program.results.size());
  if (ActiveDenseLayouts()) return plan;
  const size_t n = program.instructions.size();
  std::vector<int> uses(n, 0), returned(n, 0);
  for (const ir::Instruction& inst : program.instructions) {
    for (int o : inst.operands) ++uses[o];
  }
  for (int r : program.results) ++returned[r];
  std::vector<std::vector<ConvUse>> conv_uses(n);
  std::vector<bool> lhs_given(convs.size(), false), rhs_given(convs.size(), false),
      out_kept(convs.size(), false);
  for (size_t s = 0; s < convs.size(); ++s) {
    if (convs[s] == nullptr) continue;
    const ir::Instruction& conv = program.instructions[fusion.steps[s].instruction];
    const ConvEpilogue* e = EpilogueOf(fusion, s);
    conv_uses[conv.operands[0]].push_back({static_cast<int>(s), 0});
    if (e == nullptr || e->channel.empty()) {
      conv_uses[conv.operands[1]].push_back({static_cast<int>(s), 1});
    }
    // The value the convolution's call writes: a result of its own, read by nothing else.
    const int written = e != nullptr ? e->output : fusion.steps[s].instruction;
    const ValueHome& home = buffers.homes[written];
    const bool alone = uses[written] == 0 && returned[written] == 1 &&
                       home.kind == ValueHome::kResult &&
                       buffers.outputs[home.index].how == OutputPlan::kOwn &&
                       buffers.outputs[home.index].copy_into_parameter < 0;
    // (A first layer writes the operand's layout only to spare a reorder out.)
    if (alone && (convs[s]->out_layout() != nullptr || convs[s]->PreferResultInOneDnnLayout())) {
      plan.results[home.index] = convs[s]->out_layout();
      out_kept[s] = true;
    }
  }
  std::vector<bool> donated(plan.parameters.size(), false);
  for (const ir::Alias& alias : program.aliases) {
    donated[static_cast<size_t>(alias.parameter_index)] = true;
  }
  for (size_t v = 0; v < n; ++v) {
    const ir::Instruction& inst = program.instructions[v];
    if (inst.op != ir::Op::kParameter || conv_uses[v].empty() || returned[v] != 0 ||
        donated[static_cast<size_t>(inst.parameter_index)] ||
        buffers.homes[v].kind != ValueHome::kParameter ||
        conv_uses[v].size() != static_cast<size_t>(uses[v])) {
      continue;
    }
    auto layout_of = [&](const ConvUse& use) -> const std::shared_ptr<const DeviceLayout>& {
      return use.operand == 0 ? convs[use.step]->lhs_layout() : convs[use.step]->rhs_layout();
    };
    const std::shared_ptr<const DeviceLayout>& want = layout_of(conv_uses[v][0]);
    bool same = want != nullptr;
    for (const ConvUse& use : conv_uses[v]) {
      same = same && use.operand == conv_uses[v][0].operand &&
             SameLayout(layout_of(use).get(), want.get());
    }
    if (!same) continue;
    plan.parameters[static_cast<size_t>(inst.parameter_index)] = want;
    for (const ConvUse& use : conv_uses[v]) {
      (use.operand == 0 ? lhs_given : rhs_given)[static_cast<size_t>(use.step)] = true;
    }
  }
  for (size_t s = 0; s < convs.size(); ++s) {
    if (convs[s] != nullptr) convs[s]->UseLayouts(lhs_given[s], rhs_given[s], out_kept[s]);
  }
  return plan;
}

}  // namespace seam::cpu
