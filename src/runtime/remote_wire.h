// What the remote client (remote_computation_client.h) and `seam serve`'s service
// (remote_service.h) agree on besides the .proto: the token's metadata key, the chunk and
// message sizes, keepalive, addresses and status conversion. docs/remote.md.
#ifndef SEAM_RUNTIME_REMOTE_WIRE_H_
#define SEAM_RUNTIME_REMOTE_WIRE_H_

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace seam::runtime::wire {

// Every call carries the token as this metadata entry when the server has a token file.
inline constexpr char kTokenMetadata[] = "seam-token";
// Transfers travel in chunks of at most this many bytes (far below gRPC's 4 MiB default).
inline constexpr size_t kChunkBytes = size_t{1} << 20;
// Uploads of up to this many bytes in all are kept back by the client and travel inside
// the next execute (remote_deferred.h): a training step's batch then costs no round trip.
inline constexpr size_t kDeferredUploadBytes = size_t{2} << 20;
// The largest single message either side accepts: a compile request carries a program's IR
// text, which may hold large constants. Transfers never come near it (chunked).
inline constexpr int kMaxMessageBytes = 256 << 20;
// Keepalive: a peer that stops answering pings is dropped after about 20 s, so a call to a
// server that went away fails instead of hanging (a closed connection fails at once).
inline constexpr int kKeepaliveTimeMs = 10000;
inline constexpr int kKeepaliveTimeoutMs = 10000;
// The default address of `seam serve`.
inline constexpr char kDefaultAddress[] = "127.0.0.1:8548";

struct HostPort {
  std::string host;  // without brackets for IPv6
  int port = 0;
  std::string ToString() const;  // "[::1]:8548" or "127.0.0.1:8548"
};

// Parses "host:port" or "[v6]:port". `what` names the source in errors (e.g.
// "SEAM_REMOTE_ADDRESS"); the port must be 1..65535, or 0 when `allow_port_zero`.
absl::StatusOr<HostPort> ParseHostPort(const std::string& text, const std::string& what,
                                       bool allow_port_zero);

// The token in `path`, without trailing white space; an error naming `what` and the path
// when the file cannot be read or holds no token.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const std::string& what);

inline grpc::Status ToGrpc(const absl::Status& status) {
  return {static_cast<grpc::StatusCode>(status.code()), std::string(status.message())};
}
inline absl::Status FromGrpc(const grpc::Status& status) {
  return {static_cast<absl::StatusCode>(status.error_code()), status.error_message()};
}

}  // namespace seam::runtime::wire

#endif  // SEAM_RUNTIME_REMOTE_WIRE_H_
