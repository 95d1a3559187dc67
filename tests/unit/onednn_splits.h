// Whether a oneDNN product computed in parts (row blocks: kernel threads, a product
// epilogue's rows) gives the bits of one call on this machine. With AVX-512, oneDNN 2.6's f32
// matmul runs its brgemm kernels, whose order of additions does not depend on the rows a
// call covers; on an AVX2-only CPU it runs other kernels, and on AMD Zen 3 (session 37) a
// split at row 160 of a 301-row product changed the last bits of some results. Tests assert
// the bits where they hold and the float bounds everywhere (docs/cpu-plugin.md).
#ifndef SEAM_TESTS_UNIT_ONEDNN_SPLITS_H_
#define SEAM_TESTS_UNIT_ONEDNN_SPLITS_H_

namespace seam::testing {

inline bool OneDnnSplitsKeepTheBits() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

}  // namespace seam::testing

#endif  // SEAM_TESTS_UNIT_ONEDNN_SPLITS_H_
