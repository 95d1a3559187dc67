// `seam serve`: the devices of this process, served over gRPC to remote clients
// (SEAM_CLIENT=remote; docs/remote.md). The command parses its flags; the service is
// src/runtime/serve/remote_service.h.
#ifndef SEAM_TOOLS_SERVE_COMMAND_H_
#define SEAM_TOOLS_SERVE_COMMAND_H_

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"

namespace seam::tools {

// The bounds' defaults are RemoteService::Options's (docs/remote.md, "Limits").
struct ServeOptions {
  std::string address = "127.0.0.1:8548";
  std::string token_file;  // empty: no token
  int max_message_mib = 4;
  int max_sessions = 64;
  int max_streams_per_connection = 32;
  double stall_timeout_s = 30;
  double idle_timeout_s = 60;
  int memory_quota_mib = 512;
  int max_threads = 256;
};

// Adds the subcommand and its flags to `app`.
CLI::App* AddServeCommand(CLI::App& app, ServeOptions& options);

// Creates the client from the environment (PJRT_DEVICE, as every program does), binds
// exactly options.address, prints "seam serve: listening on HOST:PORT ..." to `out` and
// serves until SIGINT or SIGTERM. After such a stop it ends the process with status 0 at
// once (runs still queued by clients are abandoned, not drained); returns 1 on an error
// (printed to `err`, naming what was wrong).
int Serve(const ServeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace seam::tools

#endif  // SEAM_TOOLS_SERVE_COMMAND_H_
