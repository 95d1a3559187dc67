// Loops for each IR op on dense row-major memory. Shapes were checked by the verifier.
#ifndef SEAM_PLUGINS_CPU_KERNELS_H_
#define SEAM_PLUGINS_CPU_KERNELS_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"

namespace seam::cpu {

// out[i] = a[i] <op> b[i] for add, subtract, multiply.
void ElementwiseBinary(ir::Op op, ir::DType dtype, const uint8_t* a, const uint8_t* b,
                       uint8_t* out, int64_t count);

// [m,k] x [k,n] -> [m,n].
void Dot(ir::DType dtype, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out, int64_t m,
         int64_t k, int64_t n);

// Operand dimension i goes to result dimension dims[i] (size 1 dimensions repeat).
void BroadcastInDim(const ir::Shape& in_shape, const uint8_t* in, const ir::Shape& out_shape,
                    const std::vector<int64_t>& dims, uint8_t* out);

// Sums over `axes` (strictly increasing).
void ReduceSum(const ir::Shape& in_shape, const uint8_t* in, const std::vector<int64_t>& axes,
               uint8_t* out);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_H_
