// The CPU plugin's gather, scatter_add and scatter_replace (docs/ir.md "Gather and
// scatter"). Each index vector is read once; the slice (or window) it names is then
// copied, or combined, row by row, with one memcpy per row where the innermost operand
// dimension is contiguous in the result (an embedding lookup copies whole rows).
#ifndef SEAM_PLUGINS_CPU_KERNELS_GATHER_H_
#define SEAM_PLUGINS_CPU_KERNELS_GATHER_H_

#include <cstdint>

#include "src/ir/program.h"

namespace seam::cpu {

void Gather(const ir::Instruction& inst, const ir::Shape& operand_shape, const uint8_t* operand,
            const ir::Shape& indices_shape, const uint8_t* indices, uint8_t* out);

// scatter_add / scatter_replace: `out` becomes operand 0 with the updates applied by index
// vector in row-major order, then row-major within each window (the reference
// evaluator's order; for replace the last update of an element wins).
void Scatter(const ir::Instruction& inst, const ir::Shape& operand_shape, const uint8_t* operand,
             const ir::Shape& indices_shape, const uint8_t* indices, const ir::Shape& updates_shape,
             const uint8_t* updates, uint8_t* out);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_GATHER_H_
