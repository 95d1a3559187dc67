// A minimal process spawner for the multi-process tests: fork/exec with an environment of
// our choosing, output to files, waits bounded in time, and every child killed and reaped
// by the destructor at the latest. (`seam launch` is the user's tool; tests keep their own.)
#ifndef SEAM_TESTING_SPAWN_H_
#define SEAM_TESTING_SPAWN_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace seam::testing {

// Milliseconds of CLOCK_REALTIME: comparable between processes.
int64_t WallMillis();

// A TCP port on 127.0.0.1 that nothing listened on a moment ago.
int FreePort();

// The job's variables a child must not inherit from the test's environment.
const std::vector<std::string>& JobVariables();

struct Exit {
  bool exited = false;  // false: still running when the wait ended
  int code = -1;        // exit status when it exited normally
  int signal = 0;       // the signal that ended it, else 0
  std::string Describe() const;
};

class Child {
 public:
  // Starts `argv` with the test's environment minus JobVariables(), plus `env`.
  Child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);
  Child(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();  // SIGKILL and reap when still running; removes the output files

  pid_t pid() const { return pid_; }
  // Waits up to `timeout` for the child to end (it is left running after that).
  Exit Wait(std::chrono::milliseconds timeout);
  // Wait(), then SIGKILL and reap if it is still running (exited stays false then).
  Exit WaitOrKill(std::chrono::milliseconds timeout);
  void Signal(int signal) const;

  std::string Stdout() const;
  std::string Stderr() const;
  // Waits up to `timeout` until stdout contains `text`; false when it does not (or the
  // child ended without printing it).
  bool WaitForOutput(const std::string& text, std::chrono::milliseconds timeout);
  // The integer after "<key>=" in stdout, if printed.
  std::optional<int64_t> Value(const std::string& key) const;

 private:
  pid_t pid_ = -1;
  std::optional<Exit> exit_;
  std::string out_path_;
  std::string err_path_;
};

}  // namespace seam::testing

#endif  // SEAM_TESTING_SPAWN_H_
