// The default random generator's draws as graph nodes, for seam::rand and nn::dropout
// (src/lazy/random.cc; docs/frontend.md "Random numbers").
#ifndef SEAM_LAZY_RANDOM_INTERNAL_H_
#define SEAM_LAZY_RANDOM_INTERNAL_H_

#include "src/lazy/tensor_internal.h"

namespace seam::lazy {

// rng_bit_generator bits (s32 or s64) of `dims` from the default generator, whose counter
// advances by the Philox blocks used (ceil(bytes / 16)).
NodePtr DrawBits(ir::DType dtype, Ints dims);
// Uniform [0, 1) of a float dtype from DrawBits (seam::rand's conversion).
NodePtr UniformFromBits(ir::DType dtype, Ints dims);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_RANDOM_INTERNAL_H_
