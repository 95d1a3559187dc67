// The safetensors file format (docs/checkpoints.md): an 8-byte little-endian header length
// N, N bytes of a JSON object (each tensor's dtype, shape and [begin, end) byte offsets into
// the data that follows; an optional "__metadata__" object of strings), then the tensors'
// raw little-endian bytes, packed without holes. The format PyTorch, NumPy and the
// safetensors library read and write, so a seam checkpoint opens in those tools.
//
// Reading validates the whole header against the file before any tensor is touched, and
// refuses with a message naming the offending tensor and value: a header length past the
// end of the file or above 100 MB, a header that is not a JSON object or not UTF-8, a
// duplicate name, an unknown dtype, a shape or offset that is not a non-negative integer,
// an element count whose byte size overflows, a byte range that does not match its shape,
// runs past the data or overlaps another, and data bytes that no tensor covers. Writing is
// atomic: a temporary file in the same folder, fsync, rename, fsync of the folder.
//
// Status codes (docs/checkpoints.md, "Errors"): a malformed or truncated file DATA_LOSS; a
// failed system call the code of its errno (ErrnoCode); a path that is a directory (or, to
// read, anything but a regular file) FAILED_PRECONDITION; a caller's mistake in what it asks
// to write (a reserved or repeated name, bytes that do not match a shape) INVALID_ARGUMENT.
#ifndef SEAM_CHECKPOINT_SAFETENSORS_H_
#define SEAM_CHECKPOINT_SAFETENSORS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace seam::checkpoint {

// Every dtype of the safetensors specification.
enum class DType { kBool, kU8, kI8, kU16, kI16, kF16, kBF16, kU32, kI32, kF32, kU64, kI64, kF64 };

// "F32" -> kF32 ...; InvalidArgument naming the string for anything else.
absl::StatusOr<DType> ParseDType(std::string_view name);
const char* DTypeName(DType dtype);
int64_t DTypeSize(DType dtype);  // bytes per element

// The largest header a file may declare (the safetensors library's limit).
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct TensorInfo {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets into the data section
  uint64_t end = 0;
};

struct Header {
  std::vector<TensorInfo> tensors;  // ordered by their offsets
  std::map<std::string, std::string> metadata;
};

// Parses and validates a header (the N bytes after the length) for a data section of
// `data_bytes` bytes. The checks listed at the top of this file; every refusal is DATA_LOSS.
absl::StatusOr<Header> ParseHeader(std::string_view header, uint64_t data_bytes);

// One tensor to write: `bytes` holds its elements, little-endian, row-major.
struct TensorToWrite {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  absl::Span<const uint8_t> bytes;
};

// Writes `tensors` (names unique; each byte size must match its shape) and `metadata`
// to `path` atomically: either the new file is complete under `path`, or `path` is as it
// was (the temporary file is removed on every error).
absl::Status WriteFile(const std::string& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata);

// One tensor's bytes for WriteFileStreamed, and what keeps them alive until written.
struct TensorBytes {
  absl::Span<const uint8_t> bytes;
  std::shared_ptr<const void> owner;
};
// Produces tensor `index`'s bytes (little-endian, row-major), on the caller's thread.
using TensorProducer = std::function<absl::StatusOr<TensorBytes>(size_t index)>;

// WriteFile with each tensor's bytes produced as the writing reaches it (the `bytes` of
// `tensors` are not read; sizes come from the shapes and are checked against what
// `produce` returns): tensor i + 1 is produced on the calling thread while a second thread
// writes tensor i, so reading a tensor from the device overlaps writing the previous one,
// and at most three tensors' bytes are alive at a time, not the whole file's. The writer
// writes 8 MiB at a time and starts each chunk's writeback at once (sync_file_range), so
// the final fsync finds little left (docs/checkpoints.md). An exception
// thrown by `produce` stops the writing, removes the temporary file and is rethrown.
absl::Status WriteFileStreamed(const std::string& path, const std::vector<TensorToWrite>& tensors,
                               const std::map<std::string, std::string>& metadata,
                               const TensorProducer& produce);

// The status code of a failed file operation's errno: EACCES, EPERM, EROFS
// PERMISSION_DENIED; ENOENT NOT_FOUND; EISDIR, ENOTDIR FAILED_PRECONDITION; ENOSPC, EDQUOT,
// ENOMEM, EMFILE, ENFILE RESOURCE_EXHAUSTED; any other INTERNAL.
absl::StatusCode ErrnoCode(int error);

// Writes a file atomically: `write` fills the temporary file `<path>.tmp.<pid>` through the
// descriptor it is given (its second argument names the file, for errors); then fsync,
// rename onto `path`, fsync of the folder. On any error the temporary file is removed and
// `path` is as it was (an exception thrown by `write` is passed on, after the temporary file
// is removed). A `path` that is a directory is FAILED_PRECONDITION before anything is
// written. First it removes the temporary files of `path` that killed processes left
// (`<name>.tmp.<pid>` in the same folder, only when no process `pid` exists;
// docs/checkpoints.md, "Leftovers"). Test hook: SEAM_TEST_KILL_BEFORE_RENAME=N ends the
// process with SIGKILL just before the N-th such rename of the process (docs/checkpoints.md).
absl::Status WriteAtomically(const std::string& path,
                             const std::function<absl::Status(int fd, const std::string&)>& write);
// `text` as the whole content of `path`, atomically (e.g. a checkpoint folder's `latest`).
absl::Status WriteTextFile(const std::string& path, const std::string& text);

// An open file: validated, then mapped read-only; tensors' bytes point into the mapping.
class File {
 public:
  static absl::StatusOr<std::unique_ptr<File>> Open(const std::string& path);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  const Header& header() const { return header_; }
  // The bytes of tensor `info` (one of header().tensors).
  absl::Span<const uint8_t> Bytes(const TensorInfo& info) const;

 private:
  File() = default;
  Header header_;
  void* map_ = nullptr;
  size_t map_size_ = 0;
  const uint8_t* data_ = nullptr;
};

}  // namespace seam::checkpoint

#endif  // SEAM_CHECKPOINT_SAFETENSORS_H_
