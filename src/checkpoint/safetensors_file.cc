// Reading (validated, then mapped) and writing (atomically) safetensors files.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "src/checkpoint/safetensors.h"

namespace seam::checkpoint {
namespace {

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::Status(errno == ENOENT ? absl::StatusCode::kNotFound : absl::StatusCode::kInternal,
                      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// A file descriptor closed on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int Release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

absl::Status WriteAll(int fd, const void* data, size_t size, const std::string& path) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Errno("cannot write", path);
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status ReadAll(int fd, void* data, size_t size, const std::string& path) {
  auto* bytes = static_cast<uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = read(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("cannot read", path);
    if (n == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": the file ends early"));
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// The header text for `tensors` in the given order, padded with spaces so that the data
// starts 8-byte aligned, and the data section's size.
absl::StatusOr<std::string> BuildHeader(const std::vector<TensorToWrite>& tensors,
                                        const std::map<std::string, std::string>& metadata,
                                        uint64_t* data_bytes) {
  nlohmann::json root = nlohmann::json::object();
  if (!metadata.empty()) root["__metadata__"] = metadata;
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const TensorToWrite& t : tensors) {
    if (t.name == "__metadata__" || !names.insert(t.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("safetensors: tensor name '", t.name, "' is reserved or used twice"));
    }
    uint64_t bytes = static_cast<uint64_t>(DTypeSize(t.dtype));
    for (int64_t d : t.shape) {
      if (d < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) {
        return absl::InvalidArgumentError(
            absl::StrCat("safetensors: tensor '", t.name, "' has a bad shape"));
      }
    }
    if (bytes != t.bytes.size()) {
      return absl::InvalidArgumentError(absl::StrCat("safetensors: tensor '", t.name, "' (",
                                                     DTypeName(t.dtype), ") needs ", bytes,
                                                     " bytes, ", t.bytes.size(), " given"));
    }
    root[t.name] = {{"dtype", DTypeName(t.dtype)},
                    {"shape", t.shape},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text;
  try {
    text = root.dump();
  } catch (const nlohmann::json::type_error& e) {  // a name or a value that is not UTF-8
    return absl::InvalidArgumentError(absl::StrCat("safetensors: ", e.what()));
  }
  text.append((8 - (8 + text.size()) % 8) % 8, ' ');
  *data_bytes = offset;
  return text;
}

// Makes a completed rename durable: the folder's entry is synced too.
void SyncFolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  Fd dir(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) fsync(dir.get());
}

// The test hook of docs/checkpoints.md: SEAM_TEST_KILL_BEFORE_RENAME=N ends the process
// with SIGKILL when its N-th atomic write (counted from 1) has its temporary file complete
// and synced, before the rename.
void MaybeKillBeforeRename() {
  static std::atomic<int64_t> writes{0};
  const char* env = std::getenv("SEAM_TEST_KILL_BEFORE_RENAME");
  if (env == nullptr || *env == '\0') return;
  if (++writes == std::strtoll(env, nullptr, 10)) raise(SIGKILL);
}

}  // namespace

absl::Status WriteAtomically(const std::string& path,
                             const std::function<absl::Status(int fd, const std::string&)>& write) {
  const std::string temporary = absl::StrCat(path, ".tmp.", getpid());
  Fd fd(open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return Errno("cannot create", temporary);
  auto write_all = [&]() -> absl::Status {
    if (absl::Status s = write(fd.get(), temporary); !s.ok()) return s;
    if (fsync(fd.get()) != 0) return Errno("cannot sync", temporary);
    if (close(fd.Release()) != 0) return Errno("cannot close", temporary);
    MaybeKillBeforeRename();
    if (rename(temporary.c_str(), path.c_str()) != 0) return Errno("cannot rename onto", path);
    return absl::OkStatus();
  };
  absl::Status status = write_all();
  if (!status.ok()) {
    unlink(temporary.c_str());
    return status;
  }
  SyncFolderOf(path);
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  uint64_t data_bytes = 0;
  absl::StatusOr<std::string> header = BuildHeader(tensors, metadata, &data_bytes);
  if (!header.ok()) return header.status();
  return WriteAtomically(path, [&](int fd, const std::string& temporary) -> absl::Status {
    uint8_t length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(header->size() >> (8 * i));
    if (absl::Status s = WriteAll(fd, length, 8, temporary); !s.ok()) return s;
    if (absl::Status s = WriteAll(fd, header->data(), header->size(), temporary); !s.ok()) {
      return s;
    }
    for (const TensorToWrite& t : tensors) {
      if (absl::Status s = WriteAll(fd, t.bytes.data(), t.bytes.size(), temporary); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  });
}

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  return WriteAtomically(path, [&](int fd, const std::string& temporary) {
    return WriteAll(fd, text.data(), text.size(), temporary);
  });
}

absl::StatusOr<std::unique_ptr<File>> File::Open(const std::string& path) {
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Errno("cannot open", path);
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return Errno("cannot stat", path);
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < 8) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", size, " bytes, too short for a safetensors file (at least 8)"));
  }
  uint8_t length_bytes[8];
  if (absl::Status s = ReadAll(fd.get(), length_bytes, 8, path); !s.ok()) return s;
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | length_bytes[i];
  if (length > kMaxHeaderBytes || length > size - 8) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": the header length ", length, " is larger than ",
        length > kMaxHeaderBytes ? absl::StrCat("the limit of ", kMaxHeaderBytes, " bytes")
                                 : absl::StrCat("the ", size - 8, " bytes after it")));
  }
  std::string text(length, '\0');
  if (absl::Status s = ReadAll(fd.get(), text.data(), length, path); !s.ok()) return s;
  absl::StatusOr<Header> header = ParseHeader(text, size - 8 - length);
  if (!header.ok()) {
    return absl::Status(header.status().code(),
                        absl::StrCat(path, ": ", header.status().message()));
  }
  std::unique_ptr<File> file(new File());
  file->header_ = *std::move(header);
  if (size - 8 - length > 0) {
    // Populated at once: one pass over the page cache instead of a fault per page.
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
    if (map == MAP_FAILED) return Errno("cannot map", path);
    file->map_ = map;
    file->map_size_ = size;
    file->data_ = static_cast<const uint8_t*>(map) + 8 + length;
  }
  return file;
}

File::~File() {
  if (map_ != nullptr) munmap(map_, map_size_);
}

absl::Span<const uint8_t> File::Bytes(const TensorInfo& info) const {
  if (data_ == nullptr) return {};
  return {data_ + info.begin, static_cast<size_t>(info.end - info.begin)};
}

}  // namespace seam::checkpoint
