// The CPU plugin's rng_bit_generator (Philox4x32-10, one block per 4 s32 or 2 s64 result
// elements; every element depends only on key, counter and its index) and argsort (stable,
// NaN above +inf; descending reverses the order of values, not of equal elements);
// docs/ir.md "Random numbers and sorting".
#ifndef SEAM_PLUGINS_CPU_KERNELS_RNG_SORT_H_
#define SEAM_PLUGINS_CPU_KERNELS_RNG_SORT_H_

#include <cstdint>

#include "src/ir/program.h"

namespace seam::cpu {

void RngBitGenerator(const ir::Shape& result, const uint8_t* key, const uint8_t* counter,
                     uint8_t* out);
void Argsort(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
             uint8_t* out);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_RNG_SORT_H_
