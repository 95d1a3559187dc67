// `seam launch -n N [options] -- prog args...`: start N local processes of one distributed
// job, the way torchrun does (docs/distributed.md, "Launching").
#ifndef SEAM_TOOLS_LAUNCH_COMMAND_H_
#define SEAM_TOOLS_LAUNCH_COMMAND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace CLI {
class App;
}  // namespace CLI

namespace seam::tools {

struct LaunchOptions {
  int64_t nproc = 0;                // processes on this node, >= 1
  int64_t devices_per_process = 0;  // CPU_NUM_DEVICES of each; 0: left as inherited
  int64_t nnodes = 1;
  int64_t node_rank = 0;    // 0 .. nnodes - 1
  std::string master_addr;  // "": 127.0.0.1 (allowed only with nnodes == 1)
  int64_t master_port = 0;  // 0: from the environment, else a free port
  double grace_period_s = 10;
  // Restarts of the whole job after a rank fails (torchrun's --max-restarts); one node only.
  int64_t max_restarts = 0;
  bool verbose = false;
  std::vector<std::string> command;  // the program and its arguments
};

// Adds the `launch` subcommand to `app`, filling `options` when it is parsed (its options'
// ranges and the checks of ValidateLaunchOptions are CLI11 validation errors).
CLI::App* AddLaunchCommand(CLI::App& app, LaunchOptions& options);

// Runs the job; returns the exit status for `seam`: 0 when every process exited with 0;
// 1 when one failed (or the job could not start), named on `err`; 127 when the program
// cannot be found or run; 128 + n when this process received signal n (forwarded); 143
// when a rank exited with 143 (preempted: docs/distributed.md, "Preemption"). With
// max_restarts, a job in which a rank failed is started again, whole, up to that many
// times (a signal to launch or a preemption is never followed by a restart); each attempt's
// processes get
// SEAM_RESTART_COUNT (0 for the first) and, when launch picked the port, a fresh one.
int Launch(const LaunchOptions& options, std::ostream& err);

// The pieces of Launch, for tests.

// Cross-option checks: the node rank within nnodes, an address for several nodes.
absl::Status ValidateLaunchOptions(const LaunchOptions& options);

using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// Where the children find the coordinator.
struct Endpoint {
  std::string addr;
  int port = 0;
  std::string port_source;  // "--master-port", "XLA_COORDINATOR_PORT", "MASTER_PORT", "free"
};

// The address (--master-addr, else 127.0.0.1) and the port: --master-port, else
// XLA_COORDINATOR_PORT, else MASTER_PORT (an empty variable counts as unset), else a free
// port picked on the address (one node only: each node would pick another one).
absl::StatusOr<Endpoint> ResolveEndpoint(const LaunchOptions& options, const EnvLookup& env);

// Binds port 0 of `addr` (TCP), reads the port the system chose and closes the socket.
absl::StatusOr<int> PickFreePort(const std::string& addr);

// The environment of local process `local_rank`: `inherited` ("NAME=value" each) without
// the variables launch sets, then RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
// PJRT_LOCAL_PROCESS_RANK, PJRT_LOCAL_PROCESS_COUNT, MASTER_ADDR, MASTER_PORT,
// XLA_COORDINATOR_PORT, SEAM_RESTART_COUNT (`restart`), with devices_per_process
// CPU_NUM_DEVICES, and with `secret_file` SEAM_JOB_SECRET_FILE.
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& inherited,
                                          const LaunchOptions& options, const Endpoint& endpoint,
                                          int64_t local_rank, int64_t restart = 0,
                                          const std::string& secret_file = "");

// Where the job's secret comes from (docs/distributed.md, "Authentication").
struct JobSecretPlan {
  // SEAM_JOB_SECRET_FILE from launch's environment, checked; the children inherit it.
  std::string given_file;
  // No file was given: launch makes a fresh secret for each attempt (one node only).
  bool make = false;
  // A line for stderr (several nodes and no secret file), or "".
  std::string warning;
};

// SEAM_JOB_SECRET_FILE when set (its file must pass ReadJobSecretFile), else a secret
// of launch's own with one node, else (several nodes) none, with a warning.
absl::StatusOr<JobSecretPlan> PlanJobSecret(const LaunchOptions& options, const EnvLookup& env);

// A fresh job secret in a new file of its own (mode 0600) in `dir`; the file is removed
// when the object ends.
class JobSecretFile {
 public:
  static absl::StatusOr<std::unique_ptr<JobSecretFile>> Create(const std::string& dir);
  ~JobSecretFile();
  JobSecretFile(const JobSecretFile&) = delete;
  JobSecretFile& operator=(const JobSecretFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  explicit JobSecretFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// `name` itself when it holds a '/', else the first executable regular file `dir/name` for
// the directories of `path_var` (an empty entry is the current directory). NotFound when
// there is none.
absl::StatusOr<std::string> FindProgram(const std::string& name,
                                        const std::optional<std::string>& path_var);

}  // namespace seam::tools

#endif  // SEAM_TOOLS_LAUNCH_COMMAND_H_
