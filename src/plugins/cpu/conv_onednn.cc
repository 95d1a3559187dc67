// ConvolutionPlan (kernels_window.h): f32 and bf16 convolutions (bf16 accumulates in f32
// inside oneDNN) with 1 to 3 spatial dimensions, no lhs dilation, padding >= 0 and a
// non-empty result run on oneDNN when this build links it, oneDNN has a JIT kernel for the
// case, and SEAM_CPU_CONV (docs/plugins.md "Convolutions") allows; everything else runs as
// matrix products (conv_gemm.cc) or, where those do not fit, the direct loop. oneDNN reads
// and writes the operands in their own layout (any dimension numbers are strided memory
// descriptors) and picks its own layouts for the computation, so each run reorders in and
// out where they differ; the batch is split over the kernel threads, one single-threaded
// oneDNN call per part.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/kernels_window.h"
#include "src/plugins/cpu/thread_pool.h"

#ifdef SEAM_HAVE_ONEDNN
#include <omp.h>

#include "oneapi/dnnl/dnnl.h"
#include "src/plugins/cpu/onednn_common.h"
#endif

namespace seam::cpu {

namespace {

// SEAM_CPU_CONV: "direct" keeps every convolution on the direct loop, "gemm" on matrix
// products where they fit (comparisons, tests); anything else (unset, "auto") tries
// oneDNN first.
std::string ConvChoice() {
  const char* env = std::getenv(kConvolutionVariable);
  return env == nullptr ? "auto" : env;
}

}  // namespace

absl::Status CheckConvolutionVariable() {
  const std::string choice = ConvChoice();
  if (choice.empty() || choice == "auto" || choice == "gemm" || choice == "direct") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("PJRT_Client_Create: environment variable ", kConvolutionVariable,
                   " must be auto, gemm or direct, got '", choice, "'"));
}

#ifdef SEAM_HAVE_ONEDNN

using onednn::Destroy;
using onednn::Engine;
using onednn::Execute;
using onednn::LocalScratch;
using onednn::MakeReorder;
using onednn::Memory;
using onednn::ThreadScratch;

struct ConvolutionPlan::OneDnn {
  int64_t parts = 1;
  int64_t part_batch = 0;
  // The operands' own layouts (for one part's batch) and oneDNN's.
  dnnl_memory_desc_t user_src{}, user_weights{}, user_dst{};
  dnnl_memory_desc_t src{}, weights{}, dst{}, scratchpad{};
  dnnl_primitive_t conv = nullptr;
  dnnl_primitive_t src_in = nullptr, weights_in = nullptr, dst_out = nullptr;

  ~OneDnn() {
    for (dnnl_primitive_t p : {conv, src_in, weights_in, dst_out}) {
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

// The largest part count <= the kernel threads that divides the batch evenly.
int64_t Parts(int64_t batch) {
  int64_t parts = std::min<int64_t>(KernelThreads(), batch);
  while (parts > 1 && batch % parts != 0) --parts;
  return std::max<int64_t>(parts, 1);
}

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

// Builds the primitives, or returns null where oneDNN refuses the case.
std::unique_ptr<ConvolutionPlan::OneDnn> BuildOneDnn(const ConvGeometry& g) {
  auto plan = std::make_unique<ConvolutionPlan::OneDnn>();
  plan->parts = Parts(g.batch);
  plan->part_batch = g.batch / plan->parts;
  const size_t spatial = g.window.size();
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
  dnnl_dims_t strides, dilates, pad_l, pad_r;
  for (size_t i = 0; i < spatial; ++i) {
    src_dims.push_back(g.in_size[i]);
    src_strides.push_back(g.lhs_spatial_stride[i]);
    dst_dims.push_back(g.out_size[i]);
    dst_strides.push_back(g.out_spatial_stride[i]);
    w_dims.push_back(g.window[i].size);
    w_strides.push_back(g.rhs_spatial_stride[i]);
    strides[i] = g.window[i].stride;
    dilates[i] = g.window[i].window_dilation - 1;
    pad_l[i] = g.window[i].pad_low;
    // oneDNN wants the right padding that its own output-size formula needs; ours may
    // pad further than the last window reaches (those positions are never read).
    const int64_t extent = (g.window[i].size - 1) * g.window[i].window_dilation + 1;
    pad_r[i] = (g.out_size[i] - 1) * g.window[i].stride + extent - g.in_size[i] - pad_l[i];
  }
  const dnnl_data_type_t type = DataType(g.dtype);
  Strided(&plan->user_src, src_dims, src_strides, type);
  Strided(&plan->user_dst, dst_dims, dst_strides, type);
  Strided(&plan->user_weights, w_dims, w_strides, type);
  dnnl_memory_desc_t any_src, any_w, any_dst;
  Any(&any_src, src_dims, type);
  Any(&any_w, w_dims, type);
  Any(&any_dst, dst_dims, type);
  dnnl_convolution_desc_t desc;
  if (dnnl_dilated_convolution_forward_desc_init(
          &desc, dnnl_forward_inference, dnnl_convolution_auto, &any_src, &any_w, nullptr, &any_dst,
          strides, dilates, pad_l, pad_r) != dnnl_success) {
    return nullptr;
  }
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_primitive_attr_create(&attr);
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  dnnl_primitive_desc_t pd = nullptr;
  const dnnl_status_t made = dnnl_primitive_desc_create(&pd, &desc, attr, Engine(), nullptr);
  dnnl_primitive_attr_destroy(attr);
  if (made != dnnl_success) return nullptr;
  // oneDNN's reference implementations (no JIT kernel for this CPU and case, e.g. bf16
  // without AVX-512) are slower than the matrix-product path: leave the case to it.
  const char* impl = nullptr;
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  if (impl == nullptr || std::string(impl).rfind("ref", 0) == 0) {
    dnnl_primitive_desc_destroy(pd);
    return nullptr;
  }
  plan->src = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  plan->weights = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  plan->dst = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  plan->scratchpad = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  const dnnl_status_t created = dnnl_primitive_create(&plan->conv, pd);
  dnnl_primitive_desc_destroy(pd);
  if (created != dnnl_success) return nullptr;
  plan->src_in = MakeReorder(plan->user_src, plan->src);
  plan->weights_in = MakeReorder(plan->user_weights, plan->weights);
  plan->dst_out = MakeReorder(plan->dst, plan->user_dst);
  const bool missing =
      (plan->src_in == nullptr && !dnnl_memory_desc_equal(&plan->user_src, &plan->src)) ||
      (plan->weights_in == nullptr &&
       !dnnl_memory_desc_equal(&plan->user_weights, &plan->weights)) ||
      (plan->dst_out == nullptr && !dnnl_memory_desc_equal(&plan->dst, &plan->user_dst));
  if (missing) return nullptr;
  return plan;
}

// One part of the batch: reorder in, convolve, reorder out, on this thread alone.
// Returns false where any oneDNN call fails (the caller then recomputes the convolution
// on another path, so no result is left half written).
bool RunPart(const ConvolutionPlan::OneDnn& p, const uint8_t* lhs, void* weights, uint8_t* out) {
  ThreadScratch& scratch = LocalScratch();
  dnnl_memory_t user_src = Memory(p.user_src, const_cast<uint8_t*>(lhs));
  dnnl_memory_t user_dst = Memory(p.user_dst, out);
  dnnl_memory_t src = user_src, dst = user_dst;
  bool ok = true;
  if (p.src_in != nullptr) {
    src = Memory(p.src, scratch.src.Get(dnnl_memory_desc_get_size(&p.src)));
    ok = Execute(p.src_in, {{DNNL_ARG_FROM, user_src}, {DNNL_ARG_TO, src}});
  }
  if (p.dst_out != nullptr) dst = Memory(p.dst, scratch.dst.Get(dnnl_memory_desc_get_size(&p.dst)));
  dnnl_memory_t w = Memory(p.weights, weights);
  dnnl_memory_t pad =
      Memory(p.scratchpad,
             scratch.pad.Get(std::max<size_t>(dnnl_memory_desc_get_size(&p.scratchpad), 64)));
  ok = ok && Execute(p.conv, {{DNNL_ARG_SRC, src},
                              {DNNL_ARG_WEIGHTS, w},
                              {DNNL_ARG_DST, dst},
                              {DNNL_ARG_SCRATCHPAD, pad}});
  if (p.dst_out != nullptr) {
    ok = ok && Execute(p.dst_out, {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, user_dst}});
  }
  Destroy({user_src, user_dst, w, pad});
  if (src != user_src) Destroy({src});
  if (dst != user_dst) Destroy({dst});
  return ok;
}

}  // namespace

void ConvolutionPlan::Choose() {
  const std::string choice = ConvChoice();
  if (choice != "direct" && choice != "gemm" && Eligible(geometry_)) {
    onednn_ = BuildOneDnn(geometry_);
  }
  gemm_ = onednn_ == nullptr && choice != "direct" && ConvolutionGemmFits(geometry_);
}

void ConvolutionPlan::Run(const uint8_t* lhs, const uint8_t* rhs, uint8_t* out) const {
  if (gemm_) return ConvolutionGemm(geometry_, lhs, rhs, out);
  if (onednn_ == nullptr) return ConvolutionDirect(geometry_, lhs, rhs, out);
  const OneDnn& p = *onednn_;
  const int saved_threads = omp_get_max_threads();
  if (saved_threads != 1) omp_set_num_threads(1);
  // The weights are reordered once per run, on this thread, for every part.
  std::atomic<bool> ok{true};
  void* weights = const_cast<uint8_t*>(rhs);
  std::unique_ptr<uint8_t, decltype(&std::free)> weights_copy(nullptr, &std::free);
  if (p.weights_in != nullptr) {
    const size_t size = (dnnl_memory_desc_get_size(&p.weights) + 63) / 64 * 64;
    weights_copy.reset(static_cast<uint8_t*>(std::aligned_alloc(64, std::max<size_t>(size, 64))));
    dnnl_memory_t from = Memory(p.user_weights, weights);
    dnnl_memory_t to = Memory(p.weights, weights_copy.get());
    ok = Execute(p.weights_in, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
    Destroy({from, to});
    weights = weights_copy.get();
  }
  const int64_t bytes = static_cast<int64_t>(ir::DTypeSize(geometry_.dtype));
  const int64_t in_step = p.part_batch * geometry_.lhs_batch_stride * bytes;
  const int64_t out_step = p.part_batch * geometry_.out_batch_stride * bytes;
  if (!ok) {
    // Nothing to do: the fallback below computes everything.
  } else if (p.parts == 1) {
    ok = RunPart(p, lhs, weights, out);
  } else {
    ParallelFor(p.parts, [&](int64_t first, int64_t last) {
      const int threads = omp_get_max_threads();
      if (threads != 1) omp_set_num_threads(1);
      for (int64_t part = first; part < last; ++part) {
        if (!RunPart(p, lhs + part * in_step, weights, out + part * out_step)) ok = false;
      }
      if (threads != 1) omp_set_num_threads(threads);
    });
  }
  if (saved_threads != 1) omp_set_num_threads(saved_threads);
  // A failed oneDNN call (it refuses nothing this plan passes; memory may run out): the
  // same convolution on the matrix-product path, or the direct loop.
  if (!ok) {
    if (ConvolutionGemmFits(geometry_)) return ConvolutionGemm(geometry_, lhs, rhs, out);
    ConvolutionDirect(geometry_, lhs, rhs, out);
  }
}

void InitializeConvolutionsOnce() {
  static std::once_flag once;
  const std::string choice = ConvChoice();
  if (choice == "gemm" || choice == "direct") return;  // a later client may still need it
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
  gemm_ = ConvChoice() != "direct" && ConvolutionGemmFits(geometry_);
}

void ConvolutionPlan::Run(const uint8_t* lhs, const uint8_t* rhs, uint8_t* out) const {
  if (gemm_) return ConvolutionGemm(geometry_, lhs, rhs, out);
  ConvolutionDirect(geometry_, lhs, rhs, out);
}

#endif

ConvolutionPlan::ConvolutionPlan(const ir::Instruction& conv, const ir::Shape& lhs,
                                 const ir::Shape& rhs)
    : geometry_(ConvGeometryOf(conv, lhs, rhs)) {
  Choose();
}

ConvolutionPlan::~ConvolutionPlan() = default;

}  // namespace seam::cpu
