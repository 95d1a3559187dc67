// Buffer donation at the step barrier: which device buffers a sync may hand to its program
// as input/output aliases (`alias output i = parameter j`, docs/ir.md), and the errors for
// values whose buffer is gone.
#ifndef SEAM_LAZY_DONATION_H_
#define SEAM_LAZY_DONATION_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "src/ir/program.h"
#include "src/lazy/graph_key.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// The donation rules: whether a step may give the buffer of `value`, one of its
// parameters, to its program (an output overwrites it), decided from use counts, nothing
// assumed. `value` is referenced by the step's parameter list and by `leaf` (the leaf node
// holding it, of which the caller keeps one reference: `leaf` itself) and must be:
//   - not donated yet, and on the device with no other owner of its device handle, or on
//     the host only (the step sends it first: the buffer it gets is the step's alone);
//   - unless the user marked it with set_buffer_donor: held by `leaf` and the parameter
//     list alone, and `leaf` by its `leaf_owners_in_step` owners that belong to the step
//     alone (the barrier: the program's operand edges that read the parameter; a replay:
//     the tensor handles its result is assigned to), so that no other tensor, copy of a
//     tensor or graph outside the step can read it afterwards. A null `leaf` is refused.
// The one rule for both callers: the barrier (PlanDonations below) and a compiled step's
// replay (src/lazy/step_replay.h), which checks a captured donation again before each run.
bool MayDonate(const std::shared_ptr<DeviceValue>& value, const NodePtr& leaf,
               int64_t leaf_owners_in_step);

// The aliases a sync may add to its program: pending[k], whose new value is result
// result_of[k], donates the leaf it replaced by `assign` when the leaf's value is parameter
// j of the program, has result i's shape, result i and parameter j are not aliased already,
// and MayDonate allows it (the leaf's owners in the step: the program's operand edges that
// read parameter j). Host reads never call this (they never donate).
std::vector<ir::Alias> PlanDonations(const GraphWalk& walk, const std::vector<NodePtr>& roots,
                                     const std::vector<std::shared_ptr<TensorImpl>>& pending,
                                     const std::vector<size_t>& result_of);

// FailedPrecondition naming `op` and the value's shape when its buffer was donated.
absl::Status CheckNotDonated(const DeviceValue& value, std::string_view op);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_DONATION_H_
