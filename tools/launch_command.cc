#include "tools/launch_command.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <set>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/base/env.h"
#include "src/base/settings.h"
#include "src/runtime/distributed/job_secret.h"
#include "tools/process_group.h"

namespace seam::tools {
namespace {

constexpr const char* kDefaultAddr = "127.0.0.1";

// A port from a variable of the environment: nullopt when unset or empty.
absl::StatusOr<std::optional<int>> PortFromEnv(const EnvLookup& env, const char* name) {
  std::optional<std::string> value = env(name);
  if (!value.has_value() || value->empty()) return std::nullopt;
  int port = 0;
  if (!absl::SimpleAtoi(*value, &port) || port < 1 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, "='", *value, "' is not a port (an integer from 1 to 65535)"));
  }
  return port;
}

std::string Plural(int64_t count, const char* one, const char* many) {
  return absl::StrCat(count, " ", count == 1 ? one : many);
}

// The one line that says how the job ended; returns the exit status.
int Report(const GroupResult& result, const LaunchOptions& options, std::ostream& err) {
  const std::string killed = result.killed == 0
                                 ? ""
                                 : absl::StrCat("; ", Plural(result.killed, "rank", "ranks"),
                                                " still running got SIGKILL");
  if (result.first_failure.has_value()) {
    const size_t index = *result.first_failure;
    const int64_t rank = options.node_rank * options.nproc + static_cast<int64_t>(index);
    err << "seam launch: rank " << rank << " " << DescribeExit(result.exits[index])
        << (result.stopped > 0 ? "; the other ranks were stopped" : "");
    if (result.killed > 0) {
      err << " (" << Plural(result.killed, "rank", "ranks") << " still running after the "
          << options.grace_period_s << " s grace period got SIGKILL)";
    }
    err << "\n";
    return 1;
  }
  if (result.interrupted_by != 0) {
    err << "seam launch: received " << SignalName(result.interrupted_by)
        << " and forwarded it to every rank" << killed << "\n";
    return 128 + result.interrupted_by;
  }
  if (result.first_preempted.has_value()) {
    const int64_t rank =
        options.node_rank * options.nproc + static_cast<int64_t>(*result.first_preempted);
    err << "seam launch: rank " << rank
        << " exited with status 143 (preempted: it stopped at its preemption sync point); the "
           "job is not restarted"
        << killed << "\n";
    return ChildExit::kPreemptedStatus;
  }
  return 0;
}

std::vector<std::string> InheritedEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    env.emplace_back(*entry);
  }
  return env;
}

}  // namespace

absl::Status ValidateLaunchOptions(const LaunchOptions& options) {
  if (options.node_rank >= options.nnodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--node-rank ", options.node_rank, " is out of range: with --nnodes ",
                     options.nnodes, " the node ranks are 0 to ", options.nnodes - 1));
  }
  if (options.nnodes > 1 && options.master_addr.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--master-addr is required with --nnodes ", options.nnodes,
                     ": every node must be given the address of node 0, where rank 0's "
                     "coordinator listens"));
  }
  if (options.max_restarts > 0 && options.nnodes > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-restarts needs --nnodes 1: restarting a job of ", options.nnodes,
        " nodes needs every node's launcher to restart together, which seam launch cannot "
        "arrange yet"));
  }
  if (!options.command.empty() && options.command[0].empty()) {
    return absl::InvalidArgumentError("the program's name is empty");
  }
  return absl::OkStatus();
}

absl::StatusOr<int> PickFreePort(const std::string& addr) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(addr.c_str(), "0", &hints, &found); rc != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot resolve '", addr, "': ", gai_strerror(rc)));
  }
  std::string last_error = "no address";
  int port = 0;
  for (addrinfo* a = found; a != nullptr && port == 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
      last_error = std::strerror(errno);
    } else if (bound.ss_family == AF_INET) {
      port = ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
    } else if (bound.ss_family == AF_INET6) {
      port = ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port);
    }
    close(fd);
  }
  freeaddrinfo(found);
  if (port == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot pick a free port on ", addr, ": ", last_error));
  }
  return port;
}

absl::StatusOr<Endpoint> ResolveEndpoint(const LaunchOptions& options, const EnvLookup& env) {
  Endpoint endpoint;
  endpoint.addr = options.master_addr.empty() ? kDefaultAddr : options.master_addr;
  if (options.master_port != 0) {
    endpoint.port = static_cast<int>(options.master_port);
    endpoint.port_source = "--master-port";
    return endpoint;
  }
  for (const char* name : {"XLA_COORDINATOR_PORT", "MASTER_PORT"}) {
    absl::StatusOr<std::optional<int>> port = PortFromEnv(env, name);
    if (!port.ok()) return port.status();
    if (port->has_value()) {
      endpoint.port = **port;
      endpoint.port_source = name;
      return endpoint;
    }
  }
  if (options.nnodes > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "with --nnodes ", options.nnodes,
        " the port must be given (--master-port, XLA_COORDINATOR_PORT or MASTER_PORT): "
        "a free port picked here would differ from one node to the next"));
  }
  absl::StatusOr<int> port = PickFreePort(endpoint.addr);
  if (!port.ok()) return port.status();
  endpoint.port = *port;
  endpoint.port_source = "free";
  return endpoint;
}

std::vector<std::string> ChildEnvironment(const std::vector<std::string>& inherited,
                                          const LaunchOptions& options, const Endpoint& endpoint,
                                          int64_t local_rank, int64_t restart,
                                          const std::string& secret_file) {
  const std::string port = absl::StrCat(endpoint.port);
  std::vector<std::pair<std::string, std::string>> set = {
      {"RANK", absl::StrCat(options.node_rank * options.nproc + local_rank)},
      {"WORLD_SIZE", absl::StrCat(options.nnodes * options.nproc)},
      {"LOCAL_RANK", absl::StrCat(local_rank)},
      {"LOCAL_WORLD_SIZE", absl::StrCat(options.nproc)},
      // Read before LOCAL_RANK and LOCAL_WORLD_SIZE when set: never let an inherited
      // value contradict the two above.
      {"PJRT_LOCAL_PROCESS_RANK", absl::StrCat(local_rank)},
      {"PJRT_LOCAL_PROCESS_COUNT", absl::StrCat(options.nproc)},
      {"MASTER_ADDR", endpoint.addr},
      {"MASTER_PORT", port},
      {"XLA_COORDINATOR_PORT", port},
      {"SEAM_RESTART_COUNT", absl::StrCat(restart)},
  };
  if (options.devices_per_process > 0) {
    set.emplace_back("CPU_NUM_DEVICES", absl::StrCat(options.devices_per_process));
  }
  if (!secret_file.empty()) set.emplace_back(runtime::kJobSecretFileVariable, secret_file);
  std::set<std::string, std::less<>> names;
  for (const auto& [name, value] : set) names.insert(name);
  std::vector<std::string> env;
  env.reserve(inherited.size() + set.size());
  for (const std::string& entry : inherited) {
    const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    if (names.find(name) == names.end()) env.push_back(entry);
  }
  for (const auto& [name, value] : set) env.push_back(absl::StrCat(name, "=", value));
  return env;
}

absl::StatusOr<JobSecretPlan> PlanJobSecret(const LaunchOptions& options, const EnvLookup& env) {
  JobSecretPlan plan;
  std::optional<std::string> given = env(runtime::kJobSecretFileVariable);
  if (given.has_value() && !given->empty()) {
    absl::StatusOr<std::string> secret = runtime::ReadJobSecretFile(*given);
    if (!secret.ok()) return secret.status();
    plan.given_file = *given;
    return plan;
  }
  if (options.nnodes == 1) {
    plan.make = true;
    return plan;
  }
  plan.warning = absl::StrCat(
      "seam launch: warning: ", runtime::kJobSecretFileVariable, " is not set, so the job of ",
      options.nnodes,
      " nodes has no secret: any process that reaches its coordinator may join it or read its "
      "keys. Give every node's launch the same private secret file (docs/distributed.md)");
  return plan;
}

absl::StatusOr<std::unique_ptr<JobSecretFile>> JobSecretFile::Create(const std::string& dir) {
  absl::StatusOr<std::string> secret = runtime::NewJobSecret();
  if (!secret.ok()) return secret.status();
  std::string path = absl::StrCat(dir.empty() ? "/tmp" : dir, "/seam-job-secret-XXXXXX");
  const int fd = mkostemp(path.data(), O_CLOEXEC);  // mode 0600
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot create the job's secret file in '", dir, "': ", std::strerror(errno)));
  }
  std::unique_ptr<JobSecretFile> file(new JobSecretFile(path));
  const std::string text = *secret + "\n";
  const bool written = fchmod(fd, S_IRUSR | S_IWUSR) == 0 &&
                       write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = errno;
  close(fd);
  if (!written) {
    return absl::UnavailableError(
        absl::StrCat("cannot write the job's secret file '", path, "': ", std::strerror(error)));
  }
  return file;
}

JobSecretFile::~JobSecretFile() { unlink(path_.c_str()); }

absl::StatusOr<std::string> FindProgram(const std::string& name,
                                        const std::optional<std::string>& path_var) {
  if (name.find('/') != std::string::npos) return name;
  // With PATH unset, the search list of glibc's execvp.
  const std::string path = path_var.value_or("/bin:/usr/bin");
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    std::string candidate =
        dir.empty() ? name : absl::StrCat(std::string(dir.data(), dir.size()), "/", name);
    struct stat info {};
    if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return absl::NotFoundError(absl::StrCat("program '", name, "' not found in PATH (", path, ")"));
}

CLI::App* AddLaunchCommand(CLI::App& app, LaunchOptions& options) {
  CLI::App* launch = app.add_subcommand(
      "launch",
      "Start N local processes of one distributed job, the way torchrun does: each gets "
      "RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT = "
      "XLA_COORDINATOR_PORT, and SEAM_JOB_SECRET_FILE (a fresh private secret per job, "
      "unless launch's environment names one); each output line is prefixed with its rank; "
      "Ctrl-C is forwarded; when one process fails the others are stopped. Exit status 0 "
      "when every process exits with 0");
  launch->add_option("-n,--nproc-per-node", options.nproc, "Processes to start on this node")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{256}));
  launch
      ->add_option("--devices-per-process", options.devices_per_process,
                   "Devices of each process's CPU client (sets CPU_NUM_DEVICES)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  launch->add_option("--nnodes", options.nnodes, "Nodes (hosts) of the job (default 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{65536}));
  launch
      ->add_option("--node-rank", options.node_rank,
                   "This node's rank, 0 to nnodes - 1 (default 0); RANK = node rank x N + "
                   "local rank")
      ->check(CLI::Range(int64_t{0}, int64_t{65535}));
  launch->add_option("--master-addr", options.master_addr,
                     "Address of node 0, where rank 0's coordinator listens (default "
                     "127.0.0.1; required with --nnodes > 1)");
  launch
      ->add_option("--master-port", options.master_port,
                   "Coordinator port (default: XLA_COORDINATOR_PORT, else MASTER_PORT, else a "
                   "free port)")
      ->check(CLI::Range(int64_t{1}, int64_t{65535}));
  launch
      ->add_option("--grace-period", options.grace_period_s,
                   "Seconds the processes have to exit after SIGTERM (or a forwarded signal) "
                   "before SIGKILL (default 10); a job that handles preemption must reach its "
                   "sync step and save within it")
      ->check(CLI::Range(0.0, 3600.0));
  launch
      ->add_option("--max-restarts", options.max_restarts,
                   "Start the whole job again when a rank fails, up to N times (default 0; "
                   "one node only); each attempt's processes see SEAM_RESTART_COUNT")
      ->check(CLI::Range(int64_t{0}, int64_t{1000}));
  launch->add_flag("-v,--verbose", options.verbose, "Say which ranks and port the job uses");
  launch->add_option("command", options.command, "The program and its arguments, after --")
      ->required();
  launch->callback([&options] {
    absl::Status valid = ValidateLaunchOptions(options);
    if (!valid.ok()) throw CLI::ValidationError(std::string(valid.message()));
  });
  return launch;
}

namespace {

// One attempt of the job: its processes, started and waited for; Launch's exit status.
int RunAttempt(const LaunchOptions& options, const std::string& path,
               const std::vector<std::string>& inherited, const Endpoint& endpoint, int64_t restart,
               const JobSecretPlan& secret, std::ostream& err) {
  // A fresh secret for each attempt: a process of an earlier attempt cannot join this one.
  std::unique_ptr<JobSecretFile> secret_file;
  GroupOptions group;
  if (secret.make) {
    absl::StatusOr<std::unique_ptr<JobSecretFile>> made =
        JobSecretFile::Create(base::ReadSetting(base::Setting::kTmpdir).value_or("/tmp"));
    if (!made.ok()) {
      err << "seam launch: " << made.status().message() << "\n";
      return 1;
    }
    secret_file = *std::move(made);
    group.remove_if_killed.push_back(secret_file->path());
  }
  std::vector<ChildSpec> children;
  for (int64_t local = 0; local < options.nproc; ++local) {
    const int64_t rank = options.node_rank * options.nproc + local;
    children.push_back({path, options.command,
                        ChildEnvironment(inherited, options, endpoint, local, restart,
                                         secret_file == nullptr ? "" : secret_file->path()),
                        absl::StrCat("[rank ", rank, "] ")});
  }
  if (options.verbose) {
    err << "seam launch: node " << options.node_rank << " of " << options.nnodes << ": ranks "
        << options.node_rank * options.nproc << " to "
        << (options.node_rank + 1) * options.nproc - 1 << " of " << options.nnodes * options.nproc
        << "; coordinator " << endpoint.addr << ":" << endpoint.port << " (port from "
        << endpoint.port_source << ")\n";
  }
  group.grace_period = std::chrono::milliseconds(std::llround(options.grace_period_s * 1000));
  absl::StatusOr<GroupResult> result = RunProcessGroup(children, group);
  if (!result.ok()) {
    err << "seam launch: " << result.status().message() << "\n";
    return absl::IsFailedPrecondition(result.status()) ? 127 : 1;
  }
  return Report(*result, options, err);
}

}  // namespace

int Launch(const LaunchOptions& options, std::ostream& err) {
  absl::Status valid = ValidateLaunchOptions(options);
  if (!valid.ok() || options.command.empty()) {
    err << "seam launch: " << (valid.ok() ? "no program to run" : valid.message()) << "\n";
    return 1;
  }
  absl::StatusOr<Endpoint> endpoint = ResolveEndpoint(options, base::GetEnv);
  if (!endpoint.ok()) {
    err << "seam launch: " << endpoint.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> path =
      FindProgram(options.command[0], base::ReadSetting(base::Setting::kPath));
  if (!path.ok()) {
    err << "seam launch: " << path.status().message() << "\n";
    return 127;
  }
  absl::StatusOr<JobSecretPlan> secret = PlanJobSecret(options, base::GetEnv);
  if (!secret.ok()) {
    err << "seam launch: " << secret.status().message() << "\n";
    return 1;
  }
  if (!secret->warning.empty()) err << secret->warning << "\n";
  const std::vector<std::string> inherited = InheritedEnvironment();
  for (int64_t restart = 0;; ++restart) {
    if (restart > 0 && endpoint->port_source == "free") {
      // The previous job's coordinator may still hold its port for a moment.
      absl::StatusOr<int> port = PickFreePort(endpoint->addr);
      if (!port.ok()) {
        err << "seam launch: " << port.status().message() << "\n";
        return 1;
      }
      endpoint->port = *port;
    }
    // Only a failure (1) restarts the job: never a signal to launch nor a preemption (143),
    // after which the scheduler that preempted the job starts it again.
    const int status = RunAttempt(options, *path, inherited, *endpoint, restart, *secret, err);
    if (status != 1 || restart >= options.max_restarts) return status;
    err << "seam launch: restarting the job (restart " << restart + 1 << " of "
        << options.max_restarts << ")\n";
  }
}

}  // namespace seam::tools
