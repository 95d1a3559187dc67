// The CPU plugin's ops along one axis (docs/ir.md "Reductions and products"): argmax and
// argmin (s64 result; ties keep the first index, the first NaN wins) and cumsum (each
// running sum rounded to the dtype, integers wrapping), in the reference evaluator's order.
#ifndef SEAM_PLUGINS_CPU_KERNELS_AXIS_H_
#define SEAM_PLUGINS_CPU_KERNELS_AXIS_H_

#include <cstdint>

#include "src/ir/program.h"

namespace seam::cpu {

void ArgReduce(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
               uint8_t* out);
void Cumsum(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
            uint8_t* out);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_AXIS_H_
