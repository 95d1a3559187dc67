// All-reduce among the replicas of one launch: each replica runs on its own device worker
// and meets the others of its group at every all_reduce instruction. In a launch over every
// process of a job, the replicas of this process meet at each all_reduce and one of them
// combines them with the other processes' (gloo_collectives.h).
#ifndef SEAM_PLUGINS_CPU_COLLECTIVES_H_
#define SEAM_PLUGINS_CPU_COLLECTIVES_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "src/ir/program.h"

namespace seam::cpu {

class GlooCollectives;

// A launch over every process of a job: this process runs global replicas
// [process_index * local_replicas, (process_index + 1) * local_replicas).
struct ProcessSpan {
  GlooCollectives* gloo = nullptr;
  int64_t process_index = 0;
  int64_t local_replicas = 1;
  int64_t all_reduces = 0;  // all_reduce instructions of the program
};

// Shared by the replicas of one launch (one PJRT_LoadedExecutable_Execute call).
class Rendezvous {
 public:
  Rendezvous() = default;
  explicit Rendezvous(ProcessSpan span) : span_(span) {}

  // Whether this launch spans processes: then every all_reduce goes through
  // AllReduceAcrossProcesses.
  bool spans_processes() const { return span_.gloo != nullptr; }

  // Replica `replica` (a global replica id) reaches the all_reduce `inst` (instruction
  // `instruction`) with `in`; returns with `out` holding its group's reduction. Waits for
  // every replica of this process; the last to arrive reduces each group that has members
  // here, in the order the attribute lists them: its members here folded in the group's
  // order, then (for a group with members in other processes) Gloo's all-reduce of the
  // processes' partial results.
  absl::Status AllReduceAcrossProcesses(int instruction, const ir::Instruction& inst,
                                        int64_t replica, const uint8_t* in, uint8_t* out);

  // The same all_reduce in two halves, for a run that overlaps it with its kernels: Start
  // registers the replica's `in` and `out` and returns at once; the last local replica to
  // start posts the reduction to Gloo's communication thread (GlooCollectives::Post). Finish
  // waits until it is done and returns its status (or the abort's). Between the two, `in`
  // must stay unchanged and nobody may touch `out`; every replica that started must finish
  // before the launch ends (`in` may be `out`: the reduction is then in place).
  void StartAcrossProcesses(int instruction, const ir::Instruction& inst, int64_t replica,
                            const uint8_t* in, uint8_t* out);
  absl::Status FinishAcrossProcesses(int instruction, const ir::Instruction& inst);

  // Replica `replica` of group `group` (replica ids, in the group's order) contributes `in`
  // to the all_reduce at instruction `instruction`, waits for the rest of the group and
  // writes the group's reduction (in the group's order) into `out`. Returns the abort
  // status instead when the launch was aborted before the whole group arrived.
  absl::Status AllReduce(int instruction, ir::Op op, ir::DType dtype,
                         const std::vector<int64_t>& group, int64_t replica, const uint8_t* in,
                         uint8_t* out, int64_t count);

  // Replica `replica` failed: every replica waiting, now or later, for a group that
  // contains it gets `status` (groups without it are not affected). In a launch that spans
  // processes every replica of this process waiting at an all_reduce gets it, and when the
  // program has all_reduces left, Gloo's connections are closed so that the peers fail
  // at once instead of at their timeout.
  void Abort(int64_t replica, absl::Status status);

 private:
  // One all_reduce instruction of a launch that spans processes.
  struct ProcessMeeting {
    std::vector<const uint8_t*> inputs;  // per local replica
    std::vector<uint8_t*> outputs;
    int64_t arrived = 0;
    bool started = false;  // every local replica arrived: nobody leaves before `done`
    bool done = false;
    std::atomic<bool> done_flag{false};  // `done`, for FinishAcrossProcesses's poll
    absl::Status status;
  };

  // Reduces every group of `inst` with members here (the meeting's performer).
  absl::Status ReduceGroups(const ir::Instruction& inst, const ProcessMeeting& meeting);
  // Registers replica `replica` at `meeting`; true when it is the last local replica and
  // the meeting starts (nobody failed). Precondition: mu_ held.
  bool Arrive(ProcessMeeting& meeting, int64_t replica, const uint8_t* in, uint8_t* out);
  // The performer's end: records `status` and wakes the waiting replicas.
  void Complete(ProcessMeeting& meeting, absl::Status status);
  // Waits for `meeting` and returns its status. Precondition: `lock` holds mu_.
  absl::Status AwaitMeeting(std::unique_lock<std::mutex>& lock, int instruction,
                            const ir::Instruction& inst, ProcessMeeting& meeting);
  // Polls, yielding the CPU between looks, until `meeting` is done, a replica failed, or
  // GlooConfig::finish_spin has passed. Precondition: mu_ not held.
  void PollMeeting(const ProcessMeeting& meeting) const;

  struct Meeting {
    std::vector<const uint8_t*> inputs;
    size_t arrived = 0;
    size_t finished = 0;
    bool abandoned = false;  // a member left without the group: it never completes
  };

  // Precondition: mu_ held.
  bool HasFailedMember(const std::vector<int64_t>& group) const;

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<int, int64_t>, Meeting> meetings_;  // (instruction, first of group)
  std::map<int64_t, absl::Status> failed_;               // replica -> its failure
  const ProcessSpan span_{};
  std::map<int, ProcessMeeting> process_meetings_;  // by instruction
  int64_t meetings_done_ = 0;
  absl::Status first_failure_;           // of a meeting of this launch (guarded by mu_)
  std::atomic<bool> any_failed_{false};  // !failed_.empty(), for PollMeeting
};

// Nanoseconds the devices' threads of this process have spent in all_reduces across
// processes that they waited for: a whole all_reduce run where it stands, or the finish of
// one that overlapped the kernels (the exposed part). Summed over local replicas.
int64_t CollectiveExposedNanos();

// The group of `replica` in an all_reduce's replica_groups/group_size attributes; empty
// when the replica is in none.
std::vector<int64_t> GroupOf(const ir::Instruction& all_reduce, int64_t replica);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_COLLECTIVES_H_
