// The reference evaluator's windowed ops (docs/ir.md "Windowed ops"): convolution,
// reduce_window_* and select_and_scatter on float operands held as double, row-major.
// Results are exact sums and folds in double; the caller rounds them to the result dtype.
#ifndef SEAM_IR_REFERENCE_WINDOW_H_
#define SEAM_IR_REFERENCE_WINDOW_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"

namespace seam::ir::reference {

// A row-major position: the index of element `linear` of an array of `dims`, and back.
using Index = std::vector<int64_t>;
Index Unravel(int64_t linear, const std::vector<int64_t>& dims);
int64_t Ravel(const Index& index, const std::vector<int64_t>& dims);

std::vector<double> Convolution(const Instruction& inst, const Shape& lhs_shape,
                                const std::vector<double>& lhs, const Shape& rhs_shape,
                                const std::vector<double>& rhs);
std::vector<double> ReduceWindow(const Instruction& inst, const Shape& in_shape,
                                 const std::vector<double>& in);
std::vector<double> SelectAndScatter(const Instruction& inst, const Shape& operand_shape,
                                     const std::vector<double>& operand,
                                     const std::vector<double>& source);

}  // namespace seam::ir::reference

#endif  // SEAM_IR_REFERENCE_WINDOW_H_
