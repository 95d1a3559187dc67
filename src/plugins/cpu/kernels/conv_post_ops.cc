// Convolution epilogues applied after the convolution (kernels_window.h ApplyPostOps): the
// plain paths, a first layer's parts, and a part whose oneDNN call failed.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/plugins/cpu/kernels/kernels_window.h"
#include "src/plugins/cpu/kernels/target_clones.h"

namespace seam::cpu {

int64_t DenseOutputPlane(const ConvGeometry& g) {
  int64_t plane = 1;
  for (size_t i = g.out_size.size(); i-- > 0;) {
    if (g.out_spatial_stride[i] != plane) return -1;
    plane *= g.out_size[i];
  }
  return plane;
}

namespace {

// The post-op loop in an AVX-512, an AVX2 and a default version (target_clones.h): the
// baseline build's 16-byte loops were 42% of a first layer's time with its epilogue.
// y[j] = max(y[j] + add + r[j], 0) over a run of `count` elements in one pass (the bias,
// r and the max as `post` says), the bias added first as oneDNN does.
SEAM_KERNEL_CLONES void PostOpsOnRun(const ConvPostOps& post, float add, const float* r, float* y,
                                     int64_t count) {
  auto each = [&](auto op) {
    for (int64_t j = 0; j < count; ++j) y[j] = op(y[j], j);
  };
  const bool relu = post.relu;
  if (post.bias && r != nullptr) {
    each([&](float v, int64_t j) {
      return relu ? std::max((v + add) + r[j], 0.0f) : (v + add) + r[j];
    });
  } else if (post.bias) {
    each([&](float v, int64_t) { return relu ? std::max(v + add, 0.0f) : v + add; });
  } else if (r != nullptr) {
    each([&](float v, int64_t j) { return relu ? std::max(v + r[j], 0.0f) : v + r[j]; });
  } else if (relu) {
    each([](float v, int64_t) { return std::max(v, 0.0f); });
  }
}

}  // namespace

// The epilogue on the plain paths: f32 results only (BuildForward's rule), in place.
void ApplyPostOps(const ConvGeometry& g, const ConvPostOps& post, const uint8_t* bias,
                  const uint8_t* residual, uint8_t* out) {
  if (!post.any()) return;
  float* y = reinterpret_cast<float*>(out);
  const float* b = reinterpret_cast<const float*>(bias);
  const float* r = reinterpret_cast<const float*>(residual);  // laid out as the result
  const int64_t features = g.groups * g.group_out;
  // Spatial dimensions dense (innermost last): one loop per (image, feature) plane.
  const int64_t plane = DenseOutputPlane(g);
  if (plane >= 0) {
    for (int64_t n = 0; n < g.batch; ++n) {
      for (int64_t f = 0; f < features; ++f) {
        const int64_t at = n * g.out_batch_stride + f * g.out_feature_stride;
        PostOpsOnRun(post, post.bias ? b[f] : 0.0f, post.residual ? r + at : nullptr, y + at,
                     plane);
      }
    }
    return;
  }
  std::vector<int64_t> position(g.out_size.size(), 0);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t f = 0; f < features; ++f) {
      const float add = post.bias ? b[f] : 0.0f;
      std::fill(position.begin(), position.end(), 0);
      // Every spatial position of (n, f), walked through the result's strides.
      for (bool more = true; more;) {
        int64_t at = n * g.out_batch_stride + f * g.out_feature_stride;
        for (size_t i = 0; i < position.size(); ++i) at += position[i] * g.out_spatial_stride[i];
        float v = y[at] + add;
        if (post.residual) v += r[at];
        if (post.relu) v = std::max(v, 0.0f);
        y[at] = v;
        more = false;
        for (size_t i = position.size(); i-- > 0;) {
          if (++position[i] < g.out_size[i]) {
            more = true;
            break;
          }
          position[i] = 0;
        }
      }
    }
  }
}

}  // namespace seam::cpu
