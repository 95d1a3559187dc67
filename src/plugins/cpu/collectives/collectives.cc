#include "src/plugins/cpu/collectives/collectives.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/collectives/gloo_collectives.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {
namespace {

// The all_reduce row's combiner (ops.def) as the binary op that folds two operands.
ir::Op Combiner(ir::Op all_reduce) { return ir::CombinerBinaryOp(ir::ReductionOf(all_reduce)); }

// Folds `inputs` in order into outputs[0] and copies the result into the other outputs.
void FoldInto(ir::Op op, ir::DType dtype, const std::vector<const uint8_t*>& inputs,
              const std::vector<uint8_t*>& outputs, int64_t count) {
  const size_t bytes = static_cast<size_t>(count) * ir::DTypeSize(dtype);
  if (bytes == 0) return;
  std::memmove(outputs[0], inputs[0], bytes);
  for (size_t k = 1; k < inputs.size(); ++k) {
    Binary(Combiner(op), dtype, outputs[0], inputs[k], outputs[0], count);
  }
  for (size_t k = 1; k < outputs.size(); ++k) std::memcpy(outputs[k], outputs[0], bytes);
}

absl::Status WithInstruction(int instruction, ir::Op op, const absl::Status& status,
                             const char* what) {
  return absl::Status(status.code(),
                      absl::StrCat("%", instruction, " (", std::string(ir::OpName(op)), "): ", what,
                                   status.message()));
}

std::atomic<int64_t> exposed_ns{0};

// Adds the time from construction to destruction to CollectiveExposedNanos(): a device's
// thread waiting for a collective across processes.
class ExposedTime {
 public:
  ExposedTime() : start_(std::chrono::steady_clock::now()) {}
  ~ExposedTime() {
    exposed_ns.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - start_)
                             .count(),
                         std::memory_order_relaxed);
  }
  ExposedTime(const ExposedTime&) = delete;
  ExposedTime& operator=(const ExposedTime&) = delete;

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

int64_t CollectiveExposedNanos() { return exposed_ns.load(std::memory_order_relaxed); }

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
  const ir::Op combine = Combiner(op);
  const size_t bytes = static_cast<size_t>(count) * ir::DTypeSize(dtype);
  // A reduction in place (out is this member's input, which the others read) goes through
  // scratch and lands once every member has read.
  thread_local std::vector<uint8_t> scratch;
  uint8_t* into = out;
  if (out == in) {
    scratch.resize(bytes);
    into = scratch.data();
  }
  if (bytes > 0) std::memmove(into, inputs[0], bytes);
  for (size_t k = 1; k < inputs.size(); ++k) Binary(combine, dtype, into, inputs[k], into, count);
  {
    // Every member's input must stay alive until all members have read it. Once the whole
    // group has arrived, all of them finish reading, so this wait ends even after an abort.
    std::unique_lock<std::mutex> lock(mu_);
    Meeting& meeting = meetings_[key];
    ++meeting.finished;
    cv_.notify_all();
    cv_.wait(lock, [&] { return meeting.finished >= group.size(); });
  }
  if (into != out && bytes > 0) std::memcpy(out, into, bytes);
  return absl::OkStatus();
}

bool Rendezvous::HasFailedMember(const std::vector<int64_t>& group) const {
  for (int64_t member : group) {
    if (failed_.count(member) > 0) return true;
  }
  return false;
}

void Rendezvous::Abort(int64_t replica, absl::Status status) {
  bool close_connections = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    failed_.emplace(replica, std::move(status));
    any_failed_.store(true, std::memory_order_release);
    close_connections = spans_processes() && meetings_done_ < span_.all_reduces;
  }
  cv_.notify_all();
  if (close_connections) span_.gloo->BreakAll();
}

bool Rendezvous::Arrive(ProcessMeeting& meeting, int64_t replica, const uint8_t* in, uint8_t* out) {
  const auto local = static_cast<size_t>(replica - span_.process_index * span_.local_replicas);
  if (meeting.inputs.empty()) {
    meeting.inputs.assign(static_cast<size_t>(span_.local_replicas), nullptr);
    meeting.outputs.assign(static_cast<size_t>(span_.local_replicas), nullptr);
  }
  meeting.inputs[local] = in;
  meeting.outputs[local] = out;
  ++meeting.arrived;
  if (meeting.arrived != span_.local_replicas || !failed_.empty()) return false;
  meeting.started = true;
  return true;
}

void Rendezvous::Complete(ProcessMeeting& meeting, absl::Status status) {
  // Notified under the lock: a replica woken by it may end the launch (and this object).
  const std::lock_guard<std::mutex> lock(mu_);
  if (!status.ok() && first_failure_.ok()) first_failure_ = status;
  meeting.status = std::move(status);
  meeting.done = true;
  meeting.done_flag.store(true, std::memory_order_release);
  if (meeting.status.ok()) ++meetings_done_;
  cv_.notify_all();
}

absl::Status Rendezvous::AwaitMeeting(std::unique_lock<std::mutex>& lock, int instruction,
                                      const ir::Instruction& inst, ProcessMeeting& meeting) {
  cv_.wait(lock, [&] { return meeting.done || (!meeting.started && !failed_.empty()); });
  if (!meeting.done) {
    // A replica of this process failed before arriving: nobody reads the inputs.
    return WithInstruction(instruction, inst.op, failed_.begin()->second,
                           "the launch was aborted: ");
  }
  if (!meeting.status.ok()) return WithInstruction(instruction, inst.op, meeting.status, "");
  return absl::OkStatus();
}

absl::Status Rendezvous::AllReduceAcrossProcesses(int instruction, const ir::Instruction& inst,
                                                  int64_t replica, const uint8_t* in,
                                                  uint8_t* out) {
  const ExposedTime exposed;
  std::unique_lock<std::mutex> lock(mu_);
  ProcessMeeting& meeting = process_meetings_[instruction];  // std::map: stays put
  if (Arrive(meeting, replica, in, out)) {
    lock.unlock();
    Complete(meeting, ReduceGroups(inst, meeting));
    lock.lock();
  }
  return AwaitMeeting(lock, instruction, inst, meeting);
}

void Rendezvous::StartAcrossProcesses(int instruction, const ir::Instruction& inst, int64_t replica,
                                      const uint8_t* in, uint8_t* out) {
  const std::lock_guard<std::mutex> lock(mu_);
  ProcessMeeting& meeting = process_meetings_[instruction];  // std::map: stays put
  if (!Arrive(meeting, replica, in, out)) return;
  // Every replica that started waits in FinishAcrossProcesses for `done`, so this object
  // and the buffers outlive the task. After a failure in this launch (an earlier collective,
  // or a replica's abort) the rest fail at once instead of each waiting for a peer that will
  // not come.
  span_.gloo->Post([this, &inst, &meeting] {
    absl::Status earlier;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (!first_failure_.ok()) earlier = first_failure_;
      if (earlier.ok() && !failed_.empty()) earlier = failed_.begin()->second;
    }
    Complete(meeting, earlier.ok() ? ReduceGroups(inst, meeting)
                                   : absl::Status(earlier.code(),
                                                  absl::StrCat("not run: an earlier failure in "
                                                               "this launch: ",
                                                               earlier.message())));
  });
}

absl::Status Rendezvous::FinishAcrossProcesses(int instruction, const ir::Instruction& inst) {
  const ExposedTime exposed;
  std::unique_lock<std::mutex> lock(mu_);
  ProcessMeeting& meeting = process_meetings_[instruction];  // std::map: stays put
  if (!meeting.done) {
    lock.unlock();
    PollMeeting(meeting);
    lock.lock();
  }
  return AwaitMeeting(lock, instruction, inst, meeting);
}

// A thread that sleeps on a condition variable lets its CPU go idle, and on a virtual
// machine waking an idle vCPU costs tens to hundreds of microseconds. Gloo's ring passes
// each segment through such wake-ups on both sides, so while this thread keeps its CPU
// busy (yielding to any other runnable thread) the exchange it waits for runs faster:
// BENCHMARKS.md, "Data parallel across processes".
void Rendezvous::PollMeeting(const ProcessMeeting& meeting) const {
  const std::chrono::microseconds spin = span_.gloo->config().finish_spin;
  if (spin.count() <= 0) return;
  const auto until = std::chrono::steady_clock::now() + spin;
  while (!meeting.done_flag.load(std::memory_order_acquire) &&
         !any_failed_.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until) {
    sched_yield();
  }
}

absl::Status Rendezvous::ReduceGroups(const ir::Instruction& inst, const ProcessMeeting& meeting) {
  const std::vector<int64_t>& replicas = inst.attrs.at("replica_groups");
  const auto size = static_cast<size_t>(inst.attrs.at("group_size")[0]);
  const int64_t first = span_.process_index * span_.local_replicas;
  const int64_t count = inst.shape.num_elements();
  std::vector<const uint8_t*> inputs;
  std::vector<uint8_t*> outputs;
  std::vector<int64_t> processes;
  for (size_t start = 0; size > 0 && start + size <= replicas.size(); start += size) {
    inputs.clear();
    outputs.clear();
    processes.clear();
    for (size_t k = start; k < start + size; ++k) {
      const int64_t member = replicas[k];
      if (member >= first && member < first + span_.local_replicas) {
        inputs.push_back(meeting.inputs[static_cast<size_t>(member - first)]);
        outputs.push_back(meeting.outputs[static_cast<size_t>(member - first)]);
      }
      processes.push_back(member / span_.local_replicas);
    }
    if (inputs.empty()) continue;
    std::sort(processes.begin(), processes.end());
    processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
    if (processes.size() == 1) {
      FoldInto(inst.op, inst.shape.dtype, inputs, outputs, count);
      continue;
    }
    // This process's members folded first (an input may be its own output: the reduction
    // is then in place), then Gloo's all_reduce of the partial result in place.
    const size_t bytes = static_cast<size_t>(count) * ir::DTypeSize(inst.shape.dtype);
    if (inputs.size() > 1 || inputs[0] != outputs[0]) {
      FoldInto(inst.op, inst.shape.dtype, inputs, {outputs[0]}, count);
    }
    absl::Status status = span_.gloo->AllReduce(processes, inst.op, inst.shape.dtype, {outputs[0]},
                                                {outputs[0]}, count);
    if (!status.ok()) return status;
    for (size_t k = 1; k < outputs.size(); ++k) std::memcpy(outputs[k], outputs[0], bytes);
  }
  return absl::OkStatus();
}

}  // namespace seam::cpu
