#include "src/plugins/cpu/kernels/onednn_common.h"

#ifdef SEAM_HAVE_ONEDNN

#include <algorithm>
#include <cstdlib>

namespace seam::cpu::onednn {

dnnl_engine_t Engine() {
  static dnnl_engine_t engine = [] {
    dnnl_engine_t e = nullptr;
    if (dnnl_engine_create(&e, dnnl_cpu, 0) != dnnl_success)
      return static_cast<dnnl_engine_t>(nullptr);
    return e;
  }();
  return engine;
}

namespace {

// A thread's stream, destroyed when the thread ends (a kernel or caller thread that ran a
// oneDNN call and exits would otherwise leave it behind).
struct OwnedStream {
  OwnedStream() {
    if (Engine() == nullptr ||
        dnnl_stream_create(&stream, Engine(), dnnl_stream_default_flags) != dnnl_success) {
      stream = nullptr;
    }
  }
  ~OwnedStream() {
    if (stream != nullptr) dnnl_stream_destroy(stream);
  }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  dnnl_stream_t stream = nullptr;
};

}  // namespace

dnnl_stream_t ThreadStream() {
  thread_local OwnedStream owned;
  return owned.stream;
}

Scratch::~Scratch() { std::free(data_); }

uint8_t* Scratch::Get(size_t bytes) {
  if (bytes > size_ || data_ == nullptr) {
    std::free(data_);
    size_ = (bytes + 63) / 64 * 64;
    data_ = static_cast<uint8_t*>(std::aligned_alloc(64, size_ == 0 ? 64 : size_));
    if (data_ == nullptr) size_ = 0;
  }
  return data_;
}

ThreadScratch& LocalScratch() {
  thread_local ThreadScratch scratch;
  return scratch;
}

dnnl_primitive_t MakeReorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to) {
  if (dnnl_memory_desc_equal(&from, &to)) return nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  if (dnnl_reorder_primitive_desc_create(&pd, &from, Engine(), &to, Engine(), nullptr) !=
      dnnl_success) {
    return nullptr;
  }
  dnnl_primitive_t p = nullptr;
  if (dnnl_primitive_create(&p, pd) != dnnl_success) p = nullptr;
  dnnl_primitive_desc_destroy(pd);
  return p;
}

bool Execute(dnnl_primitive_t p, std::initializer_list<std::pair<int, dnnl_memory_t>> args) {
  dnnl_exec_arg_t list[6];
  int n = 0;
  for (const auto& [arg, memory] : args) {
    if (arg == kUnusedArgument) continue;
    if (memory == nullptr || n == 6) return false;
    list[n++] = {arg, memory};
  }
  dnnl_stream_t stream = ThreadStream();
  return stream != nullptr && dnnl_primitive_execute(p, stream, n, list) == dnnl_success &&
         dnnl_stream_wait(stream) == dnnl_success;
}

dnnl_memory_t Memory(const dnnl_memory_desc_t& md, void* data) {
  if (data == nullptr) return nullptr;
  dnnl_memory_t m = nullptr;
  if (dnnl_memory_create(&m, &md, Engine(), data) != dnnl_success) return nullptr;
  return m;
}

void Destroy(std::initializer_list<dnnl_memory_t> memories) {
  for (dnnl_memory_t m : memories) {
    if (m != nullptr) dnnl_memory_destroy(m);
  }
}

const char* ImplementationName(const_dnnl_primitive_desc_t pd) {
  const char* impl = nullptr;
  if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success ||
      impl == nullptr) {
    return "";
  }
  return impl;
}

bool RunMatmul(const Matmul& mm, const void* a, const void* b, void* c, const void* bias) {
  if (mm.with_bias && bias == nullptr) return false;
  ThreadScratch& scratch = LocalScratch();
  dnnl_memory_t ma = Memory(mm.a, const_cast<void*>(a));
  dnnl_memory_t mb = Memory(mm.b, const_cast<void*>(b));
  dnnl_memory_t mc = Memory(mm.c, c);
  dnnl_memory_t mbias = mm.with_bias ? Memory(mm.bias, const_cast<void*>(bias)) : nullptr;
  dnnl_memory_t pad =
      Memory(mm.scratchpad,
             scratch.pad.Get(std::max<size_t>(dnnl_memory_desc_get_size(&mm.scratchpad), 64)));
  const bool ok = Execute(mm.primitive, {{DNNL_ARG_SRC, ma},
                                         {DNNL_ARG_WEIGHTS, mb},
                                         {DNNL_ARG_DST, mc},
                                         {DNNL_ARG_SCRATCHPAD, pad},
                                         {mm.with_bias ? DNNL_ARG_BIAS : kUnusedArgument, mbias}});
  Destroy({ma, mb, mc, mbias, pad});
  return ok;
}

}  // namespace seam::cpu::onednn

#endif  // SEAM_HAVE_ONEDNN
