// Reading (validated, then mapped) and writing (atomically) safetensors files.
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <thread>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "src/base/settings.h"
#include "src/checkpoint/safetensors.h"

namespace seam::checkpoint {
namespace {

absl::Status Errno(const std::string& what, const std::string& path) {
  const int error = errno;
  return absl::Status(ErrnoCode(error), absl::StrCat(what, " ", path, ": ", std::strerror(error)));
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
    if (n == 0) return absl::DataLossError(absl::StrCat(path, ": the file ends early"));
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// The header text for `tensors` in the given order, padded with spaces so that the data
// starts 8-byte aligned, and the data section's size.
// The header of `tensors`; each tensor's byte size goes to `sizes`, and is checked against
// its `bytes` when `check_bytes`.
absl::StatusOr<std::string> BuildHeader(const std::vector<TensorToWrite>& tensors,
                                        const std::map<std::string, std::string>& metadata,
                                        bool check_bytes, std::vector<uint64_t>* sizes) {
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
    sizes->push_back(bytes);
    if (check_bytes && bytes != t.bytes.size()) {
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
  return text;
}

// The folder `path` is in ("." for a bare name).
std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash + 1);
}

// Makes a completed rename durable: the folder's entry is synced too.
void SyncFolderOf(const std::string& path) {
  Fd dir(open(FolderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) fsync(dir.get());
}

// Removes the temporary files that atomic writes of `path` left behind when their process
// was killed before the rename: exactly `<name of path>.tmp.<pid>` in the same folder, the
// pid written as WriteAtomically writes it, a regular file, and only when no process has
// that pid (kill(pid, 0) fails with ESRCH), so a save of `path` still running in another
// process keeps its file. Best effort: what cannot be listed or removed stays.
void RemoveLeftovers(const std::string& path) {
  const std::string prefix = absl::StrCat(path.substr(path.rfind('/') + 1), ".tmp.");
  if (prefix.size() == 5) return;  // a path ending in '/': no name, nothing of ours
  DIR* dir = opendir(FolderOf(path).c_str());
  if (dir == nullptr) return;
  const pid_t self = getpid();
  while (const dirent* entry = readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) continue;
    const std::string_view digits = name.substr(prefix.size());
    pid_t pid = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (error != std::errc() || end != digits.data() + digits.size() || digits[0] == '0' ||
        pid <= 0 || pid == self) {
      continue;
    }
    struct stat st {};
    if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
      continue;
    }
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (EPERM: alive, not ours)
    unlinkat(dirfd(dir), entry->d_name, 0);
  }
  closedir(dir);
}

// The test hook of docs/checkpoints.md: SEAM_TEST_KILL_BEFORE_RENAME=N ends the process
// with SIGKILL when its N-th atomic write (counted from 1) has its temporary file complete
// and synced, before the rename.
void MaybeKillBeforeRename() {
  static std::atomic<int64_t> writes{0};
  const std::optional<std::string> env =
      base::ReadSetting(base::Setting::kSeamTestKillBeforeRename);
  if (!env.has_value() || env->empty()) return;
  if (++writes == std::strtoll(env->c_str(), nullptr, 10)) raise(SIGKILL);
}

absl::Status WriteHeader(int fd, const std::string& header, const std::string& temporary) {
  uint8_t length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(header.size() >> (8 * i));
  if (absl::Status s = WriteAll(fd, length, 8, temporary); !s.ok()) return s;
  return WriteAll(fd, header.data(), header.size(), temporary);
}

// The writer's unit: after each chunk the kernel is asked to start writing it to the disk.
constexpr size_t kWritebackChunk = size_t{8} << 20;

// Starts the disk write of [offset, offset + size) of `fd`'s dirty pages without waiting for
// it, so that the disk works while later bytes are still being produced and the final fsync
// has little left to do. A hint: where the file system cannot (an error), fsync does it all.
void StartWriteback(int fd, uint64_t offset, size_t size) {
  sync_file_range(fd, static_cast<off_t>(offset), static_cast<off_t>(size), SYNC_FILE_RANGE_WRITE);
}

// Writes the tensors pushed to it, in order, on a thread of its own, from file offset
// `offset` on, starting each chunk's writeback as soon as it is written; holds at most one
// tensor waiting besides the one being written.
class OverlappedWriter {
 public:
  OverlappedWriter(int fd, const std::string& path, uint64_t offset)
      : fd_(fd), path_(path), offset_(offset), thread_([this] { Run(); }) {}
  ~OverlappedWriter() { Finish(/*abandon=*/true).IgnoreError(); }
  OverlappedWriter(const OverlappedWriter&) = delete;
  OverlappedWriter& operator=(const OverlappedWriter&) = delete;

  // Queues `bytes` once the previous tensor has been taken; false if the writer failed.
  bool Push(TensorBytes bytes) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return !waiting_.has_value() || stop_; });
    if (stop_) return false;
    waiting_ = std::move(bytes);
    changed_.notify_all();
    return true;
  }

  // Writes what was pushed (drops it when `abandon`), ends the thread, returns the first
  // write error.
  absl::Status Finish(bool abandon) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (abandon) {
        waiting_.reset();
        stop_ = true;
      }
      no_more_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
    return status_;
  }

 private:
  void Run() {
    for (;;) {
      TensorBytes item;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [&] { return waiting_.has_value() || no_more_ || stop_; });
        if (!waiting_.has_value()) return;
        item = *std::move(waiting_);
        waiting_.reset();
      }
      changed_.notify_all();
      absl::Status s = WriteChunks(item.bytes);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        status_ = s;
        stop_ = true;
        waiting_.reset();
        changed_.notify_all();
        return;
      }
    }
  }

  absl::Status WriteChunks(absl::Span<const uint8_t> bytes) {
    for (size_t done = 0; done < bytes.size();) {
      const size_t size = std::min(kWritebackChunk, bytes.size() - done);
      if (absl::Status s = WriteAll(fd_, bytes.data() + done, size, path_); !s.ok()) return s;
      StartWriteback(fd_, offset_, size);
      offset_ += size;
      done += size;
    }
    return absl::OkStatus();
  }

  const int fd_;
  const std::string path_;
  uint64_t offset_;  // where the next byte goes; used by the thread only
  std::mutex mu_;
  std::condition_variable changed_;
  std::optional<TensorBytes> waiting_;  // guarded by mu_
  bool no_more_ = false;                // guarded by mu_
  bool stop_ = false;                   // guarded by mu_
  absl::Status status_;                 // written by the thread, read after the join
  std::thread thread_;                  // last: starts once the members above exist
};

}  // namespace

absl::StatusCode ErrnoCode(int error) {
  switch (error) {
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::StatusCode::kPermissionDenied;
    case ENOENT:
      return absl::StatusCode::kNotFound;
    case EISDIR:   // a folder where a file belongs
    case ENOTDIR:  // a file where a folder belongs
      return absl::StatusCode::kFailedPrecondition;
    case ENOSPC:
    case EDQUOT:
    case ENOMEM:
    case EMFILE:
    case ENFILE:
      return absl::StatusCode::kResourceExhausted;
    default:
      return absl::StatusCode::kInternal;
  }
}

absl::Status WriteAtomically(const std::string& path,
                             const std::function<absl::Status(int fd, const std::string&)>& write) {
  // Refused before anything is written (else the whole file would be written and the
  // rename would fail).
  if (struct stat st{}; stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("cannot write ", path, ": a directory"));
  }
  RemoveLeftovers(path);
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
  absl::Status status;
  try {
    status = write_all();
  } catch (...) {  // `write` may throw (a reader's error): no temporary file is left behind
    unlink(temporary.c_str());
    throw;
  }
  if (!status.ok()) {
    unlink(temporary.c_str());
    return status;
  }
  SyncFolderOf(path);
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<uint64_t> sizes;
  absl::StatusOr<std::string> header = BuildHeader(tensors, metadata, true, &sizes);
  if (!header.ok()) return header.status();
  return WriteAtomically(path, [&](int fd, const std::string& temporary) -> absl::Status {
    if (absl::Status s = WriteHeader(fd, *header, temporary); !s.ok()) return s;
    for (const TensorToWrite& t : tensors) {
      if (absl::Status s = WriteAll(fd, t.bytes.data(), t.bytes.size(), temporary); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  });
}

absl::Status WriteFileStreamed(const std::string& path, const std::vector<TensorToWrite>& tensors,
                               const std::map<std::string, std::string>& metadata,
                               const TensorProducer& produce) {
  std::vector<uint64_t> sizes;
  absl::StatusOr<std::string> header = BuildHeader(tensors, metadata, false, &sizes);
  if (!header.ok()) return header.status();
  return WriteAtomically(path, [&](int fd, const std::string& temporary) -> absl::Status {
    if (absl::Status s = WriteHeader(fd, *header, temporary); !s.ok()) return s;
    OverlappedWriter writer(fd, temporary, 8 + header->size());
    std::exception_ptr thrown;
    absl::Status status;
    try {
      for (size_t i = 0; i < tensors.size() && status.ok(); ++i) {
        absl::StatusOr<TensorBytes> bytes = produce(i);
        if (!bytes.ok()) {
          status = bytes.status();
        } else if (bytes->bytes.size() != sizes[i]) {
          status = absl::InvalidArgumentError(absl::StrCat("safetensors: tensor '", tensors[i].name,
                                                           "' needs ", sizes[i], " bytes, ",
                                                           bytes->bytes.size(), " given"));
        } else if (!writer.Push(*std::move(bytes))) {
          break;  // the writer failed: its error is returned below
        }
      }
    } catch (...) {
      thrown = std::current_exception();
    }
    absl::Status written = writer.Finish(/*abandon=*/!status.ok() || thrown != nullptr);
    if (thrown != nullptr) std::rethrow_exception(thrown);
    return status.ok() ? written : status;
  });
}

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  return WriteAtomically(path, [&](int fd, const std::string& temporary) {
    return WriteAll(fd, text.data(), text.size(), temporary);
  });
}

absl::StatusOr<std::unique_ptr<File>> File::Open(const std::string& path) {
  // O_NONBLOCK: a FIFO opens at once (and is refused below) instead of waiting for a writer;
  // reads of a regular file ignore it.
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return Errno("cannot open", path);
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return Errno("cannot stat", path);
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": not a regular file", S_ISDIR(st.st_mode) ? " (a directory)" : ""));
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < 8) {
    return absl::DataLossError(
        absl::StrCat(path, ": ", size, " bytes, too short for a safetensors file (at least 8)"));
  }
  uint8_t length_bytes[8];
  if (absl::Status s = ReadAll(fd.get(), length_bytes, 8, path); !s.ok()) return s;
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | length_bytes[i];
  if (length > kMaxHeaderBytes || length > size - 8) {
    return absl::DataLossError(absl::StrCat(
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
