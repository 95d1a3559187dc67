#include "src/lazy/graph_executor.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "src/base/scratch.h"
#include "src/base/status_macros.h"
#include "src/lazy/recompile_explainer.h"
#include "src/lazy/step_plan.h"
#include "src/lazy/step_runner.h"
#include "src/runtime/trace.h"

namespace seam::lazy {
namespace {

thread_local BarrierObserver* g_observer = nullptr;

}  // namespace

BarrierObserver* SetBarrierObserver(BarrierObserver* observer) {
  BarrierObserver* previous = g_observer;
  g_observer = observer;
  return previous;
}

namespace {

// A barrier on the step timeline (docs/tracing.md). A step runs from the end of the
// previous step's barrier (or the trace's start) to the end of its own: first the
// recording of its operations (and whatever else the program does between barriers), then
// the barrier. A sync for a host read is drawn as "sync for read". A trace that started
// during the barrier (SEAM_TRACE_TO starts one with the client, which the first barrier
// may create) draws it from the trace's start. Costs two relaxed loads while no trace is
// on.
class BarrierSpan {
 public:
  BarrierSpan(Runtime& rt, bool step)
      : rt_(rt), step_(step), begin_ns_(trace::On() ? trace::NowNs() : -1) {
    if (step_) ++rt_.barrier_steps;
  }
  ~BarrierSpan() {
    if (!trace::On()) return;
    const int64_t end_ns = trace::NowNs();
    if (begin_ns_ < 0) {
      const int64_t started_ns = trace::StartedAtNs();
      if (started_ns == 0) return;  // stopped meanwhile
      begin_ns_ = std::min(started_ns, end_ns);
    }
    if (!step_) {
      trace::Record("sync for read", "step", begin_ns_, end_ns);
      return;
    }
    // The previous barrier's end when it was traced in this trace, else the trace's start.
    const int64_t since_ns = std::max(rt_.last_barrier_end_ns, trace::StartedAtNs());
    const int64_t recording_ns = since_ns > 0 && since_ns <= begin_ns_ ? since_ns : begin_ns_;
    trace::Record(absl::StrCat("step ", rt_.barrier_steps), "step", recording_ns, end_ns);
    trace::Record("recording", "step", recording_ns, begin_ns_);
    trace::Record("barrier", "step", begin_ns_, end_ns);
    rt_.last_barrier_end_ns = end_ns;
  }
  BarrierSpan(const BarrierSpan&) = delete;
  BarrierSpan& operator=(const BarrierSpan&) = delete;

 private:
  Runtime& rt_;  // its barrier count and last end are guarded by its step lock, held here
  bool step_;
  int64_t begin_ns_;
};

// The tables of one step barrier, kept per thread for the next barrier (one runs every
// step) and emptied when the barrier ends, so that they hold no tensor, graph or buffer
// after it.
struct BarrierTables {
  StepPlan plan;
  StepResult step;
  std::vector<NodePtr> new_leaves;

  void Clear() {
    new_leaves.clear();
    step.computation = nullptr;
    step.outputs.clear();
    plan.Clear();
  }
};

// The program of a planned step: keyed and matched on its walk, lowered only on a miss.
class WalkProgram final : public StepProgram {
 public:
  explicit WalkProgram(const StepPlan& plan) : plan_(plan) {}

  uint64_t Key() const override { return WalkKey(plan_.walk); }
  // Programs compiled from a walk are matched by its signature; others (none usually) by
  // their instructions.
  bool Matches(const ir::Program& cached, absl::Span<const uint64_t> signature) const override {
    return signature.empty() ? WalkMatches(plan_.walk, cached)
                             : SignatureMatches(plan_.walk, signature, cached);
  }
  absl::StatusOr<ir::Program> Lower(std::vector<uint64_t>* signature) override {
    LoweredGraph lowered = LowerPlan(plan_);
    SEAM_RETURN_IF_ERROR(NoteCompileCacheMiss(lowered.program, lowered.leaves));
    if (plan_.walk.exact) *signature = plan_.walk.signature;
    return std::move(lowered.program);
  }

 private:
  const StepPlan& plan_;
};

// A step whose values are per-replica, or that spans the devices of several processes:
// the lowered program over its replicas.
absl::Status SyncReplicated(const StepLock& steps, BarrierTables& tables, StepKind kind) {
  StepPlan& plan = tables.plan;
  const StepReplicas replicas = plan.replicas;
  LoweredGraph lowered = LowerPlan(plan);
  plan.walk.leaves.clear();  // holds no value while the replicas run
  BuiltProgram program(lowered.program);
  ReplicatedRun step;
  step.host_read = kind == StepKind::kHostRead;
  step.replicas = replicas.local;
  step.global_replicas = replicas.global;
  step.parameters = lowered.leaves;
  step.program = &program;
  SEAM_RETURN_IF_ERROR(RunReplicated(steps, step, tables.step));
  if (replicas.job_wide()) CountCrossProcessCollectives(lowered.program);
  std::vector<NodePtr> results = ReplicatedLeaves(plan.roots, tables.step.outputs);
  for (size_t i = 0; i < plan.pending.size(); ++i) {
    plan.pending[i]->set_node(results[plan.result_of[i]]);
  }
  if (g_observer != nullptr) {
    BarrierRecord record;
    record.donate = kind == StepKind::kBarrier;
    record.replicated = true;
    g_observer->OnBarrier(record);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SyncTensors(const std::vector<std::shared_ptr<TensorImpl>>& tensors, bool donate) {
  Runtime& rt = CurrentRuntime();
  const StepLock lock = rt.LockSteps();
  const BarrierSpan span(rt, donate);
  // A barrier inside a barrier (from an observer) gets tables of its own.
  base::ScratchLease<BarrierTables> lease;
  BarrierTables& tables = *lease;
  const StepKind kind = donate ? StepKind::kBarrier : StepKind::kHostRead;
  // The cache is keyed and checked on the graph itself: a hit builds no program.
  const int64_t capture_ns = trace::On() ? trace::NowNs() : -1;
  StepPlan& plan = tables.plan;
  SEAM_ASSIGN_OR_RETURN(bool pending, PlanStep(tensors, donate, plan));
  if (!pending) {
    if (donate) CountEmptyBarrier(lock);  // MarkStep only
    return absl::OkStatus();
  }
  if (plan.replicas.global > 1) return SyncReplicated(lock, tables, kind);

  WalkProgram program(plan);
  BarrierRun step;
  step.host_read = !donate;
  step.parameters = plan.walk.leaves;
  step.program = &program;
  step.donations = plan.walk.aliases;
  if (capture_ns >= 0) trace::Record("graph capture", "step", capture_ns, trace::NowNs());
  SEAM_RETURN_IF_ERROR(RunBarrier(lock, step, tables.step));

  std::vector<runtime::ComputationClient::DataPtr>& outputs = tables.step.outputs[0];
  std::vector<NodePtr>& new_leaves = tables.new_leaves;
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto value = NewDeviceValue();
    value->shape = plan.roots[i]->shape;
    value->device = std::move(outputs[i]);
    new_leaves.push_back(MakeLeaf(std::move(value)));
  }
  for (size_t i = 0; i < plan.pending.size(); ++i) {
    plan.pending[i]->set_leaf(new_leaves[plan.result_of[i]]);
  }
  if (g_observer != nullptr) {
    BarrierRecord record;
    record.donate = donate;
    record.computation = tables.step.computation;
    record.parameters = &plan.walk.leaves;
    record.aliases = &plan.walk.aliases;
    record.pending = &plan.pending;
    record.result_of = &plan.result_of;
    record.results = &new_leaves;
    g_observer->OnBarrier(record);
  }
  return absl::OkStatus();
}

namespace {

// The tensor's node once nothing is pending. A value with nothing pending is read without a
// barrier (whose only other trace is its "sync for read" span, kept while the timeline
// records).
absl::StatusOr<NodePtr> SyncedNode(const std::shared_ptr<TensorImpl>& tensor) {
  NodePtr node = tensor->node();
  if (node->is_leaf() && !trace::On()) return node;
  node.reset();
  SEAM_RETURN_IF_ERROR(SyncTensors({tensor}, /*donate=*/false));
  return tensor->node();
}

}  // namespace

absl::StatusOr<ir::Literal> ReadTensor(const std::shared_ptr<TensorImpl>& tensor,
                                       std::string_view op) {
  if (g_observer != nullptr) g_observer->OnHostRead();
  SEAM_ASSIGN_OR_RETURN(NodePtr node, SyncedNode(tensor));
  return ReadValue(CurrentRuntime(), *node->value, op);
}

absl::Status ReadTensorInto(const std::shared_ptr<TensorImpl>& tensor, std::string_view op,
                            absl::Span<uint8_t> destination) {
  if (g_observer != nullptr) g_observer->OnHostRead();
  SEAM_ASSIGN_OR_RETURN(NodePtr node, SyncedNode(tensor));
  return ReadValueInto(CurrentRuntime(), *node->value, op, destination);
}

}  // namespace seam::lazy
