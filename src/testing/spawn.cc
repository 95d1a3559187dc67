#include "src/testing/spawn.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace seam::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string TempFile(const char* what) {
  std::string path = std::string("/tmp/seam_child_") + what + "_XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd >= 0) close(fd);
  return path;
}

Exit FromStatus(int status) {
  Exit exit;
  exit.exited = true;
  if (WIFEXITED(status)) exit.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  return exit;
}

}  // namespace

int64_t WallMillis() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t size = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

const std::vector<std::string>& JobVariables() {
  static const auto* names = new std::vector<std::string>{"PJRT_LOCAL_PROCESS_RANK",
                                                          "LOCAL_RANK",
                                                          "RANK",
                                                          "PJRT_LOCAL_PROCESS_COUNT",
                                                          "LOCAL_WORLD_SIZE",
                                                          "WORLD_SIZE",
                                                          "MASTER_ADDR",
                                                          "XLA_COORDINATOR_PORT",
                                                          "DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC",
                                                          "DIST_SERVICE_MAX_MISSING_HEARTBEATS",
                                                          "SEAM_COORDINATOR_TIMEOUT_SEC",
                                                          "DIST_SERVICE_SHUTDOWN_TIMEOUT_IN_MIN",
                                                          "SEAM_JOB_SECRET_FILE",
                                                          "SEAM_LOST_JOB_GRACE_SEC",
                                                          "PJRT_DEVICE",
                                                          "PJRT_DYNAMIC_PLUGINS"};
  return *names;
}

std::string Exit::Describe() const {
  if (!exited) return "still running";
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  return "exit status " + std::to_string(code);
}

Child::Child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env)
    : out_path_(TempFile("out")), err_path_(TempFile("err")) {
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    const auto& job = JobVariables();
    if (std::find(job.begin(), job.end(), name) != job.end() || env.count(name) != 0) continue;
    entries.push_back(entry);
  }
  for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> envp;
  for (std::string& entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> arg_pointers;
  for (std::string& arg : args) arg_pointers.push_back(arg.data());
  arg_pointers.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    const int out = open(out_path_.c_str(), O_WRONLY | O_TRUNC);
    const int err = open(err_path_.c_str(), O_WRONLY | O_TRUNC);
    if (out < 0 || err < 0) _exit(126);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execve(arg_pointers[0], arg_pointers.data(), envp.data());
    _exit(127);
  }
}

Child::Child(Child&& other) noexcept
    : pid_(other.pid_),
      exit_(other.exit_),
      out_path_(std::move(other.out_path_)),
      err_path_(std::move(other.err_path_)) {
  other.pid_ = -1;
  other.out_path_.clear();
  other.err_path_.clear();
}

Child::~Child() {
  if (pid_ > 0 && !exit_.has_value()) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (!out_path_.empty()) unlink(out_path_.c_str());
  if (!err_path_.empty()) unlink(err_path_.c_str());
}

Exit Child::Wait(std::chrono::milliseconds timeout) {
  if (exit_.has_value()) return *exit_;
  if (pid_ <= 0) return Exit{};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exit_ = FromStatus(status);
      return *exit_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return Exit{};
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Exit Child::WaitOrKill(std::chrono::milliseconds timeout) {
  Exit exit = Wait(timeout);
  if (exit.exited || pid_ <= 0) return exit;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_ = FromStatus(status);
  return Exit{};
}

void Child::Signal(int signal) const {
  if (pid_ > 0 && !exit_.has_value()) kill(pid_, signal);
}

std::string Child::Stdout() const { return ReadFile(out_path_); }
std::string Child::Stderr() const { return ReadFile(err_path_); }

bool Child::WaitForOutput(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (Stdout().find(text) != std::string::npos) return true;
    if (Wait(std::chrono::milliseconds(0)).exited) return Stdout().find(text) != std::string::npos;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::optional<int64_t> Child::Value(const std::string& key) const {
  const std::string text = Stdout();
  const size_t at = text.find(key + "=");
  if (at == std::string::npos) return std::nullopt;
  return std::strtoll(text.c_str() + at + key.size() + 1, nullptr, 10);
}

}  // namespace seam::testing
