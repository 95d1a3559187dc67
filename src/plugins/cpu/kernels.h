// Loops for each IR op on dense row-major memory, one file per family. Shapes and
// attributes were checked by the verifier; the semantics are those of docs/ir.md.
#ifndef SEAM_PLUGINS_CPU_KERNELS_H_
#define SEAM_PLUGINS_CPU_KERNELS_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "src/ir/program.h"

namespace seam::cpu {

// kernels_elementwise.cc. `count` elements; `dtype` is the operands' dtype.
void Unary(ir::Op op, ir::DType dtype, const uint8_t* in, uint8_t* out, int64_t count);
// Arithmetic, logical and comparison ops (a comparison writes pred).
void Binary(ir::Op op, ir::DType dtype, const uint8_t* a, const uint8_t* b, uint8_t* out,
            int64_t count);
void Select(ir::DType dtype, const uint8_t* predicate, const uint8_t* on_true,
            const uint8_t* on_false, uint8_t* out, int64_t count);
void Convert(ir::DType from, ir::DType to, const uint8_t* in, uint8_t* out, int64_t count);

// kernels_shape.cc.
void BroadcastInDim(const ir::Shape& in_shape, const uint8_t* in, const ir::Shape& out_shape,
                    const std::vector<int64_t>& dims, uint8_t* out);
// Result dimension i is operand dimension permutation[i].
void Transpose(const ir::Shape& in_shape, const uint8_t* in,
               const std::vector<int64_t>& permutation, uint8_t* out);
void Slice(const ir::Shape& in_shape, const uint8_t* in, const ir::Shape& out_shape,
           const std::vector<int64_t>& start, const std::vector<int64_t>& stride, uint8_t* out);
void Concatenate(const std::vector<ir::Shape>& in_shapes, const std::vector<const uint8_t*>& ins,
                 int64_t dimension, uint8_t* out);
void Pad(const ir::Shape& in_shape, const uint8_t* in, const uint8_t* value,
         const ir::Shape& out_shape, const std::vector<int64_t>& low,
         const std::vector<int64_t>& interior, uint8_t* out);
void Iota(const ir::Shape& out_shape, int64_t dimension, uint8_t* out);

// kernels_reduce.cc. reduce_sum, reduce_product, reduce_max, reduce_min over `axes`.
void Reduce(ir::Op op, const ir::Shape& in_shape, const uint8_t* in,
            const std::vector<int64_t>& axes, uint8_t* out);
// Folds positions [first, last) of the operand (row-major) into `out`, the result of a
// reduction over adjacent `axes` of an f32 or f64 operand: the first position folded into
// a result element starts it from the reduction's initial value. Called on consecutive
// ranges that cover the operand in order, it gives Reduce's bits (the same fold order);
// used for reductions that run with the group producing their operand (fusion.h).
void ReduceRange(ir::Op op, const ir::Shape& in_shape, const uint8_t* in,
                 const std::vector<int64_t>& axes, int64_t first, int64_t last, uint8_t* out);

// kernels_dot.cc.
struct DotDimensions {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
};
void DotGeneral(const ir::Shape& lhs_shape, const uint8_t* lhs, const ir::Shape& rhs_shape,
                const uint8_t* rhs, const DotDimensions& dims, uint8_t* out);
// out += alpha * lhs.rhs, for f32 and f64 operands whose sizes fit BLAS (dot_update.h).
void DotGeneralAccumulate(const ir::Shape& lhs_shape, const uint8_t* lhs,
                          const ir::Shape& rhs_shape, const uint8_t* rhs,
                          const DotDimensions& dims, double alpha, uint8_t* out);

// kernels_dispatch.cc: computes `inst` from its operands' memory `in` (operand k has shape
// operand_shape(k)) into `out`, with the kernel for its op. A parameter writes nothing, a
// constant copies its literal, an all_reduce copies its operand (a lone replica).
void RunKernel(const ir::Instruction& inst,
               absl::FunctionRef<const ir::Shape&(size_t)> operand_shape,
               const std::vector<const uint8_t*>& in, uint8_t* out);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_H_
