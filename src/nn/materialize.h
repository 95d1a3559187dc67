// Running the pending operations of a few tensors now, for the state-dict loads: a loaded
// Linear weight (or its optimizer state) is transposed back from PyTorch's layout, and
// left pending that transpose would join the next training step's graph, making the first
// step after a resume a program an uninterrupted run never compiles (issue 31, item 6).
#ifndef SEAM_NN_MATERIALIZE_H_
#define SEAM_NN_MATERIALIZE_H_

#include <vector>

#include "seam/tensor.h"

namespace seam::nn {

// Launches the pending operations of `tensors` as one program (no donation) and points the
// tensors at its results; tensors without pending operations are left alone, and nothing
// runs when none has any. `what` names the caller in errors.
void MaterializeNow(const std::vector<Tensor*>& tensors, const char* what);

}  // namespace seam::nn

#endif  // SEAM_NN_MATERIALIZE_H_
