// Starting cpu_gloo_worker processes for a test and reading what they report: each runs
// with MASTER_ADDR=127.0.0.1 and its stdout in a pipe; every wait is bounded, and a
// process still running when its handle goes away is killed (SIGKILL) and reaped.
#ifndef SEAM_TESTING_WORKER_PROCESS_H_
#define SEAM_TESTING_WORKER_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace seam::testing {

class WorkerProcess {
 public:
  // Starts `program` with `args` (argv[1..]).
  WorkerProcess(const std::string& program, const std::vector<std::string>& args);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Waits until a line of its output contains `text` (true), or it exits or `timeout`
  // passes (false).
  bool WaitForLine(const std::string& text, std::chrono::milliseconds timeout);
  // Waits for it to exit: its exit status, or nullopt when it was killed by a signal or is
  // still running after `timeout` (then it is killed).
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  void Kill();  // SIGKILL, then reaped

  const std::string& output() const { return output_; }
  pid_t pid() const { return pid_; }

 private:
  // Reads what is available, waiting up to `timeout`; false at end of output.
  bool Read(std::chrono::milliseconds timeout);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
  bool eof_ = false;
  std::string output_;
};

// A fresh directory under $TMPDIR (or /tmp), removed with its contents at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace seam::testing

#endif  // SEAM_TESTING_WORKER_PROCESS_H_
