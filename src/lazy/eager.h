// Eager mode: every operation runs as soon as it is recorded (a barrier after every op),
// through an op-level compile cache.
#ifndef SEAM_LAZY_EAGER_H_
#define SEAM_LAZY_EAGER_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "src/lazy/lazy_tensor.h"
#include "src/lazy/runtime.h"

namespace seam::lazy {

// Whether eager mode is on in the current runtime (Runtime::eager): seam::set_eager's last
// value, else SEAM_EAGER read at first use.
absl::StatusOr<bool> EagerEnabled();
void SetEager(bool enabled);
// True when eager mode is known to be off (set off, or SEAM_EAGER read and off): the check
// every recorded op makes, without building a status.
inline bool EagerKnownOff() { return CurrentRuntime().eager_known_off(); }

// Runs `node` now, as a program of that one op over its operands (which eager mode has
// already computed; constants are compiled in), and sets node->value to the result. The
// program is found in the compile cache under the op key: the op, its attributes, its
// result and operand shapes and dtypes, which operands are the same value, and constant
// operands' bytes (built without lowering, so a hit costs no program construction; a key
// too long for its fixed buffer, e.g. a concatenate of dozens of operands, is replaced by
// the lowered program's hash, confirmed by comparing programs). A compile is one
// EagerOpCompileTime sample (and, as every compile, one CompileTime sample); a run is
// one EagerOpExecuteTime sample. CachedCompile / UncachedCompile count the lookups.
absl::Status ExecuteEagerly(Node& node);

// At a step barrier in eager mode: each tensor whose node is a computed op becomes a
// plain leaf of the same value, so the recorded history (kept for autodiff) does not
// grow across steps.
void CutEagerHistory(const std::vector<std::shared_ptr<TensorImpl>>& tensors);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_EAGER_H_
