// The emitter's options (emit.h), apart so that the emitter's own files share them
// without a cycle.
#ifndef SEAM_STABLEHLO_EMIT_OPTIONS_H_
#define SEAM_STABLEHLO_EMIT_OPTIONS_H_

namespace seam::stablehlo {

// The precision f32 dot_general and convolution ask for. kHighest writes
// `precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]` (full
// f32, as seam's CPU plugin computes); kTf32 writes none, leaving the plugin's default
// (TF32 on NVIDIA GPUs with XLA). Other dtypes never carry a precision_config.
enum class MatmulPrecision { kHighest, kTf32 };

struct EmitOptions {
  MatmulPrecision matmul_precision = MatmulPrecision::kHighest;
};

}  // namespace seam::stablehlo

#endif  // SEAM_STABLEHLO_EMIT_OPTIONS_H_
