// All-reduce among the replicas of one launch: each replica runs on its own device worker
// and meets the others of its group at every all_reduce instruction.
#ifndef SEAM_PLUGINS_CPU_COLLECTIVES_H_
#define SEAM_PLUGINS_CPU_COLLECTIVES_H_

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

// Shared by the replicas of one launch (one PJRT_LoadedExecutable_Execute call).
class Rendezvous {
 public:
  // Replica `replica` of group `group` (replica ids, in the group's order) contributes `in`
  // to the all_reduce at instruction `instruction`, waits for the rest of the group and
  // writes the group's reduction (in the group's order) into `out`. Returns the abort
  // status instead when the launch was aborted before the whole group arrived.
  absl::Status AllReduce(int instruction, ir::Op op, ir::DType dtype,
                         const std::vector<int64_t>& group, int64_t replica, const uint8_t* in,
                         uint8_t* out, int64_t count);

  // Replica `replica` failed: every replica waiting, now or later, for a group that
  // contains it gets `status` (groups without it are not affected).
  void Abort(int64_t replica, absl::Status status);

 private:
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
};

// The group of `replica` in an all_reduce's replica_groups/group_size attributes; empty
// when the replica is in none.
std::vector<int64_t> GroupOf(const ir::Instruction& all_reduce, int64_t replica);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_COLLECTIVES_H_
