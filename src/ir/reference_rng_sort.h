// The reference evaluator's rng_bit_generator and argsort (docs/ir.md "Random numbers and
// sorting"), written from the definitions one element at a time: each random element
// computes its own Philox block; each sorted position counts the elements that precede it.
#ifndef SEAM_IR_REFERENCE_RNG_SORT_H_
#define SEAM_IR_REFERENCE_RNG_SORT_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"

namespace seam::ir::reference {

// `count` elements of dtype s32 or s64 (row-major), as int64 values (s32 sign-extended).
std::vector<int64_t> RngBits(DType dtype, int64_t count, int64_t key, int64_t counter_lo,
                             int64_t counter_hi);

// argsort of `shape` along `axis`; the values are given as doubles (floats, NaN included)
// or as int64 (integers): exactly one of the two vectors is non-empty unless shape is empty.
std::vector<int64_t> Argsort(const Shape& shape, int64_t axis, bool descending,
                             const std::vector<double>& f, const std::vector<int64_t>& i);

}  // namespace seam::ir::reference

#endif  // SEAM_IR_REFERENCE_RNG_SORT_H_
