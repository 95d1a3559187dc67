// Seeded random programs for the op x dtype conformance test: each runs one op on
// parameters of random shapes (scalars and 0-sized dimensions included) and returns it.
#ifndef SEAM_CONFORMANCE_OP_CASES_H_
#define SEAM_CONFORMANCE_OP_CASES_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"

namespace seam::conformance {

struct OpCase {
  ir::Program program;  // parameters, then the op under test, which is the one result
  std::vector<ir::Literal> arguments;
};

// Cases for `op` on operands of `dtype` (convert: from `dtype` to every dtype; iota and
// constant: results of `dtype`). The first case has the smallest rank the op allows (a
// scalar where it can), the second a 0-sized dimension. For a dtype the op does not
// accept, the programs are built the same way and fail to verify.
std::vector<OpCase> MakeCases(ir::Op op, ir::DType dtype, uint64_t seed);

// Element `index` widened: FloatAt for the float dtypes, IntAt for s32, s64 and pred.
double FloatAt(const ir::Literal& literal, int64_t index);
int64_t IntAt(const ir::Literal& literal, int64_t index);

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_OP_CASES_H_
