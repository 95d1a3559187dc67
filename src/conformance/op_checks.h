// The op-by-dtype numeric checks: every op of ops.def on every dtype it accepts, on seeded
// random cases (op_cases.h), run by a plugin through its C table (plugin_runner.h) and
// compared with the reference evaluator: exactly for integers and pred, within a relative
// bound per dtype for floats (wider for transcendental ops, scaled by the number of terms
// for sums). `seam plugin check --ops` runs them as seam-extras rows (skipped for a plugin
// that does not announce seam_ir_version); the ctest test ops_reference_test runs them for
// the CPU plugin, in-process and by path.
//
// Each returns OK, the plugin's UNIMPLEMENTED status as it is (the plugin cannot run
// programs), or an error describing the first wrong result with the program's text.
#ifndef SEAM_CONFORMANCE_OP_CHECKS_H_
#define SEAM_CONFORMANCE_OP_CHECKS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "src/conformance/plugin_runner.h"
#include "src/ir/program.h"

namespace seam::conformance {

// The default seed of the random cases, or SEAM_CONFORMANCE_SEED when set (to explore).
uint64_t DefaultOpSeed();

// Every op but parameter.
std::vector<ir::Op> EveryOp();

// `op` on every dtype its row of ops.def accepts: each case verifies, the reference
// evaluates it, the plugin runs it, and the results agree; at least one case ran.
absl::Status CheckOpMatchesReference(PluginRunner& runner, ir::Op op, uint64_t seed);

// The same programs with a dtype outside an op's row are refused at compile time with
// INVALID_ARGUMENT naming the element type (more than 20 such pairs exist).
absl::Status CheckUnacceptedDTypesAreRefused(PluginRunner& runner, uint64_t seed);

// Several ops in one program (a numerically careful softmax, a mask and a cast), so that
// values flow between kernels and intermediates are released on the way.
absl::Status CheckChainedOps(PluginRunner& runner);

// A value of each dtype (scalars and 0-sized shapes included) goes down and back
// unchanged, and its buffer reports the right element type.
absl::Status CheckBuffersOfEveryDTypeRoundTrip(PluginRunner& runner);

// A two-replica program on the runner's one device is refused when run, naming both
// counts.
absl::Status CheckAllReduceNeedsAsManyDevices(PluginRunner& runner);

// Every reduction row of ops.def (reduce_*, reduce_window_*, all_reduce_*) on every dtype of
// its row folds {3, -2, 5, 1}, whose sum, product, maximum and minimum all differ, to the
// value of its own combiner: in the reference evaluator, and in the plugin when `runner` is
// not null (all_reduce_* in the reference only: the runner has one device).
absl::Status CheckReductionsFoldWithTheirCombiner(PluginRunner* runner);

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_OP_CHECKS_H_
