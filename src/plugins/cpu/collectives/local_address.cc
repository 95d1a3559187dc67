#include "src/plugins/cpu/collectives/local_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"

namespace seam::cpu {
namespace {

// Any port will do: connecting a UDP socket only picks a route, nothing is sent.
constexpr uint16_t kProbePort = 9;

void SetPort(SocketAddress& address, uint16_t port) {
  if (address.family() == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&address.storage)->sin_port = htons(port);
  } else if (address.family() == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&address.storage)->sin6_port = htons(port);
  }
}

std::optional<SocketAddress> ParseNumeric(const std::string& text) {
  SocketAddress address;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address.storage);
  if (inet_pton(AF_INET, text.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    address.length = sizeof(sockaddr_in);
    return address;
  }
  std::string v6_text = text;
  if (v6_text.size() > 2 && v6_text.front() == '[' && v6_text.back() == ']') {
    v6_text = v6_text.substr(1, v6_text.size() - 2);
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&address.storage);
  if (inet_pton(AF_INET6, v6_text.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    address.length = sizeof(sockaddr_in6);
    return address;
  }
  return std::nullopt;
}

}  // namespace

std::string SocketAddress::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  const void* raw = nullptr;
  if (family() == AF_INET) {
    raw = &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr;
  } else if (family() == AF_INET6) {
    raw = &reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr;
  }
  if (raw == nullptr || inet_ntop(family(), raw, text, sizeof(text)) == nullptr) {
    return "(no address)";
  }
  return text;
}

absl::StatusOr<SocketAddress> MasterAddress(std::string_view master) {
  const std::string text(master);
  if (text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("environment variable ", kMasterAddressVariable, " is empty"));
  }
  if (std::optional<SocketAddress> numeric = ParseNumeric(text)) return *numeric;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const int rv = getaddrinfo(text.c_str(), nullptr, &hints, &found);
  if (rv != 0 || found == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(kMasterAddressVariable, "='", text,
                                                   "' cannot be resolved: ", gai_strerror(rv)));
  }
  SocketAddress address;
  std::memcpy(&address.storage, found->ai_addr, found->ai_addrlen);
  address.length = found->ai_addrlen;
  freeaddrinfo(found);
  SetPort(address, 0);
  return address;
}

absl::StatusOr<SocketAddress> LocalAddressTowards(const SocketAddress& master) {
  SocketAddress probe = master;
  SetPort(probe, kProbePort);
  const int fd = socket(master.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat("socket(SOCK_DGRAM) failed: ", strerror(errno)));
  }
  SocketAddress local;
  local.length = sizeof(local.storage);
  int rv = connect(fd, reinterpret_cast<const sockaddr*>(&probe.storage), probe.length);
  if (rv == 0) rv = getsockname(fd, reinterpret_cast<sockaddr*>(&local.storage), &local.length);
  const int error = rv == 0 ? 0 : errno;
  close(fd);
  if (rv != 0) {
    return absl::UnavailableError(
        absl::StrCat("no local address routes to ", master.ToString(), ": ", strerror(error)));
  }
  SetPort(local, 0);
  return local;
}

}  // namespace seam::cpu
