#include "src/testing/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "src/base/settings.h"

namespace seam::testing {

using Clock = std::chrono::steady_clock;

WorkerProcess::WorkerProcess(const std::string& program, const std::vector<std::string>& args) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return;
  std::vector<std::string> owned = {program};
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : owned) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    setenv("MASTER_ADDR", "127.0.0.1", 1);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  out_fd_ = pipe_fds[0];
  if (pid_ < 0) {
    close(out_fd_);
    out_fd_ = -1;
  }
}

WorkerProcess::~WorkerProcess() {
  Kill();
  if (out_fd_ >= 0) close(out_fd_);
}

bool WorkerProcess::Read(std::chrono::milliseconds timeout) {
  if (eof_ || out_fd_ < 0) return false;
  pollfd fd{out_fd_, POLLIN, 0};
  if (poll(&fd, 1, static_cast<int>(timeout.count())) <= 0) return true;
  char chunk[4096];
  const ssize_t n = read(out_fd_, chunk, sizeof(chunk));
  if (n <= 0) {
    eof_ = n == 0 || errno != EINTR;
    return !eof_;
  }
  output_.append(chunk, static_cast<size_t>(n));
  return true;
}

bool WorkerProcess::WaitForLine(const std::string& text, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (output_.find(text) == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    if (!Read(std::min(left, std::chrono::milliseconds(100)))) {
      return output_.find(text) != std::string::npos;
    }
  }
  return true;
}

std::optional<int> WorkerProcess::Wait(std::chrono::milliseconds timeout) {
  if (pid_ <= 0 || reaped_) return std::nullopt;
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    Read(std::chrono::milliseconds(20));
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      reaped_ = true;
      // The rest of its output (bounded: a pipe some other process still holds never ends).
      for (int i = 0; i < 1000 && Read(std::chrono::milliseconds(1)); ++i) {
      }
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      return std::nullopt;
    }
    if (Clock::now() >= deadline) {
      Kill();
      return std::nullopt;
    }
  }
}

void WorkerProcess::Kill() {
  if (pid_ <= 0 || reaped_) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  reaped_ = true;
}

TempDir::TempDir() {
  const std::string folder = base::ReadSetting(base::Setting::kTmpdir).value_or("");
  std::string pattern = (folder.empty() ? std::string("/tmp") : folder) + "/seam_gloo_XXXXXX";
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace seam::testing
