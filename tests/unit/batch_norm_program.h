// The forward half of a batch norm in training mode as the front end records it, for the
// CPU plugin's tests of the loops and reductions around it (cpu_reduce_chunks_test,
// cpu_fusion_copies_test): parameters %x (the activation) and %g (a gradient of its shape),
// the per-channel mean's sum %s, the centred values %d, the squares %sq and their sum %var,
// %r = var * 0.01 and its broadcast %rb; fills %zb (zeros of the activation's shape) and %kv
// (0.01 per channel).
#ifndef SEAM_TESTS_UNIT_BATCH_NORM_PROGRAM_H_
#define SEAM_TESTS_UNIT_BATCH_NORM_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace seam::cpu::testing {

struct BatchNormProgram {
  std::string text;   // "program @name {" and the instructions above, one per line
  std::string t, v;   // the activation's type and the per-channel vector's
  std::string over;   // "axes={...} : v": a reduction over every axis but the channels
  std::string bcast;  // "dims={feature} : t": a per-channel broadcast to the activation
};

inline std::string F32Type(const std::vector<int64_t>& dims) {
  return absl::StrCat("f32[", absl::StrJoin(dims, ","), "]");
}

// `dims` of rank 4, channels in dimension `feature` (1 for NCHW, 3 for NHWC).
inline BatchNormProgram BatchNormPrefix(const std::string& name, const std::vector<int64_t>& dims,
                                        int feature = 1) {
  BatchNormProgram p;
  std::vector<int64_t> axes;
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    if (d != feature) axes.push_back(d);
  }
  p.t = F32Type(dims);
  p.v = F32Type({dims[feature]});
  p.over = absl::StrCat("axes={", absl::StrJoin(axes, ","), "} : ", p.v);
  p.bcast = absl::StrCat("dims={", feature, "} : ", p.t);
  p.text = absl::StrCat(
      "program @", name, " {\n  %x = parameter(0) : ", p.t, "\n  %g = parameter(1) : ", p.t,
      "\n  %k = constant(0.01) : f32[]\n  %kv = broadcast_in_dim(%k), dims={} : ", p.v,
      "\n  %z = constant(0) : f32[]\n  %zb = broadcast_in_dim(%z), dims={} : ", p.t,
      "\n  %s = reduce_sum(%x), ", p.over, "\n  %m = multiply(%s, %kv) : ", p.v,
      "\n  %mb = broadcast_in_dim(%m), ", p.bcast, "\n  %d = subtract(%x, %mb) : ", p.t,
      "\n  %sq = multiply(%d, %d) : ", p.t, "\n  %var = reduce_sum(%sq), ", p.over,
      "\n  %r = multiply(%var, %kv) : ", p.v, "\n  %rb = broadcast_in_dim(%r), ", p.bcast, "\n");
  return p;
}

}  // namespace seam::cpu::testing

#endif  // SEAM_TESTS_UNIT_BATCH_NORM_PROGRAM_H_
