// What the CPU plugin's oneDNN primitives share (conv_onednn.cc, dot_onednn.cc): the
// engine, one stream per thread, grow-only scratch memory per thread, and small wrappers
// that turn a failed oneDNN call into `false` or null. Only in builds with oneDNN.
#ifndef SEAM_PLUGINS_CPU_ONEDNN_COMMON_H_
#define SEAM_PLUGINS_CPU_ONEDNN_COMMON_H_

#ifdef SEAM_HAVE_ONEDNN

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "oneapi/dnnl/dnnl.h"

namespace seam::cpu::onednn {

// The process's CPU engine, or null where oneDNN cannot make one.
dnnl_engine_t Engine();

// This thread's stream on Engine(), or null.
dnnl_stream_t ThreadStream();

// Grow-only 64-byte aligned memory (null after a failed allocation).
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch();
  uint8_t* Get(size_t bytes);

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Per-thread scratch: reordered operands (a convolution's rhs, reordered once per run for
// every part, in `rhs`), results and primitives' scratchpads.
struct ThreadScratch {
  Scratch src, rhs, dst, pad, reorder_pad;
};
ThreadScratch& LocalScratch();

// A reorder between two descriptors of the same array, or null where they are equal or
// oneDNN refuses.
dnnl_primitive_t MakeReorder(const dnnl_memory_desc_t& from, const dnnl_memory_desc_t& to);

// An argument number Execute leaves out (a plan that has no use for that operand).
inline constexpr int kUnusedArgument = -1;

// Runs `p` on this thread's stream and waits; false where oneDNN fails the call (or a
// memory object or the stream is missing). At most 6 arguments, besides those numbered
// kUnusedArgument.
bool Execute(dnnl_primitive_t p, std::initializer_list<std::pair<int, dnnl_memory_t>> args);

// A memory object over `data`; null where the data is missing (a failed allocation) or
// oneDNN refuses.
dnnl_memory_t Memory(const dnnl_memory_desc_t& md, void* data);

// Destroys the non-null memory objects.
void Destroy(std::initializer_list<dnnl_memory_t> memories);

// A matmul primitive made with a user scratchpad, and the descriptors of its source,
// weights, destination and scratchpad (and of its bias where it was made with one).
struct Matmul {
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_desc_t a{}, b{}, c{}, scratchpad{};
  bool with_bias = false;
  dnnl_memory_desc_t bias{};
};

// Runs `mm` over `a`, `b` and `c` (laid out as its descriptors say; `bias` too where the
// primitive has one) with this thread's scratchpad; false where oneDNN fails the call.
bool RunMatmul(const Matmul& mm, const void* a, const void* b, void* c, const void* bias = nullptr);

// The implementation oneDNN chose for `pd` ("brg:avx512_core_bf16", "ref:any", ...), or "".
const char* ImplementationName(const_dnnl_primitive_desc_t pd);

}  // namespace seam::cpu::onednn

#endif  // SEAM_HAVE_ONEDNN

#endif  // SEAM_PLUGINS_CPU_ONEDNN_COMMON_H_
