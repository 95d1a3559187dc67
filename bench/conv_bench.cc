// f32 convolutions (issue 16): seam's convolution through the runtime (compile once, run)
// beside oneDNN called directly on the same shapes. Cases: ResNet-style 3x3 64->64 on
// 56x56, batch 8 (NCHW and NHWC), and the Fashion-MNIST CNN's two layers (batch 64).
//   seam/onednn   the CPU plugin's default path (oneDNN where it serves the case), the same
//                 input buffer every run: the first run converts it into oneDNN's layout
//                 and keeps the copy, the result stays in oneDNN's layout (docs/cpu-plugin.md
//                 "On-device layouts")
//   seam/onednn_dense_layouts   the same with SEAM_CPU_LAYOUTS=dense: each run reorders the
//                 input and the result (per cache-sized part of the batch)
//   seam/onednn_fresh_input     a new upload before each run (not timed): each run converts
//                 its input (a training loop's new batch)
//   seam/onednn_chained         each run's input is the previous run's result (64->64
//                 only): it arrives in oneDNN's layout
//   seam/gemm     the plugin's matrix-product path (SEAM_CPU_CONV=gemm at compile time),
//                 which serves the cases oneDNN does not (f64, bf16, lhs dilation, ...)
//   seam/direct   the plugin's direct loop (SEAM_CPU_CONV=direct at compile time)
//   seam/bias_relu_epilogue, seam/bias_relu_separate
//                 relu(convolution + bias) with the bias and relu as the convolution's
//                 epilogue (inside oneDNN's call) or as a loop of their own
//                 (SEAM_CPU_EPILOGUES=off); onednn/plain_bias_relu and best_bias_relu do
//                 the same work in one oneDNN call (a bias operand and a relu post-op)
//   seam/bn_relu_epilogue, seam/bn_relu_separate
//                 relu(batch norm in evaluation mode (convolution)): the per-channel
//                 arithmetic folded into the weights and bias of the convolution's call,
//                 or a loop of its own
//   seam/residual_epilogue, seam/residual_separate
//                 relu(convolution + bias + input), a residual block's tail (64->64 only)
//   onednn/plain  oneDNN on the same plain-layout memory (NCHW or NHWC in and out), letting
//                 it pick its own layouts and paying the reorders, as seam does
//   onednn/best   the oneDNN convolution primitive alone on its preferred layouts
// The figure that counts is 1 thread: SEAM_CPU_THREADS=1 OMP_NUM_THREADS=1.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "oneapi/dnnl/dnnl.h"

extern "C" char* openblas_get_corename(void);

namespace seam::bench {
namespace {

struct Case {
  const char* name;
  int64_t n, c, o, hw, k, pad;
  bool nhwc;
  bool bf16 = false;  // seam only: bf16 operands (oneDNN's bf16 kernels where the CPU has them)
};
const Case kCases[] = {{"resnet3x3_64_56_b8_nchw", 8, 64, 64, 56, 3, 1, false},
                       {"resnet3x3_64_56_b8_nhwc", 8, 64, 64, 56, 3, 1, true},
                       {"cnn_conv1_1to32_28_b64", 64, 1, 32, 28, 3, 1, false},
                       {"cnn_conv2_32to64_14_b64", 64, 32, 64, 14, 3, 1, false},
                       {"resnet3x3_64_56_b8_nchw_bf16", 8, 64, 64, 56, 3, 1, false, true}};

double Flops(const Case& c) { return 2.0 * c.n * c.o * c.hw * c.hw * c.c * c.k * c.k; }

std::string ConvText(const Case& c) {
  const std::string t = c.bf16 ? "bf16[" : "f32[";
  const std::string in = c.nhwc ? absl::StrCat(t, c.n, ",", c.hw, ",", c.hw, ",", c.c, "]")
                                : absl::StrCat(t, c.n, ",", c.c, ",", c.hw, ",", c.hw, "]");
  const std::string kernel = c.nhwc ? absl::StrCat(t, c.k, ",", c.k, ",", c.c, ",", c.o, "]")
                                    : absl::StrCat(t, c.o, ",", c.c, ",", c.k, ",", c.k, "]");
  const std::string out = c.nhwc ? absl::StrCat(t, c.n, ",", c.hw, ",", c.hw, ",", c.o, "]")
                                 : absl::StrCat(t, c.n, ",", c.o, ",", c.hw, ",", c.hw, "]");
  const std::string dims =
      c.nhwc ? "input_batch_dim={0}, input_feature_dim={3}, input_spatial_dims={1,2}, "
               "kernel_input_feature_dim={2}, kernel_output_feature_dim={3}, "
               "kernel_spatial_dims={0,1}, output_batch_dim={0}, output_feature_dim={3}, "
               "output_spatial_dims={1,2}"
             : "input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2,3}, "
               "kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, "
               "kernel_spatial_dims={2,3}, output_batch_dim={0}, output_feature_dim={1}, "
               "output_spatial_dims={2,3}";
  return absl::StrCat("program @conv {\n  %0 = parameter(0) : ", in,
                      "\n  %1 = parameter(1) : ", kernel, "\n  %2 = convolution(%0, %1), ", dims,
                      ", feature_group_count={1}, window_strides={1,1}, padding_low={", c.pad, ",",
                      c.pad, "}, padding_high={", c.pad, ",", c.pad,
                      "}, lhs_dilation={1,1}, rhs_dilation={1,1} : ", out, "\n  return (%2)\n}\n");
}

void SetCounters(benchmark::State& state, const Case& c) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      Flops(c), benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// How the seam run gets its input: the same uploaded buffer every run (its converted copy,
// made by the first run, is read again: docs/cpu-plugin.md "On-device layouts"), a new upload
// before each run (converted each time; the upload itself is not timed), or the previous
// run's result (a chain of layers of one shape: it arrives in oneDNN's layout).
enum class Input { kSame, kFresh, kChained };

// `mode`: SEAM_CPU_CONV while compiling ("auto", "gemm" or "direct"); `layouts`:
// SEAM_CPU_LAYOUTS ("auto", or "dense": every run reorders its input and its result).
void BM_Seam(benchmark::State& state, const Case& c, const char* mode, const char* layouts = "auto",
             Input input = Input::kSame) {
  setenv("SEAM_CPU_CONV", mode, 1);
  setenv("SEAM_CPU_LAYOUTS", layouts, 1);
  auto computation = CompileText(ConvText(c));
  unsetenv("SEAM_CPU_CONV");
  unsetenv("SEAM_CPU_LAYOUTS");
  auto literal = [&](std::vector<float> values, std::vector<int64_t> dims) {
    return c.bf16 ? ir::Literal::FromBF16(values, dims) : ir::Literal::FromF32(values, dims);
  };
  auto args = Upload({literal(RandomFloats(size_t(c.n * c.c * c.hw * c.hw), 1),
                              c.nhwc ? std::vector<int64_t>{c.n, c.hw, c.hw, c.c}
                                     : std::vector<int64_t>{c.n, c.c, c.hw, c.hw}),
                      literal(RandomFloats(size_t(c.o * c.c * c.k * c.k), 2),
                              c.nhwc ? std::vector<int64_t>{c.k, c.k, c.c, c.o}
                                     : std::vector<int64_t>{c.o, c.c, c.k, c.k})});
  const ir::Literal image = literal(RandomFloats(size_t(c.n * c.c * c.hw * c.hw), 1),
                                    c.nhwc ? std::vector<int64_t>{c.n, c.hw, c.hw, c.c}
                                           : std::vector<int64_t>{c.n, c.c, c.hw, c.hw});
  for (auto _ : state) {
    if (input == Input::kFresh) {
      state.PauseTiming();
      args[0] = Upload({image})[0];
      state.ResumeTiming();
    }
    if (input != Input::kChained) {
      RunAndWait(*computation, args);
      continue;
    }
    auto outputs = Client().ExecuteComputation(*computation, args, Client().GetDefaultDevice(), {});
    if (!outputs.ok() || !(*outputs)[0]->AwaitReady().ok()) {
      state.SkipWithError("the chained run failed");
      break;
    }
    args[0] = (*outputs)[0];  // the next layer's input (the same shape)
  }
  SetCounters(state, c);
}

// relu(convolution + per-channel bias), NCHW: `epilogues` sets SEAM_CPU_EPILOGUES while
// compiling, so the bias and relu run inside the convolution's oneDNN call ("on") or as a loop
// of their own over the whole result afterwards ("off").
// `residual`: relu(convolution + bias + input) instead, a residual block's tail (the
// input and result shapes must agree).
void BM_SeamBiasRelu(benchmark::State& state, const Case& c, const char* epilogues,
                     bool residual = false) {
  std::string text = ConvText(c);
  const std::string out = absl::StrCat("f32[", c.n, ",", c.o, ",", c.hw, ",", c.hw, "]");
  const std::string tail = "  return (%2)\n}\n";
  text.replace(text.find(tail), tail.size(),
               absl::StrCat("  %3 = parameter(2) : f32[", c.o, "]\n  %4 = broadcast_in_dim(%3), ",
                            "dims={1} : ", out, "\n  %5 = add(%2, %4) : ", out,
                            residual ? absl::StrCat("\n  %9 = add(%5, %0) : ", out) : "",
                            "\n  %6 = constant(0) : f32[]\n  %7 = broadcast_in_dim(%6), dims={} : ",
                            out, "\n  %8 = maximum(", residual ? "%9" : "%5", ", %7) : ", out,
                            "\n  return (%8)\n}\n"));
  setenv("SEAM_CPU_EPILOGUES", epilogues, 1);
  auto computation = CompileText(text);
  unsetenv("SEAM_CPU_EPILOGUES");
  auto args = Upload(
      {ir::Literal::FromF32(RandomFloats(size_t(c.n * c.c * c.hw * c.hw), 1),
                            {c.n, c.c, c.hw, c.hw}),
       ir::Literal::FromF32(RandomFloats(size_t(c.o * c.c * c.k * c.k), 2), {c.o, c.c, c.k, c.k}),
       ir::Literal::FromF32(RandomFloats(size_t(c.o), 3), {c.o})});
  for (auto _ : state) RunAndWait(*computation, args);
  SetCounters(state, c);
}

// relu(batch_norm(convolution)) in evaluation mode, NCHW, as nn::batch_norm writes it:
// (conv - mean) * rsqrt(var + eps) * gamma + beta per channel. With epilogues on ("on")
// the plugin folds the per-channel arithmetic into the weights and a bias before each run
// and the convolution's oneDNN call does the rest; "off" runs it as a loop of its own.
void BM_SeamBatchNormRelu(benchmark::State& state, const Case& c, const char* epilogues) {
  std::string text = ConvText(c);
  const std::string out = absl::StrCat("f32[", c.n, ",", c.o, ",", c.hw, ",", c.hw, "]");
  const std::string vec = absl::StrCat("f32[", c.o, "]");
  auto per_channel = [&](const std::string& name, const std::string& v) {
    return absl::StrCat("\n  ", name, " = broadcast_in_dim(", v, "), dims={1} : ", out);
  };
  const std::string tail = "  return (%2)\n}\n";
  text.replace(
      text.find(tail), tail.size(),
      absl::StrCat("  %m = parameter(2) : ", vec, "\n  %v = parameter(3) : ", vec,
                   "\n  %g = parameter(4) : ", vec, "\n  %b = parameter(5) : ", vec,
                   "\n  %e = constant(1e-05) : f32[]\n  %eb = broadcast_in_dim(%e), dims={} : ",
                   vec, "\n  %ve = add(%v, %eb) : ", vec, "\n  %r = rsqrt(%ve) : ", vec,
                   per_channel("%mb", "%m"), "\n  %y1 = subtract(%2, %mb) : ", out,
                   per_channel("%rb", "%r"), "\n  %y2 = multiply(%y1, %rb) : ", out,
                   per_channel("%gb", "%g"), "\n  %y3 = multiply(%y2, %gb) : ", out,
                   per_channel("%bb", "%b"), "\n  %y4 = add(%y3, %bb) : ", out,
                   "\n  %z = constant(0) : f32[]\n  %zb = broadcast_in_dim(%z), dims={} : ", out,
                   "\n  %y = maximum(%y4, %zb) : ", out, "\n  return (%y)\n}\n"));
  setenv("SEAM_CPU_EPILOGUES", epilogues, 1);
  auto computation = CompileText(text);
  unsetenv("SEAM_CPU_EPILOGUES");
  std::vector<float> var = RandomFloats(size_t(c.o), 4);
  for (float& v : var) v = 0.5f + v * v;
  const std::vector<int64_t> channels = {c.o};
  auto args = Upload(
      {ir::Literal::FromF32(RandomFloats(size_t(c.n * c.c * c.hw * c.hw), 1),
                            {c.n, c.c, c.hw, c.hw}),
       ir::Literal::FromF32(RandomFloats(size_t(c.o * c.c * c.k * c.k), 2), {c.o, c.c, c.k, c.k}),
       ir::Literal::FromF32(RandomFloats(size_t(c.o), 3), channels),
       ir::Literal::FromF32(var, channels),
       ir::Literal::FromF32(RandomFloats(size_t(c.o), 5), channels),
       ir::Literal::FromF32(RandomFloats(size_t(c.o), 6), channels)});
  for (auto _ : state) RunAndWait(*computation, args);
  SetCounters(state, c);
}

// oneDNN through its C API, independent of the plugin's code.
struct Dnnl {
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  Dnnl() {
    dnnl_engine_create(&engine, dnnl_cpu, 0);
    dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  }
};
Dnnl& D() {
  static Dnnl d;
  return d;
}

dnnl_memory_desc_t Md(std::vector<int64_t> dims, dnnl_format_tag_t tag) {
  dnnl_memory_desc_t md;
  dnnl_memory_desc_init_by_tag(&md, static_cast<int>(dims.size()), dims.data(), dnnl_f32, tag);
  return md;
}

dnnl_memory_t Mem(const dnnl_memory_desc_t& md) {
  dnnl_memory_t m;
  dnnl_memory_create(&m, &md, D().engine, DNNL_MEMORY_ALLOCATE);
  return m;
}

void Run(dnnl_primitive_t p, std::vector<dnnl_exec_arg_t> args) {
  dnnl_primitive_execute(p, D().stream, static_cast<int>(args.size()), args.data());
  dnnl_stream_wait(D().stream);
}

dnnl_primitive_t Reorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to) {
  if (dnnl_memory_desc_equal(&from, &to)) return nullptr;
  dnnl_primitive_desc_t pd;
  dnnl_reorder_primitive_desc_create(&pd, &from, D().engine, &to, D().engine, nullptr);
  dnnl_primitive_t p;
  dnnl_primitive_create(&p, pd);
  dnnl_primitive_desc_destroy(pd);
  return p;
}

// `bias_relu`: the primitive also adds a per-channel bias and takes max(x, 0) (a bias
// operand and a relu post-op), the work of seam's convolution epilogue.
void BM_OneDnn(benchmark::State& state, const Case& c, bool best, bool bias_relu = false) {
  omp_set_num_threads(1);
  const dnnl_format_tag_t plain = c.nhwc ? dnnl_nhwc : dnnl_nchw;
  dnnl_memory_desc_t user_src = Md({c.n, c.c, c.hw, c.hw}, plain);
  dnnl_memory_desc_t user_dst = Md({c.n, c.o, c.hw, c.hw}, plain);
  dnnl_memory_desc_t user_w = Md({c.o, c.c, c.k, c.k}, c.nhwc ? dnnl_hwio : dnnl_oihw);
  dnnl_memory_desc_t any_src = Md({c.n, c.c, c.hw, c.hw}, dnnl_format_tag_any);
  dnnl_memory_desc_t any_dst = Md({c.n, c.o, c.hw, c.hw}, dnnl_format_tag_any);
  dnnl_memory_desc_t any_w = Md({c.o, c.c, c.k, c.k}, dnnl_format_tag_any);
  dnnl_dims_t strides = {1, 1}, pad = {c.pad, c.pad};
  dnnl_convolution_desc_t desc;
  dnnl_memory_desc_t bias_md = Md({c.o}, dnnl_a);
  dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference, dnnl_convolution_auto, &any_src,
                                     &any_w, bias_relu ? &bias_md : nullptr, &any_dst, strides, pad,
                                     pad);
  dnnl_primitive_attr_t attr;
  dnnl_primitive_attr_create(&attr);
  dnnl_post_ops_t post_ops;
  dnnl_post_ops_create(&post_ops);
  if (bias_relu) {
    dnnl_post_ops_append_eltwise(post_ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f);
    dnnl_primitive_attr_set_post_ops(attr, post_ops);
  }
  dnnl_primitive_desc_t pd;
  const dnnl_status_t made = dnnl_primitive_desc_create(&pd, &desc, attr, D().engine, nullptr);
  dnnl_post_ops_destroy(post_ops);
  dnnl_primitive_attr_destroy(attr);
  if (made != dnnl_success) {
    state.SkipWithError("oneDNN refuses the convolution");
    return;
  }
  const dnnl_memory_desc_t src_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  const dnnl_memory_desc_t w_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  const dnnl_memory_desc_t dst_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  dnnl_primitive_t conv;
  dnnl_primitive_create(&conv, pd);
  const char* impl = nullptr;
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  state.SetLabel(impl == nullptr ? "" : impl);
  dnnl_primitive_desc_destroy(pd);
  dnnl_memory_t us = Mem(user_src), ud = Mem(user_dst), uw = Mem(user_w);
  dnnl_memory_t s = Mem(src_md), w = Mem(w_md), d = Mem(dst_md), b = Mem(bias_md);
  std::vector<float> x = RandomFloats(size_t(c.n * c.c * c.hw * c.hw), 1);
  std::vector<float> k = RandomFloats(size_t(c.o * c.c * c.k * c.k), 2);
  void* handle;
  dnnl_memory_get_data_handle(us, &handle);
  std::copy(x.begin(), x.end(), static_cast<float*>(handle));
  dnnl_memory_get_data_handle(uw, &handle);
  std::copy(k.begin(), k.end(), static_cast<float*>(handle));
  dnnl_primitive_t src_in = Reorder(user_src, src_md), w_in = Reorder(user_w, w_md),
                   dst_out = Reorder(dst_md, user_dst);
  auto reorder = [](dnnl_primitive_t p, dnnl_memory_t from, dnnl_memory_t to) {
    if (p != nullptr) Run(p, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
  };
  reorder(src_in, us, s);
  reorder(w_in, uw, w);
  dnnl_memory_t src = src_in ? s : us, weights = w_in ? w : uw, dst = dst_out ? d : ud;
  for (auto _ : state) {
    if (!best) {
      reorder(src_in, us, s);
      reorder(w_in, uw, w);
    }
    Run(conv, {{DNNL_ARG_SRC, src},
               {DNNL_ARG_WEIGHTS, weights},
               {DNNL_ARG_BIAS, b},
               {DNNL_ARG_DST, dst}});
    if (!best) reorder(dst_out, d, ud);
  }
  SetCounters(state, c);
  for (dnnl_primitive_t p : {conv, src_in, w_in, dst_out}) {
    if (p != nullptr) dnnl_primitive_destroy(p);
  }
  for (dnnl_memory_t m : {us, ud, uw, s, w, d, b}) dnnl_memory_destroy(m);
}

// Max pooling 2x2, stride 2, on the CNN's first activation [64, 32, 28, 28], and its
// gradient (select_and_scatter); no peer, for the record.
void BM_SeamPool(benchmark::State& state, bool gradient) {
  const std::string attrs =
      "padding_high={0,0,0,0}, padding_low={0,0,0,0}, window_dimensions={1,1,2,2}, "
      "window_strides={1,1,2,2}";
  const std::string text =
      gradient ? "program @pool {\n  %0 = parameter(0) : f32[64,32,28,28]\n  %1 = parameter(1) : "
                 "f32[64,32,14,14]\n  %2 = select_and_scatter(%0, %1), " +
                     attrs + " : f32[64,32,28,28]\n  return (%2)\n}\n"
               : "program @pool {\n  %0 = parameter(0) : f32[64,32,28,28]\n  %1 = "
                 "reduce_window_max(%0), base_dilation={1,1,1,1}, " +
                     attrs + ", window_dilation={1,1,1,1} : f32[64,32,14,14]\n  return (%1)\n}\n";
  auto computation = CompileText(text);
  std::vector<ir::Literal> args = {
      ir::Literal::FromF32(RandomFloats(64 * 32 * 28 * 28, 1), {64, 32, 28, 28})};
  if (gradient) {
    args.push_back(ir::Literal::FromF32(RandomFloats(64 * 32 * 14 * 14, 2), {64, 32, 14, 14}));
  }
  auto uploaded = Upload(args);
  for (auto _ : state) RunAndWait(*computation, uploaded);
}

// The ResNet layer's weight gradient as the front end records it (src/lazy/
// autodiff_window.cc): the input with its batch as features convolved with the result's
// adjoint as the kernel; `mode` as in BM_Seam.
void BM_SeamWeightGradient(benchmark::State& state, const char* mode) {
  const std::string text =
      "program @dw {\n  %0 = parameter(0) : f32[8,64,56,56]\n  %1 = parameter(1) : "
      "f32[8,64,56,56]\n  %2 = convolution(%0, %1), feature_group_count={1}, "
      "input_batch_dim={1}, input_feature_dim={0}, input_spatial_dims={2,3}, "
      "kernel_input_feature_dim={0}, kernel_output_feature_dim={1}, kernel_spatial_dims={2,3}, "
      "lhs_dilation={1,1}, output_batch_dim={1}, output_feature_dim={0}, "
      "output_spatial_dims={2,3}, padding_high={1,1}, padding_low={1,1}, rhs_dilation={1,1}, "
      "window_strides={1,1} : f32[64,64,3,3]\n  return (%2)\n}\n";
  setenv("SEAM_CPU_CONV", mode, 1);
  auto computation = CompileText(text);
  unsetenv("SEAM_CPU_CONV");
  auto args = Upload({ir::Literal::FromF32(RandomFloats(8 * 64 * 56 * 56, 1), {8, 64, 56, 56}),
                      ir::Literal::FromF32(RandomFloats(8 * 64 * 56 * 56, 2), {8, 64, 56, 56})});
  for (auto _ : state) RunAndWait(*computation, args);
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * 8 * 64 * 64 * 56 * 56 * 9,
                                                 benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}

std::string CpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

void Register() {
  benchmark::RegisterBenchmark("cnn_maxpool2x2_32_28_b64/seam",
                               [](benchmark::State& s) { BM_SeamPool(s, false); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("cnn_maxpool2x2_32_28_b64_gradient/seam",
                               [](benchmark::State& s) { BM_SeamPool(s, true); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  for (const char* mode : {"auto", "gemm"}) {
    benchmark::RegisterBenchmark(
        absl::StrCat("resnet3x3_64_56_b8_weight_gradient/seam_", mode).c_str(),
        [mode](benchmark::State& s) { BM_SeamWeightGradient(s, mode); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const Case& c : kCases) {
    auto add = [&](const std::string& what, auto fn) {
      benchmark::RegisterBenchmark(absl::StrCat(c.name, "/", what).c_str(), fn)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    };
    add("seam_onednn", [&c](benchmark::State& s) { BM_Seam(s, c, "auto"); });
    add("seam_onednn_dense_layouts", [&c](benchmark::State& s) { BM_Seam(s, c, "auto", "dense"); });
    add("seam_onednn_fresh_input",
        [&c](benchmark::State& s) { BM_Seam(s, c, "auto", "auto", Input::kFresh); });
    if (c.c == c.o) {
      add("seam_onednn_chained",
          [&c](benchmark::State& s) { BM_Seam(s, c, "auto", "auto", Input::kChained); });
    }
    add("seam_gemm", [&c](benchmark::State& s) { BM_Seam(s, c, "gemm"); });
    if (c.bf16) continue;
    if (!c.nhwc) {
      add("seam_bias_relu_epilogue", [&c](benchmark::State& s) { BM_SeamBiasRelu(s, c, "on"); });
      add("seam_bias_relu_separate", [&c](benchmark::State& s) { BM_SeamBiasRelu(s, c, "off"); });
      add("onednn_plain_bias_relu", [&c](benchmark::State& s) { BM_OneDnn(s, c, false, true); });
      add("seam_bn_relu_epilogue", [&c](benchmark::State& s) { BM_SeamBatchNormRelu(s, c, "on"); });
      add("seam_bn_relu_separate",
          [&c](benchmark::State& s) { BM_SeamBatchNormRelu(s, c, "off"); });
      if (c.c == c.o) {
        add("seam_residual_epilogue",
            [&c](benchmark::State& s) { BM_SeamBiasRelu(s, c, "on", true); });
        add("seam_residual_separate",
            [&c](benchmark::State& s) { BM_SeamBiasRelu(s, c, "off", true); });
      }
      add("onednn_best_bias_relu", [&c](benchmark::State& s) { BM_OneDnn(s, c, true, true); });
    }
    add("seam_direct", [&c](benchmark::State& s) { BM_Seam(s, c, "direct"); });
    add("onednn_plain", [&c](benchmark::State& s) { BM_OneDnn(s, c, false); });
    add("onednn_best", [&c](benchmark::State& s) { BM_OneDnn(s, c, true); });
  }
}

}  // namespace
}  // namespace seam::bench

int main(int argc, char** argv) {
  const dnnl_version_t* version = dnnl_version();
  const char* threads = std::getenv("SEAM_CPU_THREADS");
  std::printf("CPU: %s\nOpenBLAS core: %s\noneDNN %d.%d.%d, SEAM_CPU_THREADS=%s\n",
              seam::bench::CpuName().c_str(), openblas_get_corename(), version->major,
              version->minor, version->patch, threads == nullptr ? "(unset)" : threads);
  seam::bench::Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
