// Which of a program's parameters the CPU plugin takes, and which results it leaves, in a
// convolution's oneDNN layout instead of dense row-major (docs/cpu-plugin.md "On-device
// layouts"), decided once at compile time.
#ifndef SEAM_PLUGINS_CPU_LAYOUT_PLAN_H_
#define SEAM_PLUGINS_CPU_LAYOUT_PLAN_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "src/ir/program.h"
#include "src/plugins/cpu/compile/buffer_assignment.h"
#include "src/plugins/cpu/compile/fusion.h"
#include "src/plugins/cpu/kernels/kernels_window.h"

namespace seam::cpu {

// The layouts setting (option `layouts`, SEAM_CPU_LAYOUTS; cpu_settings.h): unset, empty or
// "auto" lets programs keep convolution operands in oneDNN's layouts; "dense" keeps every
// parameter and result dense (comparisons). PJRT_Client_Create refuses other values,
// naming the option or variable and the value; CheckLayoutVariable checks the environment's
// settings as it does.
inline constexpr char kLayoutVariable[] = "SEAM_CPU_LAYOUTS";
absl::Status CheckLayoutVariable();

struct LayoutPlan {
  // Per parameter index and per result position: the layout, null for dense.
  std::vector<std::shared_ptr<const DeviceLayout>> parameters, results;
};

// A parameter is taken in oneDNN's layout where every use of it is as the lhs (or every
// use as the rhs) of convolutions whose plans read it in that one layout, and it is not
// donated; the rhs only where no per-feature operations are folded into the weights. A
// result is left in oneDNN's layout where it is a convolution's value (or its epilogue's
// output) that nothing else reads, returned once, in a block of its own. The plans of
// those convolutions are told (ConvolutionPlan::UseLayouts). `convs[s]`: the plan of step
// s when it is a convolution, else null.
LayoutPlan PlanLayouts(const ir::Program& program, const FusionPlan& fusion,
                       const BufferPlan& buffers,
                       const std::vector<std::shared_ptr<ConvolutionPlan>>& convs);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_LAYOUT_PLAN_H_
