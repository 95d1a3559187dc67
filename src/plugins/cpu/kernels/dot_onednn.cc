#include "src/plugins/cpu/kernels/dot_onednn.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "src/plugins/cpu/kernels/bf16_rate.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels.h"

#ifdef SEAM_HAVE_ONEDNN
#include <omp.h>

#include "oneapi/dnnl/dnnl.h"
#include "src/plugins/cpu/kernels/onednn_common.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#endif

namespace seam::cpu {
namespace {

std::atomic<int64_t> runs{0};

}  // namespace

int64_t Bf16MatmulRuns() { return runs.load(std::memory_order_relaxed); }

namespace {

// Where bf16 products can go to oneDNN at all, and where every one large enough does
// whatever its sides (forced, AMX, or a bf16 instruction at least as fast as the FMA).
bool Bf16MayUseOneDnn(const Bf16Hardware& hardware, GemmLibrary library) {
  return hardware.onednn_bf16 && library != GemmLibrary::kOpenBlas;
}
bool Bf16AlwaysOnOneDnn(const Bf16Hardware& hardware, GemmLibrary library) {
  return library == GemmLibrary::kOneDnn || hardware.amx || hardware.dot_over_fma >= 1;
}

}  // namespace

bool Bf16ProductOnOneDnn(const Bf16Hardware& hardware, GemmLibrary library, int64_t batches,
                         int64_t m, int64_t n, int64_t k) {
  const double work = static_cast<double>(batches) * static_cast<double>(m) *
                      static_cast<double>(n) * static_cast<double>(k);
  if (!Bf16MayUseOneDnn(hardware, library) || work < kBf16OneDnnMinimumWork) return false;
  return Bf16AlwaysOnOneDnn(hardware, library) || std::min({m, n, k}) <= kBf16WidenAboveSide;
}

const char* Bf16PathName(const Bf16Hardware& hardware, GemmLibrary library) {
  if (!Bf16MayUseOneDnn(hardware, library)) return "widened_to_f32";
  return Bf16AlwaysOnOneDnn(hardware, library) ? "onednn_bf16_matmul" : "by_size";
}

#ifdef SEAM_HAVE_ONEDNN

namespace {

bool OneDnnRuns(dnnl_cpu_isa_t wanted) {
  const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
  return (isa & static_cast<unsigned>(wanted)) == static_cast<unsigned>(wanted);
}

}  // namespace

bool OneDnnHasBf16() {
  static const bool bf16 = OneDnnRuns(dnnl_cpu_isa_avx512_core_bf16);
  return bf16;
}

const Bf16Hardware& ThisBf16Hardware() {
  static const Bf16Hardware hardware = [] {
    Bf16Hardware h;
    h.onednn_bf16 = OneDnnHasBf16();
    if (h.onednn_bf16) {
      h.amx = OneDnnRuns(dnnl_cpu_isa_avx512_core_amx);
      h.dot_over_fma = Bf16DotRateOverFma();
    }
    return h;
  }();
  return hardware;
}

namespace {

// One matmul primitive: `rows` x n results of `batches` products.
using Primitive = onednn::Matmul;

}  // namespace

class Bf16Matmul {
 public:
  Bf16Matmul() = default;
  Bf16Matmul(const Bf16Matmul&) = delete;
  Bf16Matmul& operator=(const Bf16Matmul&) = delete;
  ~Bf16Matmul() {
    for (const Primitive& p : {whole, tail}) {
      if (p.primitive != nullptr) dnnl_primitive_destroy(p.primitive);
    }
  }

  // The product is cut into `parts` along the batch (by_batch) or the rows of the result,
  // `chunk` batches or rows each (the last one `last_chunk`); `whole` computes a chunk,
  // `tail` the last one where it is shorter.
  int64_t parts = 1, chunk = 0, last_chunk = 0;
  bool by_batch = true;
  Primitive whole, tail;
  // Elements to skip for one batch or row of the chunked dimension, per operand.
  int64_t a_step = 0, b_step = 0, c_step = 0;
};

namespace {

void Strided(dnnl_memory_desc_t* md, int64_t d0, int64_t d1, int64_t d2, int64_t s0, int64_t s1,
             int64_t s2) {
  dnnl_dims_t dims = {d0, d1, d2}, strides = {s0, s1, s2};
  dnnl_memory_desc_init_by_strides(md, 3, dims, dnnl_bf16, strides);
}

// The primitive for `batches` products of `rows` result rows each, with the operands'
// strides of the whole plan; false where oneDNN refuses or would run its reference code.
bool Build(const DotPlan& plan, int64_t batches, int64_t rows, Primitive* out) {
  const int64_t m = plan.m, k = plan.k, n = plan.n;
  const bool trans_a = plan.lhs.layout == DotPlan::kTransposed;
  const bool trans_b = plan.rhs.layout == DotPlan::kTransposed;
  Strided(&out->a, batches, rows, k, m * k, trans_a ? 1 : k, trans_a ? m : 1);
  Strided(&out->b, batches, k, n, k * n, trans_b ? 1 : n, trans_b ? k : 1);
  Strided(&out->c, batches, rows, n, m * n, n, 1);
  dnnl_matmul_desc_t desc;
  if (dnnl_matmul_desc_init(&desc, &out->a, &out->b, nullptr, &out->c) != dnnl_success) {
    return false;
  }
  dnnl_primitive_attr_t attr = nullptr;
  if (dnnl_primitive_attr_create(&attr) != dnnl_success) return false;
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  dnnl_primitive_desc_t pd = nullptr;
  const dnnl_status_t made =
      dnnl_primitive_desc_create(&pd, &desc, attr, onednn::Engine(), nullptr);
  dnnl_primitive_attr_destroy(attr);
  if (made != dnnl_success) return false;
  // A reference implementation (no JIT kernel for these layouts) is slower than widening.
  const bool reference = std::string(onednn::ImplementationName(pd)).rfind("ref", 0) == 0;
  out->scratchpad = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  const bool created = !reference && dnnl_primitive_create(&out->primitive, pd) == dnnl_success;
  dnnl_primitive_desc_destroy(pd);
  if (!created) out->primitive = nullptr;
  return created;
}

// How to cut the product over the kernel threads (see dot_onednn.h).
void ChooseParts(const DotPlan& plan, Bf16Matmul* mm) {
  constexpr int64_t kAlign = 16;
  const double work = static_cast<double>(plan.batches) * static_cast<double>(plan.m) *
                      static_cast<double>(plan.n) * static_cast<double>(plan.k);
  const int64_t threads = work >= kSplitMinimumWork ? KernelThreads() : 1;
  mm->by_batch = plan.batches >= threads || plan.m < 2 * kAlign;
  if (mm->by_batch) {
    mm->parts = std::max<int64_t>(1, std::min<int64_t>(threads, plan.batches));
    mm->chunk = (plan.batches + mm->parts - 1) / mm->parts;
    mm->a_step = plan.m * plan.k;
    mm->b_step = plan.k * plan.n;
    mm->c_step = plan.m * plan.n;
  } else {
    const int64_t blocks = (plan.m + kAlign - 1) / kAlign;
    mm->parts = std::max<int64_t>(1, std::min<int64_t>(threads, blocks));
    mm->chunk = (blocks + mm->parts - 1) / mm->parts * kAlign;
    mm->a_step = plan.lhs.layout == DotPlan::kTransposed ? 1 : plan.k;
    mm->b_step = 0;
    mm->c_step = plan.n;
  }
  const int64_t extent = mm->by_batch ? plan.batches : plan.m;
  mm->parts = (extent + mm->chunk - 1) / mm->chunk;
  mm->last_chunk = extent - (mm->parts - 1) * mm->chunk;
}

// One chunk on this thread alone.
bool RunChunk(const Primitive& p, const uint16_t* a, const uint16_t* b, uint16_t* c) {
  return onednn::RunMatmul(p, a, b, c);
}

}  // namespace

std::shared_ptr<const Bf16Matmul> MakeBf16Matmul(const DotPlan& plan) {
  if (plan.dtype != ir::DType::kBF16 || !plan.blas ||
      !Bf16ProductOnOneDnn(ThisBf16Hardware(), GetGemmLibrary(), plan.batches, plan.m, plan.n,
                           plan.k) ||
      onednn::Engine() == nullptr) {
    return nullptr;
  }
  auto mm = std::make_shared<Bf16Matmul>();
  ChooseParts(plan, mm.get());
  const int64_t batches = mm->by_batch ? mm->chunk : plan.batches;
  const int64_t rows = mm->by_batch ? plan.m : mm->chunk;
  if (!Build(plan, batches, rows, &mm->whole)) return nullptr;
  if (mm->last_chunk != mm->chunk) {
    const int64_t tail_batches = mm->by_batch ? mm->last_chunk : plan.batches;
    const int64_t tail_rows = mm->by_batch ? plan.m : mm->last_chunk;
    if (!Build(plan, tail_batches, tail_rows, &mm->tail)) return nullptr;
  }
  return mm;
}

bool RunBf16Matmul(const Bf16Matmul& mm, const uint8_t* a_bytes, const uint8_t* b_bytes,
                   uint8_t* out) {
  const auto* a = reinterpret_cast<const uint16_t*>(a_bytes);
  const auto* b = reinterpret_cast<const uint16_t*>(b_bytes);
  auto* c = reinterpret_cast<uint16_t*>(out);
  auto part = [&](int64_t i) {
    const Primitive& p = i == mm.parts - 1 && mm.tail.primitive != nullptr ? mm.tail : mm.whole;
    const int64_t offset = i * mm.chunk;
    return RunChunk(p, a + offset * mm.a_step, b + offset * mm.b_step, c + offset * mm.c_step);
  };
  const int saved_threads = omp_get_max_threads();
  if (saved_threads != 1) omp_set_num_threads(1);
  std::atomic<bool> ok{true};
  if (mm.parts == 1) {
    ok = part(0);
  } else {
    ParallelFor(mm.parts, [&](int64_t first, int64_t last) {
      const int threads = omp_get_max_threads();
      if (threads != 1) omp_set_num_threads(1);
      for (int64_t i = first; i < last; ++i) {
        if (!part(i)) ok = false;
      }
      if (threads != 1) omp_set_num_threads(threads);
    });
  }
  if (saved_threads != 1) omp_set_num_threads(saved_threads);
  if (ok) runs.fetch_add(1, std::memory_order_relaxed);
  return ok;
}

void InitializeBf16MatmulOnce() {
  static std::once_flag once;
  // Under `openblas` nothing goes there (a later client with another choice may still need it).
  if (!OneDnnHasBf16() || GetGemmLibrary() == GemmLibrary::kOpenBlas) return;
  std::call_once(once, [] {
    ThisBf16Hardware();  // measured here rather than inside a program's compile
    constexpr int64_t kSide = 64;
    DotPlan plan;
    plan.dtype = ir::DType::kBF16;
    plan.m = plan.k = plan.n = kSide;
    plan.blas = true;
    std::shared_ptr<const Bf16Matmul> mm = MakeBf16Matmul(plan);
    if (mm == nullptr) return;
    std::vector<uint16_t> a(kSide * kSide, 0x3f80), c(kSide * kSide);  // ones
    const auto* bytes = reinterpret_cast<const uint8_t*>(a.data());
    RunBf16Matmul(*mm, bytes, bytes, reinterpret_cast<uint8_t*>(c.data()));
  });
}

#else  // no oneDNN: every bf16 product widens.

bool OneDnnHasBf16() { return false; }

const Bf16Hardware& ThisBf16Hardware() {
  static const Bf16Hardware none;
  return none;
}

class Bf16Matmul {};

std::shared_ptr<const Bf16Matmul> MakeBf16Matmul(const DotPlan&) { return nullptr; }

bool RunBf16Matmul(const Bf16Matmul&, const uint8_t*, const uint8_t*, uint8_t*) { return false; }

void InitializeBf16MatmulOnce() {}

#endif  // SEAM_HAVE_ONEDNN

}  // namespace seam::cpu
