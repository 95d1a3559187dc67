// What the remote client (remote_computation_client.h) and `seam serve`'s service
// (remote_service.h) agree on besides the .proto: the token's metadata key, the chunk and
// message sizes, keepalive, addresses and status conversion. docs/remote.md.
#ifndef SEAM_RUNTIME_REMOTE_REMOTE_WIRE_H_
#define SEAM_RUNTIME_REMOTE_REMOTE_WIRE_H_

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace seam::runtime::wire {

// Every call carries the token as this metadata entry when the server has a token file.
inline constexpr char kTokenMetadata[] = "seam-token";
// Transfers travel in chunks of at most this many bytes (far below gRPC's 4 MiB default).
inline constexpr size_t kChunkBytes = size_t{1} << 20;
// Uploads of up to this many bytes in all are kept back by the client and travel inside
// the next execute (remote_deferred.h): a training step's batch then costs no round trip.
inline constexpr size_t kDeferredUploadBytes = size_t{2} << 20;
// The largest single message the client accepts from its server (which it trusts): a
// server's metrics report, a long handle list. What the client sends is far smaller: every
// large payload (uploads, a compile request) travels in chunks of kChunkBytes.
inline constexpr int kMaxMessageBytes = 256 << 20;
// The largest single message `seam serve` accepts by default (--max-message-mib): gRPC reads a
// unary request's whole body before any handler can check its token, so this bounds what a
// peer without a token can make the server read per call. Well above what the client sends
// in one message (kDeferredUploadBytes of inline tensors and their handles).
inline constexpr int kDefaultServerMessageBytes = 4 << 20;
// The largest compile request (a program's IR text with its constants), streamed in chunks.
inline constexpr size_t kMaxCompileBytes = size_t{256} << 20;
// Client text (a device name, a dtype, the client's name) quoted in an error or a log line
// keeps its first kQuoteBytes bytes; a status message sent to a client keeps its first
// kMaxStatusMessageBytes (gRPC sends it as metadata, which a peer limits to 8 KiB).
inline constexpr size_t kQuoteBytes = 200;
inline constexpr size_t kMaxStatusMessageBytes = 1024;
// A token file holds one short line; a longer file is refused without reading further.
inline constexpr size_t kMaxTokenFileBytes = 4096;
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

// A host `seam serve` may bind: a literal IPv4 or IPv6 address, or "localhost" (which gRPC
// binds as the loopback addresses itself). Anything else, a host name or a stray space
// included, is InvalidArgument naming `what` and the address: nothing is sent to a resolver.
absl::Status CheckListenHost(const HostPort& address, const std::string& what);
// Whether `host` (as CheckListenHost accepts it) names a loopback address.
bool IsLoopbackHost(const std::string& host);

// The token in `path`, without trailing white space; an error naming `what` and the path
// when the file cannot be read, holds no token or more than kMaxTokenFileBytes, or (for a
// regular file) may be read or written by its group or by others (as ssh refuses such a
// key): the message names the mode.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path, const std::string& what);

// `text` escaped for a message, cut after kQuoteBytes bytes (or `keep`): "abc" or
// "abc...(12288 bytes)".
std::string Quote(absl::string_view text, size_t keep = kQuoteBytes);
// `message` cut after `keep` bytes, with the length it had: what a status or a log line
// carries when it might hold a client's text.
std::string Truncate(absl::string_view message, size_t keep = kMaxStatusMessageBytes);

inline grpc::Status ToGrpc(const absl::Status& status) {
  return {static_cast<grpc::StatusCode>(status.code()), Truncate(status.message())};
}
inline absl::Status FromGrpc(const grpc::Status& status) {
  return {static_cast<absl::StatusCode>(status.error_code()), status.error_message()};
}

}  // namespace seam::runtime::wire

#endif  // SEAM_RUNTIME_REMOTE_REMOTE_WIRE_H_
