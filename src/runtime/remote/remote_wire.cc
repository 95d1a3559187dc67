#include "src/runtime/remote/remote_wire.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace seam::runtime::wire {

std::string HostPort::ToString() const {
  if (host.find(':') != std::string::npos) return absl::StrCat("[", host, "]:", port);
  return absl::StrCat(host, ":", port);
}

absl::StatusOr<HostPort> ParseHostPort(const std::string& text, const std::string& what,
                                       bool allow_port_zero) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be HOST:PORT (e.g. ",
                                                   kDefaultAddress, " or [::1]:8548), got '",
                                                   Quote(text), "': ", why));
  };
  HostPort result;
  std::string port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos) return bad("no ']' after the IPv6 address");
    result.host = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') return bad("no ':PORT' after ']'");
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos) return bad("no ':PORT'");
    result.host = text.substr(0, colon);
    if (result.host.find(':') != std::string::npos) {
      return bad("an IPv6 address must be written in brackets");
    }
    port = text.substr(colon + 1);
  }
  if (result.host.empty()) return bad("the host is empty");
  int value = 0;
  if (port.empty() || !absl::SimpleAtoi(port, &value) || value < 0 || value > 65535 ||
      (value == 0 && !allow_port_zero)) {
    return bad(absl::StrCat("the port '", port, "' is not a number from ", allow_port_zero ? 0 : 1,
                            " to 65535"));
  }
  result.port = value;
  return result;
}

absl::Status CheckListenHost(const HostPort& address, const std::string& what) {
  if (address.host == "localhost") return absl::OkStatus();
  in6_addr v6;
  in_addr v4;
  if (inet_pton(AF_INET, address.host.c_str(), &v4) == 1 ||
      inet_pton(AF_INET6, address.host.c_str(), &v6) == 1) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, " must name a literal IP address (127.0.0.1, ::1, 0.0.0.0, ...) or localhost, got '",
      Quote(address.host), "' in '", Quote(address.ToString()),
      "': host names are not resolved (a server binds exactly the address given)"));
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const std::string& what) {
  auto refuse = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the token file '", path, "' ", why));
  };
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cannot read the token file '", path, "': ", std::strerror(errno)));
  }
  struct stat info = {};
  if (fstat(fd, &info) != 0) {
    const int error = errno;
    close(fd);
    return refuse(absl::StrCat("cannot be examined: ", std::strerror(error)));
  }
  // As ssh does with a private key: a secret others may read is no longer one. Pipes and
  // devices (a token handed over by the shell) have no such mode to check.
  if (S_ISREG(info.st_mode) && (info.st_mode & 077) != 0) {
    close(fd);
    return refuse(absl::StrFormat(
        "has mode %04o: its group or others may read or write it; a token must be readable by "
        "its owner only (chmod 600 '%s')",
        info.st_mode & 07777, path));
  }
  std::string text(kMaxTokenFileBytes + 1, '\0');
  size_t filled = 0;
  while (filled < text.size()) {
    const ssize_t n = read(fd, text.data() + filled, text.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return refuse(absl::StrCat("cannot be read: ", std::strerror(error)));
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  close(fd);
  if (filled > kMaxTokenFileBytes) {
    return refuse(
        absl::StrCat("holds more than ", kMaxTokenFileBytes, " bytes (a token is one short line)"));
  }
  text.resize(filled);
  std::string token(absl::StripTrailingAsciiWhitespace(text));
  if (token.empty()) return refuse("is empty");
  if (token.find('\n') != std::string::npos || token.find('\r') != std::string::npos) {
    return refuse("holds more than one line (one token expected)");
  }
  for (char c : token) {
    if (c < 0x20 || c > 0x7e) {
      return refuse(
          "holds a character that is not printable ASCII (a token travels as gRPC metadata)");
    }
  }
  return token;
}

std::string Quote(absl::string_view text, size_t keep) {
  if (text.size() <= keep) return absl::CHexEscape(text);
  return absl::StrCat(absl::CHexEscape(text.substr(0, keep)), "...(", text.size(), " bytes)");
}

std::string Truncate(absl::string_view message, size_t keep) {
  if (message.size() <= keep) return std::string(message);
  return absl::StrCat(message.substr(0, keep), "...(", message.size(), " bytes)");
}

}  // namespace seam::runtime::wire
