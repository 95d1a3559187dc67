// A group of local child processes started together, their output relayed line by line
// under a label, and stopped together: what `seam launch` runs on (POSIX).
#ifndef SEAM_TOOLS_PROCESS_GROUP_H_
#define SEAM_TOOLS_PROCESS_GROUP_H_

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace seam::tools {

// One child: the program (a path, already looked up: nothing searches PATH after the fork),
// its arguments (argv[0] first), its whole environment ("NAME=value" each) and the label
// written before each line of its output.
struct ChildSpec {
  std::string path;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string label;
};

// How a child ended.
struct ChildExit {
  bool signaled = false;  // killed by a signal (value is its number), else exited
  int value = 0;          // the exit status, or the signal's number
  bool core_dumped = false;
  bool failed() const { return signaled || value != 0; }
  // Exited with status 143 (128 + SIGTERM): the program stopped at its preemption sync
  // point (docs/distributed.md, "Preemption"), which is not a failure of the job.
  bool preempted() const { return !signaled && value == kPreemptedStatus; }
  static constexpr int kPreemptedStatus = 143;
};

// "exited with status 3", "was killed by signal 9 (SIGKILL)", "... (core dumped)".
std::string DescribeExit(const ChildExit& exit);

// "SIGKILL" for the signals one meets; "signal 42" for any other.
std::string SignalName(int signal);

struct GroupOptions {
  // Once the group is being stopped (a child failed, or a signal was forwarded), how long
  // the children have to exit before every one left gets SIGKILL.
  std::chrono::milliseconds grace_period{10000};
  // Once every child has exited, how long their own children may keep the output pipes
  // open; after that they are killed (with SIGKILL, through the child's process group).
  std::chrono::milliseconds drain_period{2000};
  int out_fd = 1;  // where the children's stdout lines go
  int err_fd = 2;  // where their stderr lines go
  // A guardian process that outlives this one only to clean up should this one die
  // without ending the group (SIGKILL): it sends SIGKILL to every child's process group
  // (the programs' own helpers included) and removes `remove_if_killed`.
  bool guardian = true;
  std::vector<std::string> remove_if_killed;
};

struct GroupResult {
  std::vector<ChildExit> exits;  // one per child, in the order given
  // The first child that failed while the group ran normally: its failure stopped the
  // others. nullopt when none did (the group succeeded, or was stopped by a signal first).
  std::optional<size_t> first_failure;
  // The first child that exited with status 143 (ChildExit::preempted) while the group ran
  // normally: the others got SIGTERM (their notice) and the grace period. nullopt when none
  // did, or a failure or a signal came first.
  std::optional<size_t> first_preempted;
  // The first SIGINT, SIGTERM, SIGHUP or SIGQUIT this process received while the group
  // ran (it was forwarded to every child); 0 when none.
  int interrupted_by = 0;
  int stopped = 0;  // children still running when the group began to stop
  int killed = 0;   // children still running when SIGKILL was sent to all
};

// Starts every child and waits until all have exited. Each child runs in its own process
// group (so a terminal's Ctrl-C reaches only this process, which forwards it once), with
// stdin from /dev/null and stdout and stderr into pipes, which are relayed to
// `options.out_fd` and `options.err_fd` through a LinePrefixer each. On Linux a child also
// gets SIGKILL when this process dies (PR_SET_PDEATHSIG), so none outlives it; and with
// `options.guardian`, a process forked once every child runs waits on a pipe only this
// process writes: when the pipe closes without a word (this process died), it sends SIGKILL
// to every child's process group, removes `options.remove_if_killed` and exits, so that
// the children's own helpers do not outlive this process either. Released (told to exit
// without doing anything) and reaped before this call returns.
//
// When a child fails (a non-zero status or a signal), or exits with status 143 (preempted),
// every other child's process group gets SIGTERM. When this process receives SIGINT, SIGTERM,
// SIGHUP or SIGQUIT, the same signal goes to every child's process group. Either way, the children
// still running after `grace_period` get SIGKILL; a signal to this process while the group is
// stopping sends SIGKILL at once.
//
// Errors: a child that cannot be started (pipe, fork or exec failed); the children started
// before it are killed and reaped first. Handlers of the signals above (except one this
// process was started with ignored: it stays ignored), of SIGCHLD, and SIGPIPE ignored are
// installed for the call and restored before it returns; the children start with the
// dispositions and mask from before the call. Call it from one thread.
absl::StatusOr<GroupResult> RunProcessGroup(const std::vector<ChildSpec>& children,
                                            const GroupOptions& options);

// The longest line relayed whole.
inline constexpr size_t kMaxLineBytes = size_t{64} * 1024;

// Cuts one stream's bytes into lines and writes `label` before each. A line longer than
// `max_line` bytes is cut into pieces of that size, each relayed as a line of its own.
class LinePrefixer {
 public:
  explicit LinePrefixer(std::string label, size_t max_line = kMaxLineBytes)
      : label_(std::move(label)), max_line_(max_line) {}

  // Takes the next bytes; returns every line they complete, labelled, each with its '\n'.
  std::string Feed(std::string_view data);
  // At the end of the stream: the unfinished last line, labelled and given a '\n' ("" when
  // the stream ended with a newline).
  std::string Finish();

 private:
  std::string label_;
  size_t max_line_;
  std::string pending_;
};

}  // namespace seam::tools

#endif  // SEAM_TOOLS_PROCESS_GROUP_H_
