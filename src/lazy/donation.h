// Buffer donation at the step barrier: which device buffers a sync may hand to its program
// as input/output aliases (`alias output i = parameter j`, docs/ir.md), and the errors for
// values whose buffer is gone.
#ifndef SEAM_LAZY_DONATION_H_
#define SEAM_LAZY_DONATION_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "src/ir/program.h"
#include "src/lazy/graph_key.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// The aliases a sync may add to `lowered`: pending[k], whose new value is result
// result_of[k], donates the leaf it replaced by `assign` when
//   - the leaf's value is parameter j of the program, has result i's shape, is not donated
//     yet, and result i and parameter j are not aliased already; it is on the device, or
//     on the host only (the step sends it first: the buffer it gets is the step's alone);
//   - its device handle has no other owner, and (unless the user marked it with
//     set_buffer_donor) the value is held by that leaf alone and the leaf only by this
//     program's edges: no other tensor, copy of the tensor or graph outside this sync can
//     read it afterwards. Use counts are checked, nothing is assumed.
// Host reads never call this (they never donate).
std::vector<ir::Alias> PlanDonations(const GraphWalk& walk, const std::vector<NodePtr>& roots,
                                     const std::vector<std::shared_ptr<TensorImpl>>& pending,
                                     const std::vector<size_t>& result_of);

// FailedPrecondition naming `op` and the value's shape when its buffer was donated.
absl::Status CheckNotDonated(const DeviceValue& value, std::string_view op);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_DONATION_H_
