#include "src/runtime/distributed/job_secret.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace seam::runtime {
namespace {

// Closes the descriptor when the scope ends.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

// Fills `out` from the system's generator; false when it cannot.
bool FillRandom(unsigned char* out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = getrandom(out + done, size - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  if (done == size) return true;
  // A kernel without getrandom (or a seccomp filter refusing it): the device instead.
  Fd device{open("/dev/urandom", O_RDONLY | O_CLOEXEC)};
  if (device.fd < 0) return false;
  done = 0;
  while (done < size) {
    const ssize_t n = read(device.fd, out + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> ReadJobSecretFile(const std::string& path, const std::string& what) {
  const std::string name = absl::StrCat(what, "='", absl::CHexEscape(path), "'");
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " is empty"));
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
  Fd file{open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (file.fd < 0) {
    const int error = errno;
    const auto code =
        error == EACCES ? absl::StatusCode::kPermissionDenied : absl::StatusCode::kNotFound;
    return absl::Status(
        code, absl::StrCat("Cannot open the job's secret file ", name, ": ", std::strerror(error)));
  }
  struct stat info {};
  if (fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("The job's secret file ", name, " is not a regular file"));
  }
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "The job's secret file %s has mode %04o: its group or other users may read or write "
        "it. Make it private to its owner (chmod 600)",
        name, info.st_mode & 07777));
  }
  std::vector<char> buffer(kMaxJobSecretFileBytes + 1);
  size_t size = 0;
  while (size < buffer.size()) {
    const ssize_t n = read(file.fd, buffer.data() + size, buffer.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("Cannot read the job's secret file ", name, ": ", std::strerror(errno)));
    }
    if (n == 0) break;
    size += static_cast<size_t>(n);
  }
  if (size > kMaxJobSecretFileBytes) {
    return absl::InvalidArgumentError(absl::StrCat("The job's secret file ", name,
                                                   " is larger than ", kMaxJobSecretFileBytes,
                                                   " bytes (a secret is a short line)"));
  }
  std::string secret(buffer.data(), size);
  absl::StripTrailingAsciiWhitespace(&secret);
  if (secret.size() < kMinJobSecretBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The job's secret file ", name, " holds ", secret.size(), " bytes; a job secret needs at ",
        "least ", kMinJobSecretBytes, " (e.g. 64 random hex digits: openssl rand -hex 32)"));
  }
  return secret;
}

absl::StatusOr<std::string> NewJobSecret(size_t bytes) {
  std::vector<unsigned char> random(bytes);
  if (!FillRandom(random.data(), random.size())) {
    return absl::UnavailableError(absl::StrCat(
        "Cannot make a job secret: neither getrandom nor /dev/urandom gave ", bytes, " bytes"));
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes);
  for (unsigned char byte : random) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 0xf]);
  }
  return hex;
}

bool SecretsEqual(std::string_view a, std::string_view b) {
  // Every byte of the longer string is visited, whatever the contents.
  const size_t length = a.size() > b.size() ? a.size() : b.size();
  unsigned difference = a.size() == b.size() ? 0U : 1U;
  for (size_t i = 0; i < length; ++i) {
    const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
    const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
    difference |= static_cast<unsigned>(x ^ y);
  }
  // Read through a volatile so that no compiler turns the loop into an early exit.
  volatile unsigned result = difference;
  return result == 0;
}

}  // namespace seam::runtime
