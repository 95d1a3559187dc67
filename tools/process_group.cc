#include "tools/process_group.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

namespace seam::tools {
namespace {

using Clock = std::chrono::steady_clock;

// The signals forwarded to the children; SIGCHLD only wakes the loop.
constexpr std::array<int, 4> kForwarded = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
// How long one wait for output or a signal lasts at most: the loop also reaps children on
// this beat, should a SIGCHLD ever go missing.
constexpr std::chrono::milliseconds kBeat{250};

// The write end of the self-pipe: a signal handler can only write a byte to it.
int g_signal_pipe = -1;

void OnSignal(int signal) {
  const int saved_errno = errno;
  const auto byte = static_cast<unsigned char>(signal);
  if (write(g_signal_pipe, &byte, 1) < 0) {
    // The pipe is full: enough wake-ups are pending already.
  }
  errno = saved_errno;
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Writes all of `data`; output that cannot be written (a closed pipe) is dropped: the
// children must not stall because nobody reads what they print.
void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, static_cast<int>(kBeat.count()));
      continue;
    }
    if (n <= 0) return;
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// Installs the handlers for its lifetime (a self-pipe carries each signal to the loop) and
// puts the previous ones back when it ends. A forwarded signal that this process was
// started with ignored (nohup's SIGHUP, SIGINT in a shell's background job) stays ignored,
// as the shell meant: no handler, and the children inherit the same.
class SignalRelay {
 public:
  static absl::StatusOr<std::unique_ptr<SignalRelay>> Create() {
    std::unique_ptr<SignalRelay> relay(new SignalRelay());
    std::array<int, 2> fds{};
    if (pipe2(fds.data(), O_CLOEXEC | O_NONBLOCK) != 0) {
      return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
    }
    relay->read_fd_ = fds[0];
    relay->write_fd_ = fds[1];
    g_signal_pipe = fds[1];
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    for (int signal : kForwarded) {
      struct sigaction current {};
      if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
      relay->Install(signal, action);
    }
    relay->Install(SIGCHLD, action);
    relay->Install(SIGPIPE, ignore);
    return relay;
  }

  ~SignalRelay() {
    for (const auto& [signal, previous] : previous_) sigaction(signal, &previous, nullptr);
    g_signal_pipe = -1;
    CloseFd(read_fd_);
    CloseFd(write_fd_);
  }
  SignalRelay(const SignalRelay&) = delete;
  SignalRelay& operator=(const SignalRelay&) = delete;

  int fd() const { return read_fd_; }
  // What this process was started with, for each signal whose disposition it changed.
  const std::vector<std::pair<int, struct sigaction>>& previous() const { return previous_; }

  // The signals received since the last call, in order.
  std::vector<int> Take() {
    std::vector<int> signals;
    std::array<unsigned char, 64> bytes{};
    ssize_t n = 0;
    while ((n = read(read_fd_, bytes.data(), bytes.size())) > 0) {
      signals.insert(signals.end(), bytes.begin(), bytes.begin() + n);
    }
    return signals;
  }

 private:
  SignalRelay() = default;

  void Install(int signal, const struct sigaction& action) {
    struct sigaction previous {};
    if (sigaction(signal, &action, &previous) == 0) previous_.emplace_back(signal, previous);
  }

  int read_fd_ = -1;
  int write_fd_ = -1;
  std::vector<std::pair<int, struct sigaction>> previous_;
};

struct Stream {
  int fd = -1;      // our end of the pipe; -1 once closed
  int out_fd = -1;  // where its lines go
  LinePrefixer prefixer{""};
};

struct Child {
  pid_t pid = -1;
  bool running = false;
  std::array<Stream, 2> streams;  // stdout, stderr
  ChildExit exit;

  bool HoldsPipes() const { return streams[0].fd >= 0 || streams[1].fd >= 0; }
};

// Pipes whose every end is closed when the object ends (each fd is close-on-exec).
struct SpawnPipes {
  std::array<int, 2> out{-1, -1};
  std::array<int, 2> err{-1, -1};
  std::array<int, 2> exec_error{-1, -1};  // carries exec's errno; closed by a good exec
  ~SpawnPipes() {
    for (auto* pair : {&out, &err, &exec_error}) {
      CloseFd((*pair)[0]);
      CloseFd((*pair)[1]);
    }
  }
};

// What the child needs between fork and exec, all prepared before the fork.
struct ChildSetup {
  const ChildSpec* spec;
  char* const* argv;
  char* const* envp;
  const SpawnPipes* pipes;
  int dev_null;
  pid_t parent;
  const SignalRelay* relay;  // the dispositions to put back
  const sigset_t* mask;      // the signal mask to put back
};

// In the child, between fork and exec: async-signal-safe calls only. The program starts
// with the signal dispositions and mask this process was started with.
[[noreturn]] void ExecChild(const ChildSetup& setup) {
  setpgid(0, 0);
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != setup.parent) _exit(127);  // the parent died before the line above
#endif
  for (const auto& [signal, previous] : setup.relay->previous()) {
    sigaction(signal, &previous, nullptr);
  }
  sigprocmask(SIG_SETMASK, setup.mask, nullptr);
  const SpawnPipes& pipes = *setup.pipes;
  if (dup2(setup.dev_null, 0) < 0 || dup2(pipes.out[1], 1) < 0 || dup2(pipes.err[1], 2) < 0) {
    _exit(127);
  }
  execve(setup.spec->path.c_str(), setup.argv, setup.envp);
  const int error = errno;
  if (write(pipes.exec_error[1], &error, sizeof error) < 0) {
    // Nothing more a child that could not exec can say.
  }
  _exit(127);
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

ChildExit ExitFromWaitStatus(int status) {
  ChildExit exit;
  if (WIFSIGNALED(status)) {
    exit.signaled = true;
    exit.value = WTERMSIG(status);
    exit.core_dumped = WCOREDUMP(status);
  } else {
    exit.value = WEXITSTATUS(status);
  }
  return exit;
}

// Starts one child; on success fills child.pid and its two streams.
absl::Status Spawn(const ChildSpec& spec, int dev_null, const SignalRelay& relay,
                   const GroupOptions& options, Child& child) {
  SpawnPipes pipes;
  for (auto* pair : {&pipes.out, &pipes.err, &pipes.exec_error}) {
    if (pipe2(pair->data(), O_CLOEXEC) != 0) {
      return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
    }
  }
  std::vector<char*> argv = CStrings(spec.argv);
  std::vector<char*> envp = CStrings(spec.env);
  // No handler of ours may run in the child before exec resets them (it would write to
  // our self-pipe): signals stay blocked across the fork.
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &previous);
  const ChildSetup setup{&spec,    argv.data(), envp.data(), &pipes,
                         dev_null, getpid(),    &relay,      &previous};
  const pid_t pid = fork();
  if (pid == 0) ExecChild(setup);
  const int fork_errno = errno;
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot start '", spec.path, "': fork: ", std::strerror(fork_errno)));
  }
  setpgid(pid, pid);  // also in the child: whichever runs first; errors are harmless here
  CloseFd(pipes.exec_error[1]);
  CloseFd(pipes.out[1]);
  CloseFd(pipes.err[1]);
  int exec_errno = 0;
  ssize_t n = 0;
  while ((n = read(pipes.exec_error[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  if (n > 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return absl::FailedPreconditionError(
        absl::StrCat("cannot run '", spec.path, "': ", std::strerror(exec_errno)));
  }
  child.pid = pid;
  child.running = true;
  child.streams[0] =
      Stream{std::exchange(pipes.out[0], -1), options.out_fd, LinePrefixer(spec.label)};
  child.streams[1] =
      Stream{std::exchange(pipes.err[0], -1), options.err_fd, LinePrefixer(spec.label)};
  return absl::OkStatus();
}

// The loop that relays output, reaps children and stops them.
class GroupRunner {
 public:
  GroupRunner(std::vector<Child>& children, SignalRelay& relay, const GroupOptions& options)
      : children_(children), relay_(relay), options_(options) {
    result_.exits.resize(children.size());
  }

  GroupResult Run() {
    std::optional<Clock::time_point> drain_until;
    while (true) {
      Reap();
      bool running = false;
      bool open = false;
      for (const Child& child : children_) {
        running = running || child.running;
        open = open || child.HoldsPipes();
      }
      if (!running && !open) break;
      const Clock::time_point now = Clock::now();
      if (stopping_ && !killed_all_ && now >= kill_at_) KillAll();
      Clock::time_point wake = now + kBeat;
      if (!running) {
        if (!drain_until) drain_until = now + options_.drain_period;
        if (now >= *drain_until) {
          EndDrain();
          break;
        }
        wake = std::min(wake, *drain_until);
      }
      if (stopping_ && !killed_all_) wake = std::min(wake, kill_at_);
      WaitOnce(wake - now);
    }
    for (size_t i = 0; i < children_.size(); ++i) result_.exits[i] = children_[i].exit;
    return result_;
  }

 private:
  void WaitOnce(Clock::duration timeout) {
    std::vector<pollfd> fds{{relay_.fd(), POLLIN, 0}};
    std::vector<Stream*> streams{nullptr};
    for (Child& child : children_) {
      for (Stream& stream : child.streams) {
        if (stream.fd < 0) continue;
        fds.push_back({stream.fd, POLLIN, 0});
        streams.push_back(&stream);
      }
    }
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(timeout).count();
    if (poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(ms, 0))) <= 0) return;
    if (fds[0].revents != 0) HandleSignals();
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents != 0) Read(*streams[i]);
    }
  }

  static void Read(Stream& stream) {
    std::array<char, kMaxLineBytes> buffer{};
    ssize_t n = read(stream.fd, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n > 0) {
      WriteAll(stream.out_fd,
               stream.prefixer.Feed(std::string_view(buffer.data(), static_cast<size_t>(n))));
      return;
    }
    WriteAll(stream.out_fd, stream.prefixer.Finish());
    CloseFd(stream.fd);
  }

  void HandleSignals() {
    for (int signal : relay_.Take()) {
      if (signal == SIGCHLD) continue;
      if (!stopping_) {
        result_.interrupted_by = signal;
        BeginStop(signal);
      } else if (!killed_all_) {
        KillAll();
      }
    }
  }

  // Collects every child that has exited. When several failed since the last look, the one
  // a signal ended is named first: a killed rank is the cause, and its peers, which exit
  // with a status once they notice the loss, are the consequence (under load both may have
  // ended before this loop runs again).
  void Reap() {
    std::optional<size_t> failure;
    std::optional<size_t> preempted;
    for (size_t i = 0; i < children_.size(); ++i) {
      Child& child = children_[i];
      if (!child.running) continue;
      int status = 0;
      pid_t r = 0;
      while ((r = waitpid(child.pid, &status, WNOHANG)) < 0 && errno == EINTR) {
      }
      if (r != child.pid) continue;
      child.running = false;
      child.exit = ExitFromWaitStatus(status);
      if (child.exit.preempted()) {
        if (!preempted.has_value()) preempted = i;
        continue;
      }
      if (child.exit.failed() &&
          (!failure.has_value() || (child.exit.signaled && !children_[*failure].exit.signaled))) {
        failure = i;
      }
    }
    if (failure.has_value() && !stopping_) {
      result_.first_failure = *failure;
      BeginStop(SIGTERM);
    } else if (preempted.has_value() && !stopping_) {
      // The others get the notice too (a program that stopped at its sync point has told the
      // job already; SIGTERM reaches the processes that do not use the coordinator).
      result_.first_preempted = *preempted;
      BeginStop(SIGTERM);
    }
  }

  // Sends `signal` to the process group of every child that may still have a process in
  // it: the child runs, or something (its own child) still holds its output pipes.
  void SignalGroups(int signal) {
    for (const Child& child : children_) {
      if (child.running || child.HoldsPipes()) killpg(child.pid, signal);
    }
  }

  int CountRunning() const {
    int running = 0;
    for (const Child& child : children_) running += child.running ? 1 : 0;
    return running;
  }

  void BeginStop(int signal) {
    stopping_ = true;
    result_.stopped = CountRunning();
    kill_at_ = Clock::now() + options_.grace_period;
    SignalGroups(signal);
  }

  void KillAll() {
    killed_all_ = true;
    result_.killed = CountRunning();
    SignalGroups(SIGKILL);
  }

  // Every child has exited but some of their own children still hold the pipes open.
  void EndDrain() {
    SignalGroups(SIGKILL);
    for (Child& child : children_) {
      for (Stream& stream : child.streams) {
        if (stream.fd < 0) continue;
        WriteAll(stream.out_fd, stream.prefixer.Finish());
        CloseFd(stream.fd);
      }
    }
  }

  std::vector<Child>& children_;
  SignalRelay& relay_;
  const GroupOptions& options_;
  GroupResult result_;
  bool stopping_ = false;
  bool killed_all_ = false;
  Clock::time_point kill_at_;
};

// A process started with fd 0, 1 or 2 closed would hand that number to a pipe, and a
// child's dup2 onto it would then do nothing: fill the gaps with /dev/null.
void FillStandardFds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0) continue;
    int opened = open("/dev/null", O_RDWR);
    if (opened >= 0 && opened != fd) {
      dup2(opened, fd);
      close(opened);
    }
  }
}

// Kills and reaps the children already started (used when a later one cannot start).
void KillStarted(std::vector<Child>& children) {
  for (Child& child : children) {
    if (!child.running) continue;
    killpg(child.pid, SIGKILL);
    int status = 0;
    while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    child.running = false;
    for (Stream& stream : child.streams) CloseFd(stream.fd);
  }
}

// The guardian (RunProcessGroup's comment): forked once every child runs. It holds the
// read end of a pipe whose write end only this process has: a byte means "released", the
// end of the pipe without one means this process died.
class Guardian {
 public:
  Guardian() = default;
  Guardian(const Guardian&) = delete;
  Guardian& operator=(const Guardian&) = delete;
  ~Guardian() { Release(); }

  // Forks the guardian for the process groups of `children`; returns false (and the group
  // runs without one) when it cannot.
  bool Start(const std::vector<Child>& children, const std::vector<std::string>& files) {
    std::vector<pid_t> groups;
    groups.reserve(children.size());
    for (const Child& child : children) groups.push_back(child.pid);
    std::vector<const char*> paths;
    paths.reserve(files.size());
    for (const std::string& file : files) paths.push_back(file.c_str());
    std::array<int, 2> fds{};
    if (pipe2(fds.data(), O_CLOEXEC) != 0) return false;
    const int dev_null = open("/dev/null", O_RDWR | O_CLOEXEC);
    sigset_t all;
    sigset_t previous;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &previous);
    const pid_t pid = fork();
    if (pid == 0) Watch(fds[0], fds[1], dev_null, groups, paths);
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    close(fds[0]);
    if (dev_null >= 0) close(dev_null);
    if (pid < 0) {
      close(fds[1]);
      return false;
    }
    pid_ = pid;
    write_fd_ = fds[1];
    return true;
  }

  // Tells the guardian to exit without doing anything, and reaps it. Idempotent.
  void Release() {
    if (pid_ <= 0) return;
    const char byte = 'R';
    ssize_t n = 0;
    while ((n = write(write_fd_, &byte, 1)) < 0 && errno == EINTR) {
    }
    CloseFd(write_fd_);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

 private:
  // In the guardian, after the fork: async-signal-safe calls only.
  [[noreturn]] static void Watch(int read_fd, int write_fd, int dev_null,
                                 const std::vector<pid_t>& groups,
                                 const std::vector<const char*>& files) {
    close(write_fd);
    // Out of the way of a terminal's signals and of anything aimed at launch's group; the
    // pipe alone tells it when to act.
    setpgid(0, 0);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD}) {
      sigaction(signal, &ignore, nullptr);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // Holds no other descriptor of launch's (the children's pipes, launch's output).
    if (dev_null >= 0) {
      dup2(dev_null, 0);
      dup2(dev_null, 1);
      dup2(dev_null, 2);
    }
    if (dup2(read_fd, 3) < 0) _exit(1);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
#endif
    {
      for (int fd = 4; fd < 65536; ++fd) close(fd);
    }
    char byte = 0;
    ssize_t n = 0;
    while ((n = read(3, &byte, 1)) < 0 && errno == EINTR) {
    }
    if (n == 1) _exit(0);  // released
    for (pid_t group : groups) killpg(group, SIGKILL);
    for (const char* file : files) unlink(file);
    _exit(0);
  }

  pid_t pid_ = -1;
  int write_fd_ = -1;
};

}  // namespace

std::string SignalName(int signal) {
  switch (signal) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    default:
      return absl::StrCat("signal ", signal);
  }
}

std::string DescribeExit(const ChildExit& exit) {
  if (!exit.signaled) return absl::StrCat("exited with status ", exit.value);
  return absl::StrCat("was killed by signal ", exit.value, " (", SignalName(exit.value), ")",
                      exit.core_dumped ? " (core dumped)" : "");
}

std::string LinePrefixer::Feed(std::string_view data) {
  pending_.append(data.data(), data.size());
  std::string out;
  size_t start = 0;
  while (true) {
    const size_t newline = pending_.find('\n', start);
    size_t end = 0;
    if (newline != std::string::npos && newline - start < max_line_) {
      end = newline + 1;
      out.append(label_).append(pending_, start, end - start);
    } else if (pending_.size() - start >= max_line_) {
      end = start + max_line_;
      out.append(label_).append(pending_, start, max_line_).append("\n");
    } else {
      break;
    }
    start = end;
  }
  pending_.erase(0, start);
  return out;
}

std::string LinePrefixer::Finish() {
  if (pending_.empty()) return "";
  std::string out = label_ + pending_ + "\n";
  pending_.clear();
  return out;
}

absl::StatusOr<GroupResult> RunProcessGroup(const std::vector<ChildSpec>& children,
                                            const GroupOptions& options) {
  FillStandardFds();
  absl::StatusOr<std::unique_ptr<SignalRelay>> relay = SignalRelay::Create();
  if (!relay.ok()) return relay.status();
  int dev_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (dev_null < 0) {
    return absl::InternalError(absl::StrCat("cannot open /dev/null: ", std::strerror(errno)));
  }
  std::vector<Child> started(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    absl::Status status = Spawn(children[i], dev_null, **relay, options, started[i]);
    if (!status.ok()) {
      KillStarted(started);
      CloseFd(dev_null);
      return status;
    }
  }
  CloseFd(dev_null);
  Guardian guardian;
  if (options.guardian) guardian.Start(started, options.remove_if_killed);
  GroupResult result = GroupRunner(started, **relay, options).Run();
  guardian.Release();
  return result;
}

}  // namespace seam::tools
