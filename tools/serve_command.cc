#include "tools/serve_command.h"

#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/process/runtime.h"
#include "src/runtime/remote/remote_computation_client.h"
#include "src/runtime/remote/remote_wire.h"
#include "src/runtime/serve/remote_service.h"

namespace seam::tools {
namespace {

int g_stop_pipe[2] = {-1, -1};

void OnStopSignal(int /*signal*/) {
  const char byte = 1;
  // Async-signal-safe; a full pipe already holds a stop request.
  (void)!write(g_stop_pipe[1], &byte, 1);
}

absl::Status HandleStopSignals() {
  if (pipe2(g_stop_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
  }
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGINT, SIGTERM}) {
    if (sigaction(signal_number, &action, nullptr) != 0) {
      return absl::InternalError(
          absl::StrCat("cannot handle signal ", signal_number, ": ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

// A server receives every transfer into gRPC's read buffers (several MiB each for large
// messages) and frees them right after. With glibc's defaults such blocks are mappings of
// their own, or trimmed off the heap when freed, so every transfer faulted fresh zeroed pages
// in again (about a quarter of the server's CPU time on a 64 MiB upload). Keeping freed
// memory in the heap for reuse makes them hot.
void KeepFreedMemoryForReuse() {
  constexpr int kMmapThreshold = 64 << 20;   // blocks below this come from the heap
  constexpr int kTrimThreshold = 512 << 20;  // free heap top kept up to this
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
}

runtime::RemoteService::Options ServiceOptions(const ServeOptions& options) {
  auto millis = [](double seconds) {
    return std::chrono::milliseconds(std::llround(seconds * 1000));
  };
  runtime::RemoteService::Options service;
  service.max_message_bytes = options.max_message_mib << 20;
  service.max_sessions = options.max_sessions;
  service.max_streams_per_connection = options.max_streams_per_connection;
  service.stall_timeout = millis(options.stall_timeout_s);
  service.idle_timeout = millis(options.idle_timeout_s);
  service.memory_quota_bytes = int64_t{options.memory_quota_mib} << 20;
  service.max_threads = options.max_threads;
  return service;
}

}  // namespace

CLI::App* AddServeCommand(CLI::App& app, ServeOptions& options) {
  CLI::App* serve = app.add_subcommand(
      "serve",
      "Serve this machine's devices (PJRT_DEVICE, as for any program) over gRPC to programs "
      "run with SEAM_CLIENT=remote and SEAM_REMOTE_ADDRESS (docs/remote.md). Binds exactly "
      "the address given; stops on SIGINT or SIGTERM");
  serve->add_option("--address", options.address,
                    "HOST:PORT to listen on: a literal IP address or localhost, never a host "
                    "name (default 127.0.0.1:8548; port 0 picks a free one, printed on the "
                    "first line). An address that is not loopback needs --token-file");
  serve->add_option("--token-file", options.token_file,
                    "A file holding a token every call must carry (clients set "
                    "SEAM_REMOTE_TOKEN_FILE to a file with the same token); calls without "
                    "it are refused with UNAUTHENTICATED. Refused when its group or others "
                    "may read it (chmod 600)");
  // The bounds that keep a peer from exhausting the server (docs/remote.md, "Limits").
  serve
      ->add_option("--max-message-mib", options.max_message_mib,
                   "The largest single message accepted, in MiB (default 4); uploads and "
                   "compile requests travel in 1 MiB chunks and are not bound by it")
      ->check(CLI::Range(1, 2047));
  serve
      ->add_option("--max-sessions", options.max_sessions,
                   "Open sessions (client processes) at once; more are refused with "
                   "RESOURCE_EXHAUSTED (default 64)")
      ->check(CLI::Range(1, 100000));
  serve
      ->add_option("--max-streams-per-connection", options.max_streams_per_connection,
                   "Calls in progress on one connection; a client queues calls beyond it "
                   "(default 32)")
      ->check(CLI::Range(2, 100000));
  serve
      ->add_option("--stall-timeout-s", options.stall_timeout_s,
                   "An upload or compile stream that sends nothing for this many seconds is "
                   "ended (default 30)")
      ->check(CLI::Range(0.01, 86400.0));
  serve
      ->add_option("--idle-timeout-s", options.idle_timeout_s,
                   "A connection with no call in progress for this many seconds is closed "
                   "(default 60; a client's open session is a call in progress)")
      ->check(CLI::Range(0.01, 86400.0));
  serve
      ->add_option("--memory-quota-mib", options.memory_quota_mib,
                   "gRPC's memory quota for all connections' buffers, in MiB (default 512)")
      ->check(CLI::Range(16, 1048576));
  serve
      ->add_option("--max-threads", options.max_threads,
                   "gRPC's threads for calls (default 256); each open session holds one, and "
                   "calls beyond the bound are refused with RESOURCE_EXHAUSTED")
      ->check(CLI::Range(4, 100000));
  return serve;
}

int Serve(const ServeOptions& options, std::ostream& out, std::ostream& err) {
  absl::StatusOr<runtime::wire::HostPort> address =
      runtime::wire::ParseHostPort(options.address, "--address", /*allow_port_zero=*/true);
  if (!address.ok()) {
    err << "seam serve: " << address.status().message() << "\n";
    return 1;
  }
  if (absl::Status literal = runtime::wire::CheckListenHost(*address, "--address"); !literal.ok()) {
    err << "seam serve: " << literal.message() << "\n";
    return 1;
  }
  // A server anyone on the network can reach must require a token (docs/remote.md).
  if (options.token_file.empty() && !runtime::wire::IsLoopbackHost(address->host)) {
    err << "seam serve: --address " << address->ToString()
        << " is not a loopback address and no --token-file was given: any host that can "
           "reach it could use the devices; give --token-file FILE, or listen on 127.0.0.1, "
           "::1 or localhost (and tunnel, e.g. ssh -L)\n";
    return 1;
  }
  KeepFreedMemoryForReuse();
  runtime::RemoteService::Options service_options = ServiceOptions(options);
  service_options.address = address->ToString();
  if (!options.token_file.empty()) {
    absl::StatusOr<std::string> token =
        runtime::wire::ReadTokenFile(options.token_file, "--token-file");
    if (!token.ok()) {
      err << "seam serve: " << token.status().message() << "\n";
      return 1;
    }
    service_options.token = *std::move(token);
  }
  absl::StatusOr<std::string> kind = runtime::ReadClientKind();
  if (kind.ok() && *kind == runtime::kRemoteClientKind) {
    err << "seam serve: SEAM_CLIENT=remote is set, but the server needs devices of its own "
           "(unset SEAM_CLIENT and set PJRT_DEVICE)\n";
    return 1;
  }
  runtime::ClientSelection selection;
  absl::StatusOr<std::unique_ptr<runtime::ComputationClient>> client =
      runtime::CreateClientFromEnvironment(&selection);
  if (!client.ok()) {
    err << "seam serve: " << client.status().message() << "\n";
    return 1;
  }
  // SIGINT and SIGTERM stop the server: the handler writes to a pipe (all it may do), a
  // thread reads it. Threads started before main (OpenBLAS's) may receive the signal, so a
  // blocked mask would not do.
  if (absl::Status handled = HandleStopSignals(); !handled.ok()) {
    err << "seam serve: " << handled.message() << "\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<runtime::RemoteService>> service =
      runtime::RemoteService::Start(client->get(), service_options);
  if (!service.ok()) {
    err << service.status().message() << "\n";
    return 1;
  }
  runtime::wire::HostPort bound = *address;
  bound.port = (*service)->port();
  out << "seam serve: listening on " << bound.ToString() << " (platform "
      << (*client)->GetPlatformName() << ", " << (*client)->GetDeviceInfos().size() << " device(s)"
      << (service_options.token.empty() ? ", no token" : ", token required") << ")" << std::endl;

  runtime::RemoteService* running = service->get();
  std::thread watcher([running] {
    char byte = 0;
    while (read(g_stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    running->Stop();
  });
  running->Wait();
  service->reset();  // shut down: every session's handles are freed
  // The watcher waits on the pipe until a signal comes; after a stop that came from
  // elsewhere (never, today) it is left to the process's end.
  watcher.detach();
  // Runs that sessions launched and never waited for may still be queued on the devices;
  // the plugin's exit handler would run them all first (seconds, for a client that launched
  // without pacing). They have no reader left: end the process now, without exit handlers.
  out << "seam serve: stopped" << std::endl;
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace seam::tools
