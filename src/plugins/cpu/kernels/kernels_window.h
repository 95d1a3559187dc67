// The CPU plugin's windowed ops (docs/ir.md "Windowed ops"): convolution, reduce_window_*
// and select_and_scatter on f32, f64 and bf16, as direct loops that serve every attribute
// combination. Common 2-D f32 convolutions run on oneDNN instead where this build has it
// (conv_onednn.cc) and the rest as matrix products (conv_gemm.cc); ConvolutionPlan picks
// the path once per instruction.
#ifndef SEAM_PLUGINS_CPU_KERNELS_WINDOW_H_
#define SEAM_PLUGINS_CPU_KERNELS_WINDOW_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "src/ir/program.h"
#include "src/ir/window.h"

namespace seam::cpu {

class DeviceLayout;  // device_layout.h

// A convolution's sizes and element strides, worked out once from its shapes and
// attributes. Spatial dimension i of the lhs, the rhs and the result is entry i of each
// vector; window[i].size is the kernel's extent there.
struct ConvGeometry {
  ir::DType dtype = ir::DType::kF32;
  int64_t batch = 0, groups = 1, group_in = 0, group_out = 0;
  int64_t lhs_batch_stride = 0, lhs_feature_stride = 0;
  int64_t rhs_in_stride = 0, rhs_out_stride = 0;
  int64_t out_batch_stride = 0, out_feature_stride = 0;
  std::vector<int64_t> lhs_spatial_stride, rhs_spatial_stride, out_spatial_stride;
  std::vector<int64_t> in_size, out_size;
  std::vector<ir::WindowDim> window;
};
ConvGeometry ConvGeometryOf(const ir::Instruction& conv, const ir::Shape& lhs,
                            const ir::Shape& rhs);

// The direct loop: each result element sums its group's input features times its taps,
// accumulating in float (f32, bf16) or double (f64); split over the kernel threads by
// (batch, output feature).
void ConvolutionDirect(const ConvGeometry& g, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out);

// The same as one matrix product per (batch element, group) on gemm.h, through copies of
// the input's patches (conv_gemm.cc), for f32, f64 and bf16 (computed in f32). Fits where
// the patch matrix has at most 2^27 elements and its sides fit BLAS's int.
bool ConvolutionGemmFits(const ConvGeometry& g);
void ConvolutionGemm(const ConvGeometry& g, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out);

// The conv setting (option `conv`, SEAM_CPU_CONV; cpu_settings.h) must be unset, empty,
// auto, gemm or direct; PJRT_Client_Create refuses other values with an error naming the
// option or variable and the value; CheckConvolutionVariable checks the environment's
// settings as it does.
inline constexpr char kConvolutionVariable[] = "SEAM_CPU_CONV";
absl::Status CheckConvolutionVariable();

// Plans and runs one small f32 convolution on oneDNN, once per process, unless
// SEAM_CPU_CONV keeps convolutions off it: oneDNN sets up its convolution kernels and
// statics then, before the device threads' exit handler is registered, so a convolution
// still running at exit never meets statics that exit has destroyed (the same reason as
// InitializeGemmLibrariesOnce, gemm.h). PJRT_Client_Create calls it.
void InitializeConvolutionsOnce();

// What a convolution's epilogue adds to its f32 result inside the same call, in this
// order: a per-output-feature bias, a tensor of the result's shape (a residual), then
// max(x, 0) (fusion_epilogue.h).
struct ConvPostOps {
  bool bias = false;
  bool residual = false;
  bool relu = false;
  bool any() const { return bias || residual || relu; }
};
// The size of each (image, feature) plane of the result when its spatial dimensions are
// dense, innermost last (NCHW-like: a plane is one run of elements); -1 otherwise.
int64_t DenseOutputPlane(const ConvGeometry& g);

// The same on a result already computed (the plain paths, and a failed oneDNN call).
void ApplyPostOps(const ConvGeometry& g, const ConvPostOps& post, const uint8_t* bias,
                  const uint8_t* residual, uint8_t* out);

// A convolution instruction planned once (at compile time): oneDNN where it serves the
// case, else matrix products where they fit, else the direct loop; SEAM_CPU_CONV=gemm or
// =direct forces the later paths (docs/cpu-plugin.md "Convolutions"). Safe to run from
// several threads at once.
class ConvolutionPlan {
 public:
  ConvolutionPlan(const ir::Instruction& conv, const ir::Shape& lhs, const ir::Shape& rhs,
                  ConvPostOps post = {});
  ~ConvolutionPlan();
  ConvolutionPlan(const ConvolutionPlan&) = delete;
  ConvolutionPlan& operator=(const ConvolutionPlan&) = delete;

  // `bias`, `residual`: the per-feature f32 vector and the tensor of the result's shape of
  // a plan built with ConvPostOps::bias / ::residual (else unused; the residual is always
  // in the result's dense layout). False only where a oneDNN call failed with operands in
  // oneDNN's layouts (UseLayouts), which no other path can read: the result is unfinished.
  bool Run(const uint8_t* lhs, const uint8_t* rhs, uint8_t* out, const uint8_t* bias = nullptr,
           const uint8_t* residual = nullptr) const;
  // The layouts (device_layout.h) in which oneDNN reads the lhs and the rhs and writes the
  // result, for the whole batch; null where that is the operand's own dense layout or the
  // plan cannot take the operand in oneDNN's (no oneDNN, the weight-gradient form, first
  // layers, a layout whose batch is not its outermost dimension).
  const std::shared_ptr<const DeviceLayout>& lhs_layout() const;
  const std::shared_ptr<const DeviceLayout>& rhs_layout() const;
  const std::shared_ptr<const DeviceLayout>& out_layout() const;
  // Replans a convolution whose result oneDNN writes in the operand's layout (a first
  // layer without post-ops) to write it in oneDNN's own, for a result that stays in that
  // layout (no reorder out, the reason for the operand's layout); true where out_layout()
  // now exists. Called before UseLayouts, before the plan is shared.
  bool PreferResultInOneDnnLayout();
  // From now on Run reads the lhs / the rhs in lhs_layout() / rhs_layout() and leaves the
  // result in out_layout() where those exist and the flag is set. Called once, before the
  // plan is shared.
  void UseLayouts(bool lhs, bool rhs, bool out);
  // Built with post-ops that run inside oneDNN's call (fusion_epilogue.h).
  bool fuses_post_ops() const;
  bool uses_onednn() const { return onednn_ != nullptr; }
  bool uses_gemm() const { return gemm_; }
  // On oneDNN's backward-weights primitive (a kernel adjoint; conv_onednn.cc).
  bool uses_weight_gradient() const;
  // On oneDNN: its name for the kernel it chose (e.g. `brgconv:avx512_core`,
  // `jit_wino_4x3:avx512_core`); empty on the other paths.
  std::string_view onednn_implementation() const;

  struct OneDnn;  // conv_onednn.cc

 private:
  void Choose();  // sets onednn_ or gemm_ from SEAM_CPU_CONV and the case

  ConvGeometry geometry_;
  ConvPostOps post_;
  bool gemm_ = false;
  std::unique_ptr<OneDnn> onednn_;
};

// reduce_window_sum/max/min: padding and dilation holes count as the reduction's identity;
// folds in double in the reference evaluator's order, so the results are its bits.
void ReduceWindow(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
                  uint8_t* out);

// select_and_scatter (select `ge`, scatter add, initial value +0), in the reference
// evaluator's order, accumulating in double.
void SelectAndScatter(const ir::Instruction& inst, const ir::Shape& operand_shape,
                      const uint8_t* operand, const uint8_t* source, uint8_t* out);

// The same for f32 windows over the last two dimensions only, without padding or
// dilation (pooling in convolutional networks; kernels_pool.cc), with the same bits;
// select_and_scatter only where the windows do not overlap. False where the case does not
// fit (nothing written).
bool ReduceWindowMaxFast(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
                         uint8_t* out);
bool SelectAndScatterFast(const ir::Instruction& inst, const ir::Shape& operand_shape,
                          const uint8_t* operand, const uint8_t* source, uint8_t* out);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_WINDOW_H_
