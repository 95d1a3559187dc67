// Element semantics of the reference evaluator (see reference_evaluator.h), one function
// per family of ops. Float dtypes travel as double, the others (s32, s64, pred) as int64.
#ifndef SEAM_IR_REFERENCE_SCALAR_H_
#define SEAM_IR_REFERENCE_SCALAR_H_

#include <cstdint>

#include "src/ir/program.h"

namespace seam::ir::reference {

double RoundTo(DType dtype, double x);    // the nearest value of a float dtype
int64_t WrapTo(DType dtype, uint64_t x);  // two's complement truncation; pred: x != 0

double FloatUnary(Op op, double x);
int64_t IntUnary(Op op, DType dtype, int64_t x);
double FloatBinary(Op op, double a, double b);
int64_t IntBinary(Op op, DType dtype, int64_t a, int64_t b);
bool CompareFloat(Op op, double a, double b);
bool CompareInt(Op op, int64_t a, int64_t b);

// convert: an element of `from` (held in f or i) as an element of `to`.
double ConvertToFloat(DType from, double f, int64_t i, DType to);
int64_t ConvertToInt(DType from, double f, int64_t i, DType to);

}  // namespace seam::ir::reference

#endif  // SEAM_IR_REFERENCE_SCALAR_H_
