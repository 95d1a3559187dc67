#include "src/plugins/cpu/compile/fusion.h"

#include <algorithm>
#include <iterator>

#include "src/plugins/cpu/compile/fusion_sink.h"
#include "src/plugins/cpu/compile/transposed_product.h"

namespace seam::cpu {
namespace {

using ir::Op;

// A merge that needs a longer dependence search than this is refused (the program just
// gets one more kernel), which bounds compile time on very large programs.
constexpr int kSearchBudget = 4096;

class Grouper {
 public:
  Grouper(const ir::Program& program, std::vector<bool> needed, const std::vector<int>& update_of)
      : program_(program),
        needed_(std::move(needed)),
        update_of_(update_of),
        group_of_(program.instructions.size(), -1),
        seen_(program.instructions.size(), 0) {}

  void Run() {
    const int n = static_cast<int>(program_.instructions.size());
    for (int i = 0; i < n; ++i) {
      const ir::Instruction& inst = program_.instructions[i];
      if (!needed_[i] || !IsLoopFusible(inst.op) || update_of_[i] >= 0) continue;
      std::vector<int> candidates;
      for (size_t k = 0; k < inst.operands.size(); ++k) {
        int g = group_of_[inst.operands[k]];
        if (g >= 0 && KeepsIndex(program_, inst, k) &&
            std::find(candidates.begin(), candidates.end(), g) == candidates.end()) {
          candidates.push_back(g);
        }
      }
      if (candidates.size() > 1 && CanJoin(i, candidates)) {
        Join(i, candidates);
        continue;
      }
      bool joined = false;
      for (int g : candidates) {
        if (CanJoin(i, {g})) {
          Join(i, {g});
          joined = true;
          break;
        }
      }
      if (!joined) {
        group_of_[i] = static_cast<int>(members_.size());
        members_.push_back({i});
        group_mark_.push_back(0);
      }
    }
  }

  std::vector<std::vector<int>>& members() { return members_; }
  std::vector<int>& group_of() { return group_of_; }

 private:
  // Whether the union of `groups` and instruction i is a valid group: no value outside it
  // depends on a member while a member depends on that value (the group would have to run
  // both before and after it). Dependence is taken between steps, not instructions: an
  // outside value that belongs to another group depends on everything that group reads,
  // because the group runs as one loop. (Tracing only instruction edges let two groups each
  // wait for the other, through a reduction between them.)
  //
  // The members of the union are marked through their groups (and i), so joining one
  // group costs the search, not the group's size (a long chain joins its group once per
  // link); joining several still reads every member's operands.
  bool CanJoin(int i, const std::vector<int>& groups) {
    ++stamp_;
    for (int g : groups) group_mark_[g] = stamp_;
    joining_ = i;
    int budget = kSearchBudget;
    ++search_;
    auto outside_operands_ok = [&](int m) {
      for (int o : program_.instructions[m].operands) {
        if (Marked(o)) continue;
        if (DependsOnMarked(o, &budget)) return false;
      }
      return true;
    };
    // With one group, only the new member's outside operands can depend on the group (the
    // group was valid, and nothing reads i yet); with several, any member's can.
    if (groups.size() > 1) {
      for (int g : groups) {
        for (int m : members_[g]) {
          if (!outside_operands_ok(m)) return false;
        }
      }
    }
    return outside_operands_ok(i);
  }

  // Whether `value` is a member of the union CanJoin is checking.
  bool Marked(int value) const {
    const int g = group_of_[value];
    return value == joining_ || (g >= 0 && group_mark_[g] == stamp_);
  }

  // Depth-first search from `value` through operands, for a marked instruction; a grouped
  // value stands for its whole group (all members' operands are followed). Values visited
  // earlier in the same CanJoin are known not to lead to a marked one. Running out of
  // budget counts as "depends" (the merge is refused).
  bool DependsOnMarked(int value, int* budget) {
    std::vector<int> stack;
    auto visit = [&](int v) {
      if (seen_[v] == search_) return;
      seen_[v] = search_;
      stack.push_back(v);
    };
    visit(value);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (--*budget < 0) return true;
      const int g = group_of_[v];
      if (g >= 0) {
        for (int m : members_[g]) {
          if (Marked(m)) return true;
          visit(m);
        }
      }
      for (int o : program_.instructions[v].operands) {
        if (Marked(o)) return true;
        visit(o);
      }
    }
    return false;
  }

  void Join(int i, const std::vector<int>& groups) {
    int target = groups[0];
    for (size_t k = 1; k < groups.size(); ++k) {
      for (int m : members_[groups[k]]) {
        group_of_[m] = target;
        members_[target].push_back(m);
      }
      members_[groups[k]].clear();
    }
    group_of_[i] = target;
    members_[target].push_back(i);
  }

  const ir::Program& program_;
  std::vector<bool> needed_;
  const std::vector<int>& update_of_;
  std::vector<int> group_of_;
  std::vector<std::vector<int>> members_;
  std::vector<int> group_mark_;  // per group: stamp_ while CanJoin checks a union with it
  std::vector<int> seen_;        // per instruction: search_ once a search visited it
  int joining_ = -1;             // the instruction CanJoin checks
  int stamp_ = 0, search_ = 0;
};

std::vector<bool> NeededValues(const ir::Program& program, const FusionPlan& plan) {
  const int n = static_cast<int>(program.instructions.size());
  std::vector<bool> needed(n, false);
  for (int r : program.results) needed[r] = true;
  // A replica that skipped an all_reduce would leave its group waiting: always run them.
  for (int i = 0; i < n; ++i) {
    if (ir::IsAllReduce(program.instructions[i].op)) needed[i] = true;
  }
  for (int i = n - 1; i >= 0; --i) {
    if (!needed[i]) continue;
    for (int o : InstructionReads(program, plan, i)) needed[o] = true;
  }
  return needed;
}

// Orders the steps so that each comes after the steps computing what it reads, staying
// close to program order. False if the groups formed a cycle (not expected).
bool OrderSteps(const ir::Program& program, FusionPlan* plan) {
  const int steps = static_cast<int>(plan->steps.size());
  std::vector<int> state(steps, 0);  // 0 new, 1 in progress, 2 emitted
  std::vector<Step> ordered;
  ordered.reserve(steps);
  std::vector<int> new_index(steps, -1);
  // Iterative post-order: a frame is a step and the reads it still has to visit.
  auto reads = [&](int s) {
    std::vector<int> producers;
    for (int v : StepReads(program, *plan, plan->steps[s])) {
      if (plan->step_of[v] >= 0 && plan->step_of[v] != s) producers.push_back(plan->step_of[v]);
    }
    return producers;
  };
  // Roots by the position of their last instruction, so that steps keep program order where
  // nothing forces otherwise (values then die in about the order the program wrote).
  std::vector<int> roots(steps);
  std::vector<int> last(steps, -1);
  for (int s = 0; s < steps; ++s) {
    roots[s] = s;
    const Step& step = plan->steps[s];
    last[s] = step.group >= 0 ? plan->groups[step.group].members.back() : step.instruction;
  }
  std::sort(roots.begin(), roots.end(), [&](int a, int b) { return last[a] < last[b]; });
  for (int root : roots) {
    if (state[root] != 0) continue;
    std::vector<std::pair<int, std::vector<int>>> stack;
    stack.emplace_back(root, reads(root));
    state[root] = 1;
    while (!stack.empty()) {
      auto& [s, pending] = stack.back();
      if (pending.empty()) {
        state[s] = 2;
        new_index[s] = static_cast<int>(ordered.size());
        ordered.push_back(plan->steps[s]);
        stack.pop_back();
        continue;
      }
      int next = pending.back();
      pending.pop_back();
      if (state[next] == 1) return false;
      if (state[next] == 0) {
        state[next] = 1;
        stack.emplace_back(next, reads(next));
      }
    }
  }
  plan->steps = std::move(ordered);
  for (int& s : plan->step_of) {
    if (s >= 0) s = new_index[s];
  }
  return true;
}

// A broadcast of a rank-0 value (a fill, like the zero of every relu) or of a small one (at
// most 1/8 of its result: a batch norm's per-channel statistics over NCHW) that members of
// several groups read is computed inside each of those groups instead of being written to
// memory by one and read back by the others. Only when nothing outside groups reads it and
// it has each reading group's element count. Groups left empty are dropped. The operand
// becomes an input of each reading group (and an output of its own group if it has one).
void CopyFills(const ir::Program& program, FusionPlan* plan) {
  const int n = static_cast<int>(program.instructions.size());
  std::vector<std::vector<int>> reader_groups(n);
  std::vector<bool> other_reader(n, false);
  for (int i = 0; i < n; ++i) {
    if (!plan->needed[i]) continue;
    for (int o : InstructionReads(program, *plan, i)) {
      if (plan->group_of[i] >= 0) {
        reader_groups[o].push_back(plan->group_of[i]);
      } else {
        other_reader[o] = true;
      }
    }
  }
  for (int r : program.results) other_reader[r] = true;
  bool dropped = false;
  for (int b = 0; b < n; ++b) {
    const ir::Instruction& inst = program.instructions[b];
    const int home = plan->group_of[b];
    if (home < 0 || other_reader[b] || inst.op != Op::kBroadcastInDim ||
        program.instructions[inst.operands[0]].shape.num_elements() * 8 >
            inst.shape.num_elements()) {
      continue;
    }
    std::vector<int>& groups = reader_groups[b];
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    bool fits = groups.size() > 1 || (groups.size() == 1 && groups[0] != home);
    for (int g : groups) fits = fits && plan->groups[g].count == inst.shape.num_elements();
    if (!fits) continue;
    for (int g : groups) {
      std::vector<int>& members = plan->groups[g].members;
      auto at = std::lower_bound(members.begin(), members.end(), b);
      if (at == members.end() || *at != b) members.insert(at, b);
    }
    if (!std::binary_search(groups.begin(), groups.end(), home)) {
      std::vector<int>& members = plan->groups[home].members;
      members.erase(std::find(members.begin(), members.end(), b));
      dropped = dropped || members.empty();
      plan->group_of[b] = groups[0];
    }
    plan->copied_fill[b] = true;
  }
  if (dropped) DropEmptyGroups(plan);
}

// Ops cheap enough to compute twice where that saves a pass over memory.
bool CheapToCopy(Op op) {
  static constexpr Op kCheap[] = {Op::kAdd,     Op::kSubtract,      Op::kMultiply, Op::kNeg,
                                  Op::kMaximum, Op::kMinimum,       Op::kSelect,   Op::kConvert,
                                  Op::kReshape, Op::kBroadcastInDim};
  return std::find(std::begin(kCheap), std::end(kCheap), op) != std::end(kCheap) ||
         ir::OpElementwiseKind(op) == ir::ElementwiseKind::kCompare;
}

// The most instructions copied into one group for one value. Each copied instruction is one
// more pass over the loop's tile in L1, which costs about what reading the value back from
// L3 saves: in the CNN example's step, up to 3 made its loops 1.2-1.5 ms faster (of
// 10.6-10.8 ms), up to 8 (and copies that read the value's sources instead of the value)
// only 0.5-1.0 ms, or slower.
constexpr size_t kMaxCopied = 3;

class ValueCopier {
 public:
  ValueCopier(const ir::Program& program, FusionPlan* plan)
      : program_(program), plan_(*plan), users_(program.instructions.size()) {
    for (int i = 0; i < static_cast<int>(program.instructions.size()); ++i) {
      if (!plan_.needed[i]) continue;
      for (int o : InstructionReads(program, plan_, i)) users_[o].push_back(i);
    }
    is_result_.assign(program.instructions.size(), false);
    for (int r : program.results) is_result_[r] = true;
    holders_.resize(program.instructions.size());
    // Members SinkRecomputedValues left in a second group (copied fills are read by no
    // value that could be copied: they are no group's count-sized values).
    for (int g = 0; g < static_cast<int>(plan_.groups.size()); ++g) {
      for (int m : plan_.groups[g].members) {
        if (plan_.group_of[m] != g && !plan_.copied_fill[m]) holders_[m].push_back(g);
      }
    }
  }

  // A value v of group H whose every reader outside H is a group with H's element count
  // (or a reduction of v) is copied into those groups with the few cheap values it is made
  // of, when each reading group already reads everything else the copies need (besides
  // small vectors): v is no longer written (or only a chunk at a time, for its reductions)
  // nor read back. A batch norm's normalised values, x * rstd, in the gradient's loop that
  // reads x anyway. Values in program order, so a copy can build on earlier ones.
  void Run() {
    for (int v = 0; v < static_cast<int>(program_.instructions.size()); ++v) {
      const int home = plan_.group_of[v];
      if (home < 0 || is_result_[v] || plan_.copied_fill[v]) continue;
      const int64_t count = plan_.groups[home].count;
      if (!Copyable(v, count)) continue;
      std::vector<int> targets;
      if (!ReaderGroups(v, home, &targets) || targets.empty()) continue;
      std::vector<std::vector<int>> cones;
      for (int g : targets) {
        std::vector<int> cone;
        if (plan_.groups[g].count != count || !Cone(v, g, &cone)) break;
        cones.push_back(std::move(cone));
      }
      if (cones.size() != targets.size()) continue;
      for (size_t t = 0; t < targets.size(); ++t) {
        std::vector<int>& members = plan_.groups[targets[t]].members;
        for (int m : cones[t]) {
          members.insert(std::lower_bound(members.begin(), members.end(), m), m);
          holders_[m].push_back(targets[t]);
          plan_.copied[m] = true;
        }
      }
    }
  }

 private:
  bool Member(int g, int v) const {
    const std::vector<int>& members = plan_.groups[g].members;
    return std::binary_search(members.begin(), members.end(), v);
  }
  bool Small(int v, int64_t count) const {
    return program_.instructions[v].shape.num_elements() * 8 <= count;
  }

  // Whether m can be computed again inside another group of `count` elements.
  bool Copyable(int m, int64_t count) const {
    if (plan_.group_of[m] < 0 || !plan_.needed[m]) return false;
    const ir::Instruction& inst = program_.instructions[m];
    if (inst.shape.num_elements() != count || !CheapToCopy(inst.op)) return false;
    for (size_t k = 0; k < inst.operands.size(); ++k) {
      if (KeepsIndex(program_, inst, k)) continue;
      if (inst.op != Op::kBroadcastInDim || !Small(inst.operands[k], count)) return false;
    }
    return true;
  }

  // The groups other than `home` that read v; false when anything else reads it (an
  // instruction outside groups that is not a reduction of v).
  bool ReaderGroups(int v, int home, std::vector<int>* groups) const {
    for (int i : users_[v]) {
      std::vector<int> holding = holders_[i];
      if (plan_.group_of[i] >= 0) holding.push_back(plan_.group_of[i]);
      if (holding.empty()) {
        const Op op = program_.instructions[i].op;
        const bool reduce = op == Op::kReduceSum || op == Op::kReduceMax || op == Op::kReduceMin ||
                            op == Op::kReduceProduct;
        if (!reduce || plan_.update_of[i] >= 0) return false;
        continue;
      }
      for (int g : holding) {
        if (g != home && !Member(g, v) &&
            std::find(groups->begin(), groups->end(), g) == groups->end()) {
          groups->push_back(g);
        }
      }
    }
    return true;
  }

  // The instructions to copy into group g to compute v there (v included), walking v's
  // operands down to what g already holds or reads and small vectors. False when that
  // takes more than kMaxCopied instructions or needs a full-size array g does not read.
  bool Cone(int v, int g, std::vector<int>* cone) const {
    std::vector<int> reads;  // what g's members read from outside g
    for (int m : plan_.groups[g].members) {
      for (int o : InstructionReads(program_, plan_, m)) {
        if (!Member(g, o)) reads.push_back(o);
      }
    }
    const int64_t count = plan_.groups[g].count;
    std::vector<int> stack = {v};
    while (!stack.empty()) {
      const int m = stack.back();
      stack.pop_back();
      if (std::find(cone->begin(), cone->end(), m) != cone->end()) continue;
      cone->push_back(m);
      if (cone->size() > kMaxCopied) return false;
      for (int o : program_.instructions[m].operands) {
        if (Member(g, o) || Small(o, count)) continue;
        if (std::find(reads.begin(), reads.end(), o) != reads.end()) continue;
        if (!Copyable(o, count)) return false;
        stack.push_back(o);
      }
    }
    std::sort(cone->begin(), cone->end());
    // What the copies read that g did not read before must not wait for g (through the
    // groups those values run in: a small vector's group may also hold later values).
    for (int m : *cone) {
      for (int o : InstructionReads(program_, plan_, m)) {
        if (Member(g, o) || std::binary_search(cone->begin(), cone->end(), o) ||
            std::find(reads.begin(), reads.end(), o) != reads.end()) {
          continue;
        }
        if (WaitsFor(o, g)) return false;
      }
    }
    return true;
  }

  // Whether computing `value` needs group g to have run: a search through operands, where
  // a value in a group stands for every member of that group (the group runs as one
  // step). Running out of budget counts as waiting.
  bool WaitsFor(int value, int g) const {
    std::vector<bool> seen(program_.instructions.size(), false);
    std::vector<int> stack = {value};
    int budget = kSearchBudget;
    auto visit = [&](int v) {
      if (!seen[v]) {
        seen[v] = true;
        stack.push_back(v);
      }
    };
    seen[value] = true;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      // v is computed by its own group's step (copies elsewhere are that group's members).
      const int k = plan_.group_of[v];
      if (--budget < 0 || k == g) return true;
      if (k >= 0) {
        for (int m : plan_.groups[k].members) visit(m);
      }
      for (int o : InstructionReads(program_, plan_, v)) visit(o);
    }
    return false;
  }

  const ir::Program& program_;
  FusionPlan& plan_;
  std::vector<std::vector<int>> users_;  // per value: the needed instructions reading it
  std::vector<bool> is_result_;
  std::vector<std::vector<int>> holders_;  // per instruction: groups holding a copy of it
};

// Whether the axes a reduction keeps (those not in sorted `axes`) are adjacent: a batch
// norm's statistics over {0, 2, 3} of NCHW keep {1}.
bool KeptAxesAdjacent(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), d)) kept.push_back(d);
  }
  for (size_t k = 1; k < kept.size(); ++k) {
    if (kept[k] != kept[k - 1] + 1) return false;
  }
  return true;
}

// A reduction over adjacent axes (or keeping adjacent axes) of f32/f64 whose operand a group writes
// to memory runs with that group (FusionGroup::reduces): its step leaves the plan and the group's
// step computes it. Not for results (their blocks may be donated ones the group reads), empty
// operands (the loop would never run to initialise the result), or reduce_product of
// integers (only float reductions are absorbed).
void AbsorbReduces(const ir::Program& program, FusionPlan* plan) {
  std::vector<bool> is_result(program.instructions.size(), false);
  for (int r : program.results) is_result[r] = true;
  std::vector<bool> absorbed(plan->steps.size(), false);
  for (size_t s = 0; s < plan->steps.size(); ++s) {
    const int r = plan->steps[s].instruction;
    if (r < 0 || plan->update_of[r] >= 0 || is_result[r]) continue;
    const ir::Instruction& inst = program.instructions[r];
    const bool reduce = inst.op == Op::kReduceSum || inst.op == Op::kReduceProduct ||
                        inst.op == Op::kReduceMax || inst.op == Op::kReduceMin;
    if (!reduce || inst.operands.size() != 1) continue;
    if (inst.shape.dtype != ir::DType::kF32 && inst.shape.dtype != ir::DType::kF64) continue;
    const int operand = inst.operands[0];
    const int g = plan->group_of[operand];
    if (g < 0 || plan->copied_fill[operand] ||
        program.instructions[operand].shape.num_elements() == 0) {
      continue;
    }
    std::vector<int64_t> axes = inst.attrs.at("axes");
    std::sort(axes.begin(), axes.end());
    bool adjacent = true;
    for (size_t k = 1; k < axes.size(); ++k) adjacent = adjacent && axes[k] == axes[k - 1] + 1;
    if (!adjacent && !KeptAxesAdjacent(axes, program.instructions[operand].shape.rank())) {
      continue;
    }
    FusionGroup& group = plan->groups[g];
    if (!std::binary_search(group.outputs.begin(), group.outputs.end(), operand)) continue;
    group.reduces.push_back(r);
    absorbed[s] = true;
  }
  std::vector<int> new_index(plan->steps.size(), -1);
  std::vector<Step> kept;
  for (size_t s = 0; s < plan->steps.size(); ++s) {
    if (absorbed[s]) continue;
    new_index[s] = static_cast<int>(kept.size());
    kept.push_back(plan->steps[s]);
  }
  if (kept.size() == plan->steps.size()) return;
  plan->steps = std::move(kept);
  for (int& s : plan->step_of) {
    if (s >= 0) s = new_index[s];
  }
  for (int s = 0; s < static_cast<int>(plan->steps.size()); ++s) {
    const int g = plan->steps[s].group;
    if (g < 0) continue;
    for (int r : plan->groups[g].reduces) plan->step_of[r] = s;
  }
}

}  // namespace

bool IsLoopFusible(Op op) {
  switch (op) {
    case Op::kSelect:
    case Op::kConvert:
    case Op::kBroadcastInDim:
    case Op::kReshape:
      return true;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kSelect
#define SEAM_CASES_EXCEPT_kConvert
#define SEAM_CASES_EXCEPT_kBroadcastInDim
#define SEAM_CASES_EXCEPT_kReshape
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kSelect
#undef SEAM_CASES_EXCEPT_kConvert
#undef SEAM_CASES_EXCEPT_kBroadcastInDim
#undef SEAM_CASES_EXCEPT_kReshape
      break;
  }
  // Every unary, binary and compare row of ops.def (the loop compiler runs each through
  // the elementwise kernels); any other op, a new one included, runs on its own.
  return ir::OpElementwiseKind(op) != ir::ElementwiseKind::kNone;
}

void MoveStepBefore(FusionPlan* plan, int s, int t) {
  std::vector<Step>& steps = plan->steps;
  const Step moved = steps[s];
  steps.erase(steps.begin() + s);
  steps.insert(steps.begin() + t - 1, moved);
  for (int& at : plan->step_of) {
    if (at == s) {
      at = t - 1;
    } else if (at > s && at < t) {
      --at;
    }
  }
}

FusionPlan PlanFusion(const ir::Program& program, bool fuse) {
  const int n = static_cast<int>(program.instructions.size());
  FusionPlan plan;
  plan.update_of.assign(n, -1);
  plan.transposed_product.assign(n, -1);
  if (fuse) {
    plan.updates = FindDotUpdates(program);
    for (size_t u = 0; u < plan.updates.size(); ++u) {
      plan.update_of[plan.updates[u].result] = static_cast<int>(u);
    }
    plan.transposed_product = FindTransposedProducts(program);
  }
  plan.needed = NeededValues(program, plan);
  plan.group_of.assign(n, -1);
  plan.step_of.assign(n, -1);
  if (fuse) {
    Grouper grouper(program, plan.needed, plan.update_of);
    grouper.Run();
    for (std::vector<int>& members : grouper.members()) {
      if (members.empty()) continue;
      std::sort(members.begin(), members.end());
      FusionGroup group;
      group.count = program.instructions[members[0]].shape.num_elements();
      group.members = std::move(members);
      const int g = static_cast<int>(plan.groups.size());
      for (int m : group.members) plan.group_of[m] = g;
      plan.groups.push_back(std::move(group));
    }
    plan.copied_fill.assign(n, false);
    CopyFills(program, &plan);
    // Values read by one later loop move into it first; cheap values are then copied into
    // the loops that read their sources (both compute some members in two groups).
    SinkRecomputedValues(program, &plan);
    plan.copied.assign(n, false);
    ValueCopier(program, &plan).Run();
  }
  // Inputs and outputs of each group: a group reads what its members read from outside
  // it; a value is an output of its group when another step reads it or it is a result
  // (a copied fill is neither: every group that reads it has a copy).
  for (int g = 0; g < static_cast<int>(plan.groups.size()); ++g) {
    FusionGroup& group = plan.groups[g];
    for (int m : group.members) {
      for (int o : InstructionReads(program, plan, m)) {
        if (std::binary_search(group.members.begin(), group.members.end(), o)) continue;
        group.inputs.push_back(o);
        const int og = plan.group_of[o];
        if (og >= 0) plan.groups[og].outputs.push_back(o);
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!plan.needed[i] || plan.group_of[i] >= 0) continue;
    for (int o : InstructionReads(program, plan, i)) {
      if (plan.group_of[o] >= 0) plan.groups[plan.group_of[o]].outputs.push_back(o);
    }
  }
  for (int r : program.results) {
    if (plan.group_of[r] >= 0) plan.groups[plan.group_of[r]].outputs.push_back(r);
  }
  for (FusionGroup& group : plan.groups) {
    for (std::vector<int>* list : {&group.inputs, &group.outputs}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }
  // One step per group and per needed instruction outside groups.
  for (int g = 0; g < static_cast<int>(plan.groups.size()); ++g) {
    for (int m : plan.groups[g].members) {
      // A copied fill or value, or a member SinkRecomputedValues left in two groups, runs
      // in several groups; its own group's step computes it.
      if (plan.group_of[m] == g) plan.step_of[m] = static_cast<int>(plan.steps.size());
    }
    plan.steps.push_back(Step{g, -1});
  }
  for (int i = 0; i < n; ++i) {
    const Op op = program.instructions[i].op;
    if (!plan.needed[i] || plan.group_of[i] >= 0 || op == Op::kParameter || op == Op::kConstant) {
      continue;
    }
    plan.step_of[i] = static_cast<int>(plan.steps.size());
    plan.steps.push_back(Step{-1, i});
  }
  if (!OrderSteps(program, &plan)) return PlanFusion(program, /*fuse=*/false);
  if (fuse) AbsorbReduces(program, &plan);
  return plan;
}

}  // namespace seam::cpu
