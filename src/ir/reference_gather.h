// The reference evaluator's gather and scatter (docs/ir.md "Gather and scatter"), written
// element by element from the definitions: which operand element each result element of a
// gather reads, and which operand element each updates element of a scatter lands on.
// The evaluator moves the values (any dtype) and combines scatter's duplicates.
#ifndef SEAM_IR_REFERENCE_GATHER_H_
#define SEAM_IR_REFERENCE_GATHER_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"

namespace seam::ir::reference {

// For each result element (row-major), the row-major operand element it copies.
std::vector<int64_t> GatherSources(const Instruction& inst, const Shape& operand,
                                   const Shape& indices_shape, const std::vector<int64_t>& indices);

// One update: updates element `update` (row-major) lands on operand element `target`; it
// belongs to index vector `batch` (row-major over the indices' batch dimensions).
struct ScatterStep {
  int64_t update = 0;
  int64_t target = 0;
  int64_t batch = 0;
};

// Every update, in the order they apply: by index vector (row-major), then row-major
// within the window. For scatter_replace the last one to reach an element wins.
std::vector<ScatterStep> ScatterTargets(const Instruction& inst, const Shape& operand,
                                        const Shape& indices_shape,
                                        const std::vector<int64_t>& indices, const Shape& updates);

}  // namespace seam::ir::reference

#endif  // SEAM_IR_REFERENCE_GATHER_H_
