// The conformance cases' shapes, dimension numbers and indices for gather, scatter_add and
// scatter_replace (op_cases.cc draws the data operands): embedding lookups and their
// gradients, random dimension numbers, index vectors in either position, s32 and s64
// indices, out-of-range indices (clamped), duplicates and 0-sized dimensions.
#ifndef SEAM_CONFORMANCE_OP_CASES_GATHER_H_
#define SEAM_CONFORMANCE_OP_CASES_GATHER_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"

namespace seam::conformance {

struct IndexedCase {
  std::vector<int64_t> operand;  // dims of operand 0
  ir::Literal indices;           // operand 1, s32 or s64
  std::vector<int64_t> updates;  // dims of the updates (scatter only)
  ir::Attributes attrs;
};

// Case `i` (0: an embedding lookup or its gradient; 1: a 0-sized dimension; later: random
// dimension numbers); `seed` drives every choice.
IndexedCase MakeIndexedCase(ir::Op op, int i, uint64_t seed);

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_OP_CASES_GATHER_H_
