// seam::compile's replay: runs a captured step's program on the current values of its
// sources without calling the step function, after checking the guards that keep the
// result identical to a traced call.
#ifndef SEAM_LAZY_STEP_REPLAY_H_
#define SEAM_LAZY_STEP_REPLAY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/lazy/lazy_tensor.h"
#include "src/lazy/step_capture.h"

namespace seam::lazy {

// Checks the guards for `plan` with `inputs` (shapes, no pending operations, every state
// handle alive and unchanged, nothing donated, each planned donation still safe under the
// rules of src/lazy/donation.h, not eager, not per-replica). When one fails, sets
// *why_not, runs nothing and returns an empty vector. Otherwise runs the program as one
// step barrier with a cached program (MarkStep, CachedCompile, ExecuteTime; the aliases
// add to InputOutputAliasCount), marks donated values, points every destination handle at
// its new value, updates *results, and returns one new leaf per result.
absl::StatusOr<std::vector<NodePtr>> ReplayStep(
    const Capture& plan, const std::vector<std::shared_ptr<TensorImpl>>& inputs,
    StepResults& results, std::string* why_not);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_STEP_REPLAY_H_
