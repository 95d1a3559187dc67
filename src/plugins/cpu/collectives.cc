#include "src/plugins/cpu/collectives.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/kernels.h"

namespace seam::cpu {

std::vector<int64_t> GroupOf(const ir::Instruction& all_reduce, int64_t replica) {
  const std::vector<int64_t>& replicas = all_reduce.attrs.at("replica_groups");
  const auto size = static_cast<size_t>(all_reduce.attrs.at("group_size")[0]);
  auto it = std::find(replicas.begin(), replicas.end(), replica);
  if (it == replicas.end() || size == 0) return {};
  size_t start = static_cast<size_t>(it - replicas.begin()) / size * size;
  return std::vector<int64_t>(replicas.begin() + static_cast<std::ptrdiff_t>(start),
                              replicas.begin() + static_cast<std::ptrdiff_t>(start + size));
}

absl::Status Rendezvous::AllReduce(int instruction, ir::Op op, ir::DType dtype,
                                   const std::vector<int64_t>& group, int64_t replica,
                                   const uint8_t* in, uint8_t* out, int64_t count) {
  const size_t position =
      static_cast<size_t>(std::find(group.begin(), group.end(), replica) - group.begin());
  const std::pair<int, int64_t> key{instruction, group.front()};
  std::vector<const uint8_t*> inputs;
  {
    std::unique_lock<std::mutex> lock(mu_);
    Meeting& meeting = meetings_[key];
    if (meeting.inputs.empty()) meeting.inputs.assign(group.size(), nullptr);
    meeting.inputs[position] = in;
    ++meeting.arrived;
    cv_.notify_all();
    cv_.wait(lock, [&] {
      return meeting.arrived == group.size() || meeting.abandoned || HasFailedMember(group);
    });
    if (meeting.arrived != group.size() || meeting.abandoned) {
      // The group will never be complete: leave without reading, and make sure nobody
      // else completes it (this replica's input is about to go away).
      meeting.abandoned = true;
      cv_.notify_all();
      absl::Status cause = absl::InternalError("a member of the group left");
      for (int64_t member : group) {
        auto it = failed_.find(member);
        if (it != failed_.end()) {
          cause = it->second;
          break;
        }
      }
      return absl::Status(cause.code(),
                          absl::StrCat("%", instruction, " (", std::string(ir::OpName(op)),
                                       "): the launch was aborted: ", cause.message()));
    }
    inputs = meeting.inputs;
  }
  const ir::Op combine = op == ir::Op::kAllReduceSum   ? ir::Op::kAdd
                         : op == ir::Op::kAllReduceMax ? ir::Op::kMaximum
                                                       : ir::Op::kMinimum;
  const size_t bytes = static_cast<size_t>(count) * ir::DTypeSize(dtype);
  if (bytes > 0) std::memmove(out, inputs[0], bytes);
  for (size_t k = 1; k < inputs.size(); ++k) Binary(combine, dtype, out, inputs[k], out, count);
  {
    // Every member's input must stay alive until all members have read it. Once the whole
    // group has arrived, all of them finish reading, so this wait ends even after an abort.
    std::unique_lock<std::mutex> lock(mu_);
    Meeting& meeting = meetings_[key];
    ++meeting.finished;
    cv_.notify_all();
    cv_.wait(lock, [&] { return meeting.finished >= group.size(); });
  }
  return absl::OkStatus();
}

bool Rendezvous::HasFailedMember(const std::vector<int64_t>& group) const {
  for (int64_t member : group) {
    if (failed_.count(member) > 0) return true;
  }
  return false;
}

void Rendezvous::Abort(int64_t replica, absl::Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed_.emplace(replica, std::move(status));
  }
  cv_.notify_all();
}

}  // namespace seam::cpu
