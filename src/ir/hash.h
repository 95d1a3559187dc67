// Structural hash of a program, stable across processes and runs.
#ifndef SEAM_IR_HASH_H_
#define SEAM_IR_HASH_H_

#include <cstdint>

#include "src/ir/program.h"

namespace seam::ir {

// Covers replica count, every instruction (op, operand indices, shape, attributes,
// parameter index, constant bytes) and the result tuple; not the program's name.
uint64_t HashProgram(const Program& program);

}  // namespace seam::ir

#endif  // SEAM_IR_HASH_H_
