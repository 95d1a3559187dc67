// The address this process offers its peers for cross-process collectives: the address of
// the interface that routes to MASTER_ADDR (docs/cpu-plugin.md, "Multi-process collectives").
#ifndef SEAM_PLUGINS_CPU_LOCAL_ADDRESS_H_
#define SEAM_PLUGINS_CPU_LOCAL_ADDRESS_H_

#include <sys/socket.h>

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace seam::cpu {

// The environment variable naming the job's master host (an IPv4 or IPv6 address, or a
// host name), read at PJRT_Client_Create when process_count > 1.
inline constexpr char kMasterAddressVariable[] = "MASTER_ADDR";

// A socket address with its length; the port is 0.
struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;

  int family() const { return storage.ss_family; }
  std::string ToString() const;  // "127.0.0.1", "::1"
};

// The address of `master` itself: parsed numerically when it is an IPv4 or IPv6 address
// (brackets around an IPv6 address are allowed), else resolved with getaddrinfo (the first
// address returned). INVALID_ARGUMENT when it is empty or cannot be resolved.
absl::StatusOr<SocketAddress> MasterAddress(std::string_view master);

// The local address of the interface that routes to `master`: a UDP socket is connected
// to it (which sends nothing) and getsockname read. This machine's own host name is never
// looked up. UNAVAILABLE when no route exists.
absl::StatusOr<SocketAddress> LocalAddressTowards(const SocketAddress& master);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_LOCAL_ADDRESS_H_
