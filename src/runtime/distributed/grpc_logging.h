// gRPC's own log lines (e.g. "chttp2_server.cc:... No address added out of total 1
// resolved") must not reach a user ahead of seam's message for the same failure: seam's
// processes drop them unless the user asked for them with GRPC_VERBOSITY or GRPC_TRACE
// (docs/distributed.md, "Messages").
#ifndef SEAM_RUNTIME_DISTRIBUTED_GRPC_LOGGING_H_
#define SEAM_RUNTIME_DISTRIBUTED_GRPC_LOGGING_H_

namespace seam::runtime {

// Installs, once per process, a gRPC log function that drops every line, unless
// GRPC_VERBOSITY or GRPC_TRACE is set and not empty (then gRPC logs as it would). Call it
// before a gRPC server or channel is made; further calls do nothing.
void QuietGrpcLogging();

// Whether QuietGrpcLogging dropped gRPC's log lines (false before it ran or when the
// environment asked for them). For tests.
bool GrpcLoggingQuieted();

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_DISTRIBUTED_GRPC_LOGGING_H_
