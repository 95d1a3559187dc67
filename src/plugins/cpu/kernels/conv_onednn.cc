// ConvolutionPlan (kernels_window.h): f32 and bf16 convolutions (bf16 accumulates in f32
// inside oneDNN) with 1 to 3 spatial dimensions, no lhs dilation, padding >= 0 and a
// non-empty result run on oneDNN when this build links it, oneDNN has a JIT kernel for the
// case, and SEAM_CPU_CONV (docs/cpu-plugin.md "Convolutions") allows; everything else runs as
// matrix products (conv_gemm.cc) or, where those do not fit, the direct loop. oneDNN reads
// and writes the operands in their own layout (any dimension numbers are strided memory
// descriptors) and picks its own layouts for the computation, so each run reorders in and
// out where they differ; the batch is split into cache-sized parts over the kernel
// threads, one single-threaded oneDNN call per part. A plan built with ConvPostOps adds a
// bias and takes max(x, 0) inside the same call (fusion_epilogue.h).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/kernels/kernels_window.h"
#include "src/plugins/cpu/runtime/device_layout.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

#ifdef SEAM_HAVE_ONEDNN
#include <omp.h>

#include "oneapi/dnnl/dnnl.h"
#include "src/plugins/cpu/kernels/onednn_common.h"
#endif

namespace seam::cpu {

namespace {

// The paths a plan may take (cpu_settings.h): "direct" keeps every convolution on the
// direct loop, "gemm" on matrix products where they fit (comparisons, tests); "auto" tries
// oneDNN first.
ConvPaths ConvChoice() { return ActiveConvPaths(); }

}  // namespace

absl::Status CheckConvolutionVariable() { return CpuSettingsFromEnvironment().status(); }

#ifdef SEAM_HAVE_ONEDNN

using onednn::Destroy;
using onednn::Engine;
using onednn::Execute;
using onednn::LocalScratch;
using onednn::MakeReorder;
using onednn::Memory;
using onednn::ThreadScratch;

// Two forms of the same sum: kForward runs oneDNN's forward convolution (lhs its source,
// rhs its weights, the result its destination); the weight-gradient form runs its
// backward-weights primitive with the roles swapped (see BuildWeightGradient). The
// descriptors are named by the instruction's operands: the user's layouts (for one part's
// batch) and oneDNN's.
struct ConvolutionPlan::OneDnn {
  bool weight_gradient = false;
  std::string implementation;  // oneDNN's name for the kernel it chose (impl info)
  bool bias = false;           // the primitive adds a per-feature bias (DNNL_ARG_BIAS)
  bool residual = false;       // and a tensor laid out as the user's result (a sum post-op)
  // The plan's post-ops run after each part's call instead (ApplyPostOps on the part, still
  // in cache): first layers, whose kernel adds a bias slowly.
  bool post_after = false;
  dnnl_memory_desc_t bias_md{};
  int64_t parts = 1;
  int64_t part_batch = 0;
  dnnl_memory_desc_t user_lhs{}, user_rhs{}, user_out{};
  dnnl_memory_desc_t lhs{}, rhs{}, out{}, scratchpad{};
  dnnl_primitive_t conv = nullptr;
  dnnl_primitive_t lhs_in = nullptr, rhs_in = nullptr, out_back = nullptr;
  dnnl_primitive_t residual_in = nullptr;  // the residual into oneDNN's result layout
  // oneDNN's layouts of the operands for the whole batch (docs/cpu-plugin.md "On-device
  // layouts"): null where the user's layout is oneDNN's or the plan cannot take the operand
  // in oneDNN's (see WholeBatch). With `lhs_given` / `rhs_given` Run reads the operand in
  // its layout, with `out_kept` it leaves the result in its layout: no reorder.
  std::shared_ptr<const DeviceLayout> lhs_layout, rhs_layout, out_layout;
  bool lhs_given = false, rhs_given = false, out_kept = false;

  ~OneDnn() {
    for (dnnl_primitive_t p : {conv, lhs_in, rhs_in, out_back, residual_in}) {
      if (p != nullptr) dnnl_primitive_destroy(p);
    }
  }
};

namespace {

bool Eligible(const ConvGeometry& g) {
  const size_t spatial = g.window.size();
  const bool dtype = g.dtype == ir::DType::kF32 || g.dtype == ir::DType::kBF16;
  if (!dtype || spatial < 1 || spatial > 3 || Engine() == nullptr) {
    return false;
  }
  if (g.batch == 0 || g.group_in == 0 || g.group_out == 0) return false;
  for (size_t i = 0; i < spatial; ++i) {
    const ir::WindowDim& w = g.window[i];
    if (w.base_dilation != 1 || w.pad_low < 0 || w.pad_high < 0 || g.out_size[i] == 0 ||
        g.in_size[i] == 0) {
      return false;
    }
  }
  return true;
}

// A part's input and result together stay under this many bytes where the batch allows:
// about a core's L2 here (1 MiB on Zen 5), so the reorders into and out of oneDNN's layout
// read what is still in cache (a ResNet layer, 56x56x64 at batch 8: 13 ms -> 11 ms).
constexpr int64_t kPartBytes = int64_t{900} << 10;

// The part count: the largest count <= the kernel threads that divides the batch evenly,
// then (with `reorders`: the parts reorder operands) its smallest multiple that divides the
// batch and brings a part under kPartBytes (one image per part at most).
int64_t Parts(const ConvGeometry& g, bool reorders) {
  int64_t parts = std::min<int64_t>(KernelThreads(), g.batch);
  while (parts > 1 && g.batch % parts != 0) --parts;
  parts = std::max<int64_t>(parts, 1);
  if (!reorders) return parts;
  int64_t image = g.groups * (g.group_in + g.group_out);
  for (size_t i = 0; i < g.window.size(); ++i) image *= std::max(g.in_size[i], g.out_size[i]);
  image *= static_cast<int64_t>(ir::DTypeSize(g.dtype));
  const int64_t step = parts;
  for (int64_t more = step; more <= g.batch && (g.batch / parts) * image > kPartBytes;
       more += step) {
    if (g.batch % more == 0) parts = more;
  }
  return parts;
}

// Convolutions (one group) with fewer input features than this write their result in the operand's
// own layout: a first layer (1 to 3 channels) computes so little per result element that reordering
// its result out of oneDNN's layout costs twice the convolution (the CNN's first layer: 1.09 ms
// with the reorder, 0.56 ms without, 1 thread).
constexpr int64_t kFewInputFeatures = 4;

dnnl_data_type_t DataType(ir::DType dtype) {
  return dtype == ir::DType::kBF16 ? dnnl_bf16 : dnnl_f32;
}

void Strided(dnnl_memory_desc_t* md, const std::vector<int64_t>& dims,
             const std::vector<int64_t>& strides, dnnl_data_type_t type) {
  dnnl_dims_t d, s;
  for (size_t i = 0; i < dims.size(); ++i) {
    d[i] = dims[i];
    s[i] = strides[i];
  }
  dnnl_memory_desc_init_by_strides(md, static_cast<int>(dims.size()), d, type, s);
}

void Any(dnnl_memory_desc_t* md, const std::vector<int64_t>& dims, dnnl_data_type_t type) {
  dnnl_dims_t d;
  for (size_t i = 0; i < dims.size(); ++i) d[i] = dims[i];
  dnnl_memory_desc_init_by_tag(md, static_cast<int>(dims.size()), d, type, dnnl_format_tag_any);
}

struct Descriptors {
  dnnl_memory_desc_t lhs, rhs, out;  // the user's layouts
  dnnl_memory_desc_t any_lhs, any_rhs, any_out;
  dnnl_dims_t strides, dilates, pad_l, pad_r;
};

// The memory descriptors of one problem: each operand is `dims` over `strides` (leading
// two dimensions first, then the spatial ones), oneDNN's own layouts left open.
using Dims = std::vector<int64_t>;

void Describe(Descriptors* d, dnnl_data_type_t type, const Dims& lhs_dims, const Dims& lhs_strides,
              const Dims& rhs_dims, const Dims& rhs_strides, const Dims& out_dims,
              const Dims& out_strides) {
  Strided(&d->lhs, lhs_dims, lhs_strides, type);
  Strided(&d->rhs, rhs_dims, rhs_strides, type);
  Strided(&d->out, out_dims, out_strides, type);
  Any(&d->any_lhs, lhs_dims, type);
  Any(&d->any_rhs, rhs_dims, type);
  Any(&d->any_out, out_dims, type);
}

// The primitive for `pd` with oneDNN's layouts for the three operands (queried as
// `lhs_q`, `rhs_q`, `out_q`) and the reorders from and to the user's; null where oneDNN
// refuses, or where only its reference implementation serves the case (no JIT kernel for
// this CPU and case, e.g. bf16 without AVX-512: slower than the matrix-product path).
std::unique_ptr<ConvolutionPlan::OneDnn> Finish(std::unique_ptr<ConvolutionPlan::OneDnn> plan,
                                                dnnl_primitive_desc_t pd, const Descriptors& d,
                                                dnnl_query_t lhs_q, dnnl_query_t rhs_q,
                                                dnnl_query_t out_q) {
  const char* impl = nullptr;
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  if (impl == nullptr || std::string(impl).rfind("ref", 0) == 0) {
    dnnl_primitive_desc_destroy(pd);
    return nullptr;
  }
  plan->implementation = impl;
  plan->user_lhs = d.lhs;
  plan->user_rhs = d.rhs;
  plan->user_out = d.out;
  plan->lhs = *dnnl_primitive_desc_query_md(pd, lhs_q, 0);
  plan->rhs = *dnnl_primitive_desc_query_md(pd, rhs_q, 0);
  plan->out = *dnnl_primitive_desc_query_md(pd, out_q, 0);
  plan->scratchpad = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  const dnnl_status_t created = dnnl_primitive_create(&plan->conv, pd);
  dnnl_primitive_desc_destroy(pd);
  if (created != dnnl_success) return nullptr;
  plan->lhs_in = MakeReorder(plan->user_lhs, plan->lhs);
  plan->rhs_in = MakeReorder(plan->user_rhs, plan->rhs);
  plan->out_back = MakeReorder(plan->out, plan->user_out);
  const bool missing =
      (plan->lhs_in == nullptr && !dnnl_memory_desc_equal(&plan->user_lhs, &plan->lhs)) ||
      (plan->rhs_in == nullptr && !dnnl_memory_desc_equal(&plan->user_rhs, &plan->rhs)) ||
      (plan->out_back == nullptr && !dnnl_memory_desc_equal(&plan->out, &plan->user_out));
  if (missing) return nullptr;
  return plan;
}

// The layout of an operand of the whole batch (`batch` images) whose parts (`part_batch`
// images) oneDNN keeps as `part`, the same values densely laid out as `dense`; null unless
// the batch is the outermost dimension of `part`, unblocked, so that part k of the whole
// starts k part sizes in.
std::shared_ptr<const DeviceLayout> WholeBatch(const dnnl_memory_desc_t& part, int64_t part_batch,
                                               int64_t batch, const dnnl_memory_desc_t& dense) {
  if (part.format_kind != dnnl_blocked || part.offset0 != 0 || part.padded_dims[0] != part_batch) {
    return nullptr;
  }
  const dnnl_blocking_desc_t& blocking = part.format_desc.blocking;
  for (int i = 0; i < blocking.inner_nblks; ++i) {
    if (blocking.inner_idxs[i] == 0) return nullptr;
  }
  const auto element = static_cast<int64_t>(dnnl_data_type_size(part.data_type));
  if (static_cast<int64_t>(dnnl_memory_desc_get_size(&part)) !=
      blocking.strides[0] * part_batch * element) {
    return nullptr;
  }
  dnnl_memory_desc_t whole = part;
  whole.dims[0] = batch;
  whole.padded_dims[0] = batch;
  return MakeDeviceLayout(dense, whole);
}

// The whole batch's layouts of a forward plan's operands (oneDNN's where they differ from
// the user's): `user_lhs_whole`, `user_out_whole` describe the user's for the whole batch.
void DescribeLayouts(ConvolutionPlan::OneDnn* plan, int64_t batch,
                     const dnnl_memory_desc_t& user_lhs_whole,
                     const dnnl_memory_desc_t& user_out_whole) {
  if (plan->lhs_in != nullptr) {
    plan->lhs_layout = WholeBatch(plan->lhs, plan->part_batch, batch, user_lhs_whole);
  }
  if (plan->rhs_in != nullptr) plan->rhs_layout = MakeDeviceLayout(plan->user_rhs, plan->rhs);
  if (plan->out_back != nullptr) {
    plan->out_layout = WholeBatch(plan->out, plan->part_batch, batch, user_out_whole);
  }
}

// A primitive descriptor with user-managed scratch memory, or null; inside the call, the
// result is added to what its memory holds where `sum` (a residual put there first), then
// max(x, 0) where `relu`.
dnnl_primitive_desc_t Create(const void* desc, const_dnnl_primitive_desc_t hint, bool sum = false,
                             bool relu = false) {
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_primitive_attr_create(&attr);
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  dnnl_post_ops_t post_ops = nullptr;
  if (sum || relu) {
    dnnl_post_ops_create(&post_ops);
    if (sum) dnnl_post_ops_append_sum(post_ops, 1.0f);
    if (relu) dnnl_post_ops_append_eltwise(post_ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f);
    dnnl_primitive_attr_set_post_ops(attr, post_ops);
  }
  dnnl_primitive_desc_t pd = nullptr;
  const dnnl_status_t made = dnnl_primitive_desc_create(&pd, desc, attr, Engine(), hint);
  if (post_ops != nullptr) dnnl_post_ops_destroy(post_ops);
  dnnl_primitive_attr_destroy(attr);
  return made == dnnl_success ? pd : nullptr;
}

// How BuildForward plans: `result_may_stay`, the result will stay in oneDNN's layout (no
// reorder out), so a first layer may take it too; `reorders` false, no part reorders its
// input or result (both stay in oneDNN's layouts), so the batch is split over the kernel
// threads only (each call costs about 10 us besides its work).
struct ForwardOptions {
  bool result_may_stay = false;
  bool reorders = true;
};

// The forward form: oneDNN's forward convolution over the operands as they are, with the
// epilogue `post` inside the call (f32 only: the bias is f32).
std::unique_ptr<ConvolutionPlan::OneDnn> BuildForward(const ConvGeometry& g,
                                                      const ConvPostOps& post,
                                                      ForwardOptions options = {}) {
  if (post.any() && g.dtype != ir::DType::kF32) return nullptr;
  // A residual is copied into each part's result as one stretch of memory: the batch must
  // be the result's outermost, dense dimension.
  int64_t image = g.groups * g.group_out;
  for (int64_t size : g.out_size) image *= size;
  if (post.residual && g.out_batch_stride != image) return nullptr;
  auto plan = std::make_unique<ConvolutionPlan::OneDnn>();
  // A first layer writes the operand's layout (oneDNN's gemm kernel for it: 0.5 ms for the
  // CNN's first layer), but that kernel adds a bias slowly (1.5 ms per 8 images), and in
  // oneDNN's own layout the reorder out costs more than a separate loop: a first layer's
  // post-ops run after each part's call, over the part's result while it is in cache, one
  // vectorized pass per plane; where the planes are not dense (NHWC) that would be a scalar
  // walk, slower than the separate loop, so such a first layer takes no epilogue.
  // A first layer whose result stays in oneDNN's layout pays no reorder out: it takes
  // oneDNN's layout like any other convolution (without post-ops).
  const bool few =
      g.groups == 1 && g.group_in < kFewInputFeatures && !(options.result_may_stay && !post.any());
  if (few && post.any() && DenseOutputPlane(g) < 0) return nullptr;
  plan->post_after = few && post.any();
  plan->bias = post.bias && !plan->post_after;
  plan->residual = post.residual && !plan->post_after;
  plan->parts = Parts(g, options.reorders);
  plan->part_batch = g.batch / plan->parts;
  std::vector<int64_t> src_dims = {plan->part_batch, g.groups * g.group_in};
  std::vector<int64_t> src_strides = {g.lhs_batch_stride, g.lhs_feature_stride};
  std::vector<int64_t> dst_dims = {plan->part_batch, g.groups * g.group_out};
  std::vector<int64_t> dst_strides = {g.out_batch_stride, g.out_feature_stride};
  std::vector<int64_t> w_dims, w_strides;
  if (g.groups > 1) {
    w_dims = {g.groups, g.group_out, g.group_in};
    w_strides = {g.group_out * g.rhs_out_stride, g.rhs_out_stride, g.rhs_in_stride};
  } else {
    w_dims = {g.group_out, g.group_in};
    w_strides = {g.rhs_out_stride, g.rhs_in_stride};
  }
  Descriptors d{};
  for (size_t i = 0; i < g.window.size(); ++i) {
    src_dims.push_back(g.in_size[i]);
    src_strides.push_back(g.lhs_spatial_stride[i]);
    dst_dims.push_back(g.out_size[i]);
    dst_strides.push_back(g.out_spatial_stride[i]);
    w_dims.push_back(g.window[i].size);
    w_strides.push_back(g.rhs_spatial_stride[i]);
    d.strides[i] = g.window[i].stride;
    d.dilates[i] = g.window[i].window_dilation - 1;
    d.pad_l[i] = g.window[i].pad_low;
    // oneDNN wants the right padding that its own output-size formula needs; ours may
    // pad further than the last window reaches (those positions are never read).
    const int64_t extent = (g.window[i].size - 1) * g.window[i].window_dilation + 1;
    d.pad_r[i] = (g.out_size[i] - 1) * g.window[i].stride + extent - g.in_size[i] - d.pad_l[i];
  }
  Describe(&d, DataType(g.dtype), src_dims, src_strides, w_dims, w_strides, dst_dims, dst_strides);
  if (plan->bias) Strided(&plan->bias_md, {g.groups * g.group_out}, {1}, dnnl_f32);
  dnnl_convolution_desc_t desc;
  if (dnnl_dilated_convolution_forward_desc_init(
          &desc, dnnl_forward_inference, dnnl_convolution_auto, &d.any_lhs, &d.any_rhs,
          plan->bias ? &plan->bias_md : nullptr, few ? &d.out : &d.any_out, d.strides, d.dilates,
          d.pad_l, d.pad_r) != dnnl_success) {
    return nullptr;
  }
  dnnl_primitive_desc_t pd = Create(&desc, nullptr, plan->residual, post.relu && !plan->post_after);
  if (pd == nullptr) return nullptr;
  plan =
      Finish(std::move(plan), pd, d, dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md);
  if (plan != nullptr && post.residual && plan->out_back != nullptr) {
    plan->residual_in = MakeReorder(plan->user_out, plan->out);
    if (plan->residual_in == nullptr) return nullptr;
  }
  if (plan != nullptr && !plan->post_after) {
    src_dims[0] = g.batch;
    dst_dims[0] = g.batch;
    dnnl_memory_desc_t lhs_whole, out_whole;
    Strided(&lhs_whole, src_dims, src_strides, DataType(g.dtype));
    Strided(&out_whole, dst_dims, dst_strides, DataType(g.dtype));
    DescribeLayouts(plan.get(), g.batch, lhs_whole, out_whole);
  }
  return plan;
}

// The weight-gradient form. The instruction computes
//   out[n, o, t] = sum over f, y of lhs[n, f, t * s + y * r - p] * rhs[f, o, y]
// (s the window stride, r the kernel dilation, p the low padding; groups of 1). That is
// oneDNN's weight gradient diff_weights[o, n, t] for the source lhs read with f as its
// batch and n as its channel, diff_dst rhs with f as its batch and o as its channel, stride
// r and dilation s: the form in which the front end records a convolution's kernel adjoint
// (docs/cpu-plugin.md "Convolutions"), whose "kernel" (the result's gradient) is as large as
// an image and whose result is a few taps. oneDNN's backward-weights kernels compute it
// far faster than its forward kernels do with such a kernel. One part: the sum runs over
// the whole of lhs's feature dimension.
std::unique_ptr<ConvolutionPlan::OneDnn> BuildWeightGradient(const ConvGeometry& g) {
  if (g.groups != 1) return nullptr;
  auto plan = std::make_unique<ConvolutionPlan::OneDnn>();
  plan->weight_gradient = true;
  plan->part_batch = g.batch;
  std::vector<int64_t> src_dims = {g.group_in, g.batch};
  std::vector<int64_t> src_strides = {g.lhs_feature_stride, g.lhs_batch_stride};
  std::vector<int64_t> diff_dst_dims = {g.group_in, g.group_out};
  std::vector<int64_t> diff_dst_strides = {g.rhs_in_stride, g.rhs_out_stride};
  std::vector<int64_t> diff_w_dims = {g.group_out, g.batch};
  std::vector<int64_t> diff_w_strides = {g.out_feature_stride, g.out_batch_stride};
  Descriptors d{};
  for (size_t i = 0; i < g.window.size(); ++i) {
    src_dims.push_back(g.in_size[i]);
    src_strides.push_back(g.lhs_spatial_stride[i]);
    diff_dst_dims.push_back(g.window[i].size);
    diff_dst_strides.push_back(g.rhs_spatial_stride[i]);
    diff_w_dims.push_back(g.out_size[i]);
    diff_w_strides.push_back(g.out_spatial_stride[i]);
    d.strides[i] = g.window[i].window_dilation;
    d.dilates[i] = g.window[i].stride - 1;
    d.pad_l[i] = g.window[i].pad_low;
    d.pad_r[i] = (g.window[i].size - 1) * g.window[i].window_dilation +
                 (g.out_size[i] - 1) * g.window[i].stride + 1 - g.in_size[i] - d.pad_l[i];
    if (d.pad_r[i] < 0) return nullptr;  // rows past the last read: the forward form
  }
  Describe(&d, DataType(g.dtype), src_dims, src_strides, diff_dst_dims, diff_dst_strides,
           diff_w_dims, diff_w_strides);
  // The backward-weights primitive needs its forward twin as a hint. A first layer's
  // (fewer than kFewInputFeatures source channels: the instruction's batch) asks for the
  // direct algorithm: `auto` gives it Winograd, whose transforms cost far more than one
  // channel's products (the CNN's first layer: 2.3 ms against 0.5 ms per step, Xeon VM).
  const dnnl_alg_kind_t algorithm =
      g.batch < kFewInputFeatures ? dnnl_convolution_direct : dnnl_convolution_auto;
  dnnl_convolution_desc_t forward, backward;
  if (dnnl_dilated_convolution_forward_desc_init(
          &forward, dnnl_forward_training, algorithm, &d.any_lhs, &d.any_out, nullptr, &d.any_rhs,
          d.strides, d.dilates, d.pad_l, d.pad_r) != dnnl_success ||
      dnnl_dilated_convolution_backward_weights_desc_init(
          &backward, algorithm, &d.any_lhs, &d.any_out, nullptr, &d.any_rhs, d.strides, d.dilates,
          d.pad_l, d.pad_r) != dnnl_success) {
    return nullptr;
  }
  dnnl_primitive_desc_t hint = Create(&forward, nullptr);
  if (hint == nullptr) return nullptr;
  dnnl_primitive_desc_t pd = Create(&backward, hint);
  dnnl_primitive_desc_destroy(hint);
  if (pd == nullptr) return nullptr;
  return Finish(std::move(plan), pd, d, dnnl_query_src_md, dnnl_query_diff_dst_md,
                dnnl_query_diff_weights_md);
}

// Whether the weight-gradient form suits the case: a kernel with at least four times as
// many taps as the result has positions (the forward kernels are built for the opposite;
// a kernel adjoint has an image's positions as its taps and a kernel's taps as its result).
bool KernelOutweighsResult(const ConvGeometry& g) {
  int64_t taps = 1, positions = 1;
  for (size_t i = 0; i < g.window.size(); ++i) {
    taps *= g.window[i].size;
    positions *= g.out_size[i];
  }
  return taps >= 4 * positions;
}

// One part of the batch: reorder in, convolve, reorder out, on this thread alone (no
// reorder for an operand given in, or a result kept in, oneDNN's layout); `rhs` is already
// in oneDNN's layout. Returns false where any oneDNN call fails (the caller then
// recomputes the convolution on another path, so no result is left half written).
bool RunPart(const ConvolutionPlan::OneDnn& p, const uint8_t* lhs, void* rhs, const uint8_t* bias,
             const uint8_t* residual, uint8_t* out) {
  ThreadScratch& scratch = LocalScratch();
  dnnl_memory_t user_lhs = p.lhs_given ? nullptr : Memory(p.user_lhs, const_cast<uint8_t*>(lhs));
  dnnl_memory_t user_out = p.out_kept ? nullptr : Memory(p.user_out, out);
  dnnl_memory_t a = user_lhs, c = user_out;
  bool ok = true;
  if (p.lhs_given) {
    a = Memory(p.lhs, const_cast<uint8_t*>(lhs));
  } else if (p.lhs_in != nullptr) {
    a = Memory(p.lhs, scratch.src.Get(dnnl_memory_desc_get_size(&p.lhs)));
    ok = Execute(p.lhs_in, {{DNNL_ARG_FROM, user_lhs}, {DNNL_ARG_TO, a}});
  }
  if (p.out_kept) {
    c = Memory(p.out, out);
  } else if (p.out_back != nullptr) {
    c = Memory(p.out, scratch.dst.Get(dnnl_memory_desc_get_size(&p.out)));
  }
  dnnl_memory_t b = Memory(p.rhs, rhs);
  dnnl_memory_t pad =
      Memory(p.scratchpad,
             scratch.pad.Get(std::max<size_t>(dnnl_memory_desc_get_size(&p.scratchpad), 64)));
  if (p.weight_gradient) {
    ok = ok && Execute(p.conv, {{DNNL_ARG_SRC, a},
                                {DNNL_ARG_DIFF_DST, b},
                                {DNNL_ARG_DIFF_WEIGHTS, c},
                                {DNNL_ARG_SCRATCHPAD, pad}});
  } else {
    dnnl_memory_t bias_memory = p.bias ? Memory(p.bias_md, const_cast<uint8_t*>(bias)) : nullptr;
    // The residual goes into the result's memory first; the sum post-op adds to it.
    if (p.residual && p.residual_in != nullptr) {
      dnnl_memory_t from = Memory(p.user_out, const_cast<uint8_t*>(residual));
      ok = ok && Execute(p.residual_in, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, c}});
      Destroy({from});
    } else if (p.residual && residual != out) {
      std::memcpy(out, residual, dnnl_memory_desc_get_size(&p.user_out));
    }
    ok = ok && Execute(p.conv, {{DNNL_ARG_SRC, a},
                                {DNNL_ARG_WEIGHTS, b},
                                {p.bias ? DNNL_ARG_BIAS : onednn::kUnusedArgument, bias_memory},
                                {DNNL_ARG_DST, c},
                                {DNNL_ARG_SCRATCHPAD, pad}});
    Destroy({bias_memory});
  }
  if (p.out_back != nullptr && !p.out_kept) {
    ok = ok && Execute(p.out_back, {{DNNL_ARG_FROM, c}, {DNNL_ARG_TO, user_out}});
  }
  Destroy({user_lhs, user_out, b, pad});
  if (a != user_lhs) Destroy({a});
  if (c != user_out) Destroy({c});
  return ok;
}

}  // namespace

void ConvolutionPlan::Choose() {
  const ConvPaths choice = ConvChoice();
  const bool post = post_.any();
  if (choice == ConvPaths::kAuto && Eligible(geometry_)) {
    if (!post && KernelOutweighsResult(geometry_)) onednn_ = BuildWeightGradient(geometry_);
    if (onednn_ == nullptr) onednn_ = BuildForward(geometry_, post_);
  }
  // A plan with an epilogue is only ever run on oneDNN (the executable keeps the epilogue
  // as its own step otherwise, fusion_epilogue.h).
  gemm_ = onednn_ == nullptr && choice != ConvPaths::kDirect && ConvolutionGemmFits(geometry_);
}

bool ConvolutionPlan::uses_weight_gradient() const {
  return onednn_ != nullptr && onednn_->weight_gradient;
}

std::string_view ConvolutionPlan::onednn_implementation() const {
  return onednn_ != nullptr ? std::string_view(onednn_->implementation) : std::string_view();
}

namespace {

// The same convolution on the matrix-product path where it fits, else the direct loop
// (after a failed oneDNN call: it refuses nothing a plan passes, but memory may run out).
void Fallback(const ConvGeometry& g, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out) {
  if (ConvolutionGemmFits(g)) return ConvolutionGemm(g, lhs, rhs, out);
  ConvolutionDirect(g, lhs, rhs, out);
}

// The rhs in oneDNN's layout: reordered once per run, on this thread, into its scratch
// (the parts only read it while this thread waits for them); null if the reorder failed.
void* ReadyRhs(const ConvolutionPlan::OneDnn& p, const uint8_t* rhs) {
  void* user = const_cast<uint8_t*>(rhs);
  if (p.rhs_in == nullptr || p.rhs_given) return user;
  uint8_t* to_data =
      LocalScratch().rhs.Get(std::max<size_t>(dnnl_memory_desc_get_size(&p.rhs), 64));
  dnnl_memory_t from = Memory(p.user_rhs, user);
  dnnl_memory_t to = Memory(p.rhs, to_data);
  const bool ok = Execute(p.rhs_in, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
  Destroy({from, to});
  return ok ? to_data : nullptr;
}

}  // namespace

bool ConvolutionPlan::Run(const uint8_t* lhs, const uint8_t* rhs, uint8_t* out, const uint8_t* bias,
                          const uint8_t* residual) const {
  const ConvGeometry& g = geometry_;
  if (onednn_ == nullptr) {
    gemm_ ? ConvolutionGemm(g, lhs, rhs, out) : ConvolutionDirect(g, lhs, rhs, out);
    ApplyPostOps(g, post_, bias, residual, out);
    return true;
  }
  const OneDnn& p = *onednn_;
  // Operands in oneDNN's layouts have no other path to fall back on.
  const bool layouts = p.lhs_given || p.rhs_given || p.out_kept;
  const int saved_threads = omp_get_max_threads();
  if (saved_threads != 1) omp_set_num_threads(1);
  void* rhs_ready = ReadyRhs(p, rhs);
  if (rhs_ready == nullptr) {
    if (saved_threads != 1) omp_set_num_threads(saved_threads);
    if (layouts) return false;
    Fallback(g, lhs, rhs, out);
    ApplyPostOps(g, post_, bias, residual, out);
    return true;
  }
  const int64_t bytes = static_cast<int64_t>(ir::DTypeSize(g.dtype));
  const int64_t in_step = p.lhs_given ? static_cast<int64_t>(LayoutBytes(*p.lhs_layout)) / p.parts
                                      : p.part_batch * g.lhs_batch_stride * bytes;
  // The residual is always in the user's layout.
  const int64_t residual_step = p.part_batch * g.out_batch_stride * bytes;
  const int64_t out_step =
      p.out_kept ? static_cast<int64_t>(LayoutBytes(*p.out_layout)) / p.parts : residual_step;
  std::vector<uint8_t> failed(static_cast<size_t>(p.parts), 0);
  ConvGeometry part_geometry = g;
  part_geometry.batch = p.part_batch;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const uint8_t* part_residual =
          residual == nullptr ? nullptr : residual + part * residual_step;
      const bool ok =
          RunPart(p, lhs + part * in_step, rhs_ready, bias, part_residual, out + part * out_step);
      failed[part] = ok ? 0 : 1;
      if (ok && p.post_after) {
        ApplyPostOps(part_geometry, post_, bias, part_residual, out + part * out_step);
      }
    }
  };
  if (p.parts == 1) {
    run(0, 1);
  } else {
    ParallelFor(p.parts, [&](int64_t begin, int64_t end) {
      const int threads = omp_get_max_threads();
      if (threads != 1) omp_set_num_threads(1);
      run(begin, end);
      if (threads != 1) omp_set_num_threads(threads);
    });
  }
  if (saved_threads != 1) omp_set_num_threads(saved_threads);
  // A part whose oneDNN call failed: that part again on another path.
  for (int64_t part = 0; part < p.parts; ++part) {
    if (failed[part] == 0) continue;
    if (layouts) return false;
    Fallback(part_geometry, lhs + part * in_step, rhs, out + part * out_step);
    ApplyPostOps(part_geometry, post_, bias,
                 residual == nullptr ? nullptr : residual + part * out_step, out + part * out_step);
  }
  return true;
}

const std::shared_ptr<const DeviceLayout>& ConvolutionPlan::lhs_layout() const {
  return onednn_ != nullptr ? onednn_->lhs_layout : DenseLayout();
}

const std::shared_ptr<const DeviceLayout>& ConvolutionPlan::rhs_layout() const {
  return onednn_ != nullptr ? onednn_->rhs_layout : DenseLayout();
}

const std::shared_ptr<const DeviceLayout>& ConvolutionPlan::out_layout() const {
  return onednn_ != nullptr ? onednn_->out_layout : DenseLayout();
}

bool ConvolutionPlan::PreferResultInOneDnnLayout() {
  if (onednn_ == nullptr || onednn_->weight_gradient || onednn_->out_layout != nullptr ||
      post_.any()) {
    return false;
  }
  std::unique_ptr<OneDnn> again = BuildForward(geometry_, post_, {.result_may_stay = true});
  if (again == nullptr || again->out_layout == nullptr) return false;
  onednn_ = std::move(again);
  return true;
}

void ConvolutionPlan::UseLayouts(bool lhs, bool rhs, bool out) {
  if (onednn_ == nullptr) return;
  OneDnn& p = *onednn_;
  // With no reorder left in the parts, the batch need not be split for the cache: the
  // plan again with fewer, larger parts, where oneDNN keeps the same layouts for them.
  const bool lhs_stays = p.lhs_in == nullptr || (lhs && p.lhs_layout != nullptr);
  const bool out_stays = p.out_back == nullptr || (out && p.out_layout != nullptr);
  if (!p.weight_gradient && !p.post_after && lhs_stays && out_stays &&
      Parts(geometry_, false) < p.parts) {
    std::unique_ptr<OneDnn> again = BuildForward(
        geometry_, post_, {.result_may_stay = p.out_layout != nullptr && out, .reorders = false});
    if (again != nullptr && SameLayout(again->lhs_layout.get(), p.lhs_layout.get()) &&
        SameLayout(again->rhs_layout.get(), p.rhs_layout.get()) &&
        SameLayout(again->out_layout.get(), p.out_layout.get()) &&
        (again->lhs_in == nullptr) == (p.lhs_in == nullptr) &&
        (again->out_back == nullptr) == (p.out_back == nullptr)) {
      onednn_ = std::move(again);
    }
  }
  onednn_->lhs_given = lhs && onednn_->lhs_layout != nullptr;
  onednn_->rhs_given = rhs && onednn_->rhs_layout != nullptr;
  onednn_->out_kept = out && onednn_->out_layout != nullptr;
}

void InitializeConvolutionsOnce() {
  static std::once_flag once;
  if (ConvChoice() != ConvPaths::kAuto) return;  // a later client may still need it
  std::call_once(once, [] {
    ir::Instruction conv;
    conv.op = ir::Op::kConvolution;
    conv.shape = {ir::DType::kF32, {2, 16, 8, 8}};
    conv.attrs = {{"input_batch_dim", {0}},          {"input_feature_dim", {1}},
                  {"input_spatial_dims", {2, 3}},    {"kernel_output_feature_dim", {0}},
                  {"kernel_input_feature_dim", {1}}, {"kernel_spatial_dims", {2, 3}},
                  {"output_batch_dim", {0}},         {"output_feature_dim", {1}},
                  {"output_spatial_dims", {2, 3}},   {"feature_group_count", {1}},
                  {"window_strides", {1, 1}},        {"padding_low", {1, 1}},
                  {"padding_high", {1, 1}},          {"lhs_dilation", {1, 1}},
                  {"rhs_dilation", {1, 1}}};
    const ir::Shape lhs{ir::DType::kF32, {2, 16, 8, 8}}, rhs{ir::DType::kF32, {16, 16, 3, 3}};
    std::vector<float> x(static_cast<size_t>(lhs.num_elements()), 1.0f);
    std::vector<float> w(static_cast<size_t>(rhs.num_elements()), 1.0f);
    std::vector<float> y(static_cast<size_t>(conv.shape.num_elements()));
    ConvolutionPlan(conv, lhs, rhs)
        .Run(reinterpret_cast<const uint8_t*>(x.data()), reinterpret_cast<const uint8_t*>(w.data()),
             reinterpret_cast<uint8_t*>(y.data()));
  });
}

#else  // no oneDNN: every convolution runs the direct loop.

void InitializeConvolutionsOnce() {}

struct ConvolutionPlan::OneDnn {};

void ConvolutionPlan::Choose() {
  gemm_ = ConvChoice() != ConvPaths::kDirect && ConvolutionGemmFits(geometry_);
}

bool ConvolutionPlan::uses_weight_gradient() const { return false; }

std::string_view ConvolutionPlan::onednn_implementation() const { return {}; }

bool ConvolutionPlan::Run(const uint8_t* lhs, const uint8_t* rhs, uint8_t* out, const uint8_t* bias,
                          const uint8_t* residual) const {
  gemm_ ? ConvolutionGemm(geometry_, lhs, rhs, out) : ConvolutionDirect(geometry_, lhs, rhs, out);
  ApplyPostOps(geometry_, post_, bias, residual, out);
  return true;
}

const std::shared_ptr<const DeviceLayout>& ConvolutionPlan::lhs_layout() const {
  return DenseLayout();
}
const std::shared_ptr<const DeviceLayout>& ConvolutionPlan::rhs_layout() const {
  return lhs_layout();
}
const std::shared_ptr<const DeviceLayout>& ConvolutionPlan::out_layout() const {
  return lhs_layout();
}
bool ConvolutionPlan::PreferResultInOneDnnLayout() { return false; }
void ConvolutionPlan::UseLayouts(bool, bool, bool) {}

#endif

bool ConvolutionPlan::fuses_post_ops() const { return post_.any() && uses_onednn(); }

ConvolutionPlan::ConvolutionPlan(const ir::Instruction& conv, const ir::Shape& lhs,
                                 const ir::Shape& rhs, ConvPostOps post)
    : geometry_(ConvGeometryOf(conv, lhs, rhs)), post_(post) {
  Choose();
}

ConvolutionPlan::~ConvolutionPlan() = default;

}  // namespace seam::cpu
