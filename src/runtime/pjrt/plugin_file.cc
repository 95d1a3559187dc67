#include "src/runtime/pjrt/plugin_file.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/base/env.h"
#include "src/base/settings.h"

namespace seam::runtime {
namespace {

using Header = ElfW(Ehdr);
using ProgramHeader = ElfW(Phdr);

constexpr unsigned char kClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
constexpr unsigned char kByteOrder =
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr int kMachine = EM_PPC64;
#elif defined(__riscv)
constexpr int kMachine = EM_RISCV;
#elif defined(__s390x__)
constexpr int kMachine = EM_S390;
#else
constexpr int kMachine = -1;  // unknown here: the dynamic linker alone judges the machine
#endif

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads `size` bytes at `offset`; false when the file has fewer.
bool ReadAt(int fd, void* out, size_t size, uint64_t offset) {
  auto* bytes = static_cast<char*>(out);
  while (size > 0) {
    ssize_t got = ::pread(fd, bytes, size, static_cast<off_t>(offset));
    if (got <= 0) return false;
    bytes += got;
    size -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

std::string SegmentType(uint32_t type) {
  switch (type) {
    case PT_LOAD:
      return "PT_LOAD";
    case PT_DYNAMIC:
      return "PT_DYNAMIC";
    case PT_NOTE:
      return "PT_NOTE";
    case PT_TLS:
      return "PT_TLS";
    case PT_GNU_EH_FRAME:
      return "PT_GNU_EH_FRAME";
    default:
      return absl::StrCat("type 0x", absl::Hex(type));
  }
}

// The problem with the ELF header, or nullopt.
std::optional<std::string> HeaderProblem(const Header& header) {
  const unsigned char* ident = header.e_ident;
  if (ident[EI_CLASS] != kClass) {
    return absl::StrCat("wrong ELF class ", int{ident[EI_CLASS]}, " (",
                        ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : "not 64-bit",
                        "); this machine loads class ", int{kClass});
  }
  if (ident[EI_DATA] != kByteOrder) {
    return absl::StrCat("wrong byte order (ELF data encoding ", int{ident[EI_DATA]},
                        "); this machine needs ", int{kByteOrder},
                        kByteOrder == ELFDATA2LSB ? " (little-endian)" : " (big-endian)");
  }
  if (ident[EI_VERSION] != EV_CURRENT || header.e_version != EV_CURRENT) {
    return absl::StrCat("unknown ELF version ", header.e_version);
  }
  if (header.e_type != ET_DYN) {
    return absl::StrCat("not a shared object (ELF type ", header.e_type,
                        header.e_type == ET_EXEC  ? ", an executable"
                        : header.e_type == ET_REL ? ", an object file"
                                                  : "",
                        "); a plugin must be of type ET_DYN (", ET_DYN, ")");
  }
  if (kMachine >= 0 && header.e_machine != kMachine) {
    return absl::StrCat("built for ELF machine ", header.e_machine, ", this machine is ", kMachine);
  }
  if (header.e_phentsize != sizeof(ProgramHeader)) {
    return absl::StrCat("program header entries of ", header.e_phentsize, " bytes, expected ",
                        sizeof(ProgramHeader));
  }
  return std::nullopt;
}

// The problem with the program headers against the file's size, or nullopt.
std::optional<std::string> SegmentProblem(int fd, const Header& header, uint64_t file_size) {
  const uint64_t table_size = uint64_t{header.e_phnum} * sizeof(ProgramHeader);
  if (header.e_phoff > file_size || table_size > file_size - header.e_phoff) {
    return absl::StrCat("truncated: the program header table (", header.e_phnum,
                        " entries at byte ", header.e_phoff, ") ends past the end of the file (",
                        file_size, " bytes)");
  }
  std::vector<ProgramHeader> segments(header.e_phnum);
  if (!ReadAt(fd, segments.data(), table_size, header.e_phoff)) {
    return std::string("cannot read the program header table");
  }
  int loadable = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    const ProgramHeader& segment = segments[i];
    if (segment.p_type == PT_LOAD) ++loadable;
    if (segment.p_filesz == 0) continue;
    if (segment.p_offset > file_size || segment.p_filesz > file_size - segment.p_offset) {
      return absl::StrCat("truncated: segment ", i, " (", SegmentType(segment.p_type),
                          ") needs bytes ", segment.p_offset, " to ",
                          segment.p_offset + segment.p_filesz, ", the file has ", file_size,
                          " bytes");
    }
  }
  if (loadable == 0) return std::string("no loadable segment (PT_LOAD)");
  return std::nullopt;
}

// The problem with the file at `path`, or nullopt (also when it cannot be opened: dlopen
// then says why).
std::optional<std::string> FileProblem(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return std::nullopt;
  if (S_ISDIR(info.st_mode)) return std::string("is a directory, not a shared library");
  if (!S_ISREG(info.st_mode)) return std::string("not a regular file");
  const auto file_size = static_cast<uint64_t>(info.st_size);
  Header header{};
  const bool whole = ReadAt(fd.get(), &header, sizeof(header), 0);
  if (file_size < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return std::string("invalid ELF header");
  }
  if (!whole) {
    return absl::StrCat("file too short for an ELF header (", file_size, " bytes, the header has ",
                        sizeof(Header), ")");
  }
  if (std::optional<std::string> problem = HeaderProblem(header)) return problem;
  return SegmentProblem(fd.get(), header, file_size);
}

// Where the dynamic linker would look first for a bare name: $LD_LIBRARY_PATH's folders.
std::optional<std::string> FindInLibraryPath(const std::string& name) {
  std::optional<std::string> folders = base::ReadSetting(base::Setting::kLdLibraryPath);
  if (!folders.has_value()) return std::nullopt;
  for (absl::string_view folder : absl::StrSplit(*folders, absl::ByAnyChar(":;"))) {
    std::string candidate = absl::StrCat(folder.empty() ? "." : folder, "/", name);
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

absl::Status CheckPluginFile(const std::string& path) {
  std::string file = path;
  if (path.find('/') == std::string::npos) {
    std::optional<std::string> found = FindInLibraryPath(path);
    if (!found.has_value()) return absl::OkStatus();
    file = *found;
  }
  std::optional<std::string> problem = FileProblem(file);
  if (!problem.has_value()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Failed to open ", path, ": ", file, ": ", *problem));
}

}  // namespace seam::runtime
