// libFuzzer target: any bytes as a safetensors header (src/checkpoint/safetensors.h). The
// first 8 bytes give the size of the data section it describes (taken modulo 2^20, so that
// valid layouts are reachable); the rest is the header text. Built and run like
// ir_compile_fuzzer (SEAM_FUZZ=ON; `make test-fuzz`). Nothing may crash, leak or trip a
// sanitizer; every input is either a header whose tensors tile the data exactly or a
// DATA_LOSS error (a malformed file, never INVALID_ARGUMENT or INTERNAL).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "src/checkpoint/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  uint64_t data_bytes = 0;
  std::memcpy(&data_bytes, data, 8);
  data_bytes %= uint64_t{1} << 20;
  const std::string_view header(reinterpret_cast<const char*>(data + 8), size - 8);
  absl::StatusOr<seam::checkpoint::Header> parsed =
      seam::checkpoint::ParseHeader(header, data_bytes);
  if (!parsed.ok()) {
    if (parsed.status().code() != absl::StatusCode::kDataLoss) __builtin_trap();
    return 0;
  }
  // An accepted header tiles [0, data_bytes) in order; anything else is a parser bug.
  uint64_t next = 0;
  for (const seam::checkpoint::TensorInfo& t : parsed->tensors) {
    if (t.begin != next || t.end < t.begin) __builtin_trap();
    next = t.end;
  }
  if (next != data_bytes) __builtin_trap();
  return 0;
}
