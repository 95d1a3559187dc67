// Shortcuts past the generic shape rule (ir::InferShape) for the ops a training step
// records most, used by MakeNode.
#ifndef SEAM_LAZY_FAST_SHAPE_H_
#define SEAM_LAZY_FAST_SHAPE_H_

#include "src/ir/program.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// Sets `out` to the result shape of `op` on `operands` when a shortcut applies, which is
// then exactly the shape rule's result; false otherwise, including every case the rule
// would reject (so that its message is the one reported). `declared` is the shape given
// with the op (broadcast_in_dim, reshape, convert); its dimensions may have moved into
// `out` on success, and are intact on failure.
bool FastShape(ir::Op op, const NodeList& operands, const ir::Attributes& attrs,
               ir::Shape& declared, ir::Shape& out);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_FAST_SHAPE_H_
