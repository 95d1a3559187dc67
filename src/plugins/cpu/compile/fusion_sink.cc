#include "src/plugins/cpu/compile/fusion_sink.h"

#include <algorithm>

namespace seam::cpu {
namespace {

using ir::Op;

// Rounds of SinkRecomputedValues: a group a round changed waits for the next one (its
// readers are recomputed then), so a chain of k values moves in about k rounds.
constexpr int kSinkRounds = 16;
// Bounds on the work per candidate (a cone is searched, and each of its members checked
// against every member of its group): groups larger than this keep their values, and a
// value computed from more members than this stays where it is. A training step's loops
// have tens of members; a 100k-instruction chain must not cost quadratic compile time.
constexpr size_t kMaxSinkGroupMembers = 2048;
constexpr size_t kMaxConeMembers = 64;

// Whether computing `inst` in a second loop costs less than writing its value and reading
// it back: float arithmetic with the fast vector kernels (kernels_fast.cc), broadcasts and
// reshapes. Not transcendentals, and not compares, selects or converts (their generic
// loops cost more than the load they would save: a one-hot mask recomputed in a loss's
// backward loop made it 0.2 ms slower).
bool CheapToRepeat(const ir::Instruction& inst) {
  if (inst.op == Op::kBroadcastInDim || inst.op == Op::kReshape) return true;
  if (inst.shape.dtype != ir::DType::kF32 && inst.shape.dtype != ir::DType::kF64) return false;
  for (Op cheap :
       {Op::kAdd, Op::kSubtract, Op::kMultiply, Op::kNeg, Op::kAbs, Op::kMaximum, Op::kMinimum}) {
    if (inst.op == cheap) return true;
  }
  return false;
}

bool Has(const std::vector<int>& sorted, int value) {
  return std::binary_search(sorted.begin(), sorted.end(), value);
}

void Insert(std::vector<int>* sorted, int value) {
  auto at = std::lower_bound(sorted->begin(), sorted->end(), value);
  if (at == sorted->end() || *at != value) sorted->insert(at, value);
}

void Erase(std::vector<int>* sorted, int value) {
  auto at = std::lower_bound(sorted->begin(), sorted->end(), value);
  if (at != sorted->end() && *at == value) sorted->erase(at);
}

// Who reads each value from memory: the groups whose members read it from outside the
// group, and whether anything else does (a step outside groups, or the program's results).
struct Readers {
  std::vector<std::vector<int>> groups;
  std::vector<bool> other;
};

Readers FindReaders(const ir::Program& program, const FusionPlan& plan) {
  const int n = static_cast<int>(program.instructions.size());
  Readers r;
  r.groups.assign(n, {});
  r.other.assign(n, false);
  for (int g = 0; g < static_cast<int>(plan.groups.size()); ++g) {
    const std::vector<int>& members = plan.groups[g].members;
    for (int m : members) {
      for (int o : program.instructions[m].operands) {
        if (!Has(members, o) && (r.groups[o].empty() || r.groups[o].back() != g)) {
          r.groups[o].push_back(g);
        }
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!plan.needed[i] || plan.group_of[i] >= 0) continue;
    for (int o : InstructionReads(program, plan, i)) r.other[o] = true;
  }
  for (int v : program.results) r.other[v] = true;
  for (std::vector<int>& groups : r.groups) {
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  }
  return r;
}

class Sinker {
 public:
  Sinker(const ir::Program& program, FusionPlan* plan) : program_(program), plan_(*plan) {}

  // Moves v's cone from group g into the one group that reads v, if that pays; true if so.
  bool TrySink(const Readers& readers, int g, int v, const std::vector<bool>& dirty) {
    if (plan_.group_of[v] != g || plan_.copied_fill[v] || readers.other[v] ||
        readers.groups[v].size() != 1) {
      return false;
    }
    const int h = readers.groups[v][0];
    FusionGroup& from = plan_.groups[g];
    FusionGroup& to = plan_.groups[h];
    if (h == g || dirty[h] || from.count != to.count ||
        from.members.size() > kMaxSinkGroupMembers) {
      return false;
    }
    const std::vector<int> cone = Cone(readers, g, v);
    if (cone.empty()) return false;
    std::vector<bool> stays(cone.size(), false);
    for (size_t k = cone.size(); k-- > 0;) {
      stays[k] = Stays(readers, g, h, cone, stays, k);
      if (stays[k] && !CheapToRepeat(program_.instructions[cone[k]])) return false;
    }
    if (!ReadsPay(h, cone)) return false;
    for (size_t k = 0; k < cone.size(); ++k) {
      Insert(&to.members, cone[k]);
      if (stays[k]) continue;
      Erase(&from.members, cone[k]);
      if (plan_.group_of[cone[k]] == g) plan_.group_of[cone[k]] = h;
    }
    return true;
  }

 private:
  // v and the members of group g it is computed from, increasing; a member g writes to
  // memory anyway (its home is g and another step or the results read it) is read from
  // there, not recomputed. Empty when that is more than kMaxConeMembers.
  std::vector<int> Cone(const Readers& readers, int g, int v) const {
    const std::vector<int>& members = plan_.groups[g].members;
    std::vector<int> cone = {v};
    for (size_t k = 0; k < cone.size(); ++k) {
      for (int o : program_.instructions[cone[k]].operands) {
        const bool written = plan_.group_of[o] == g && !plan_.copied_fill[o] &&
                             (readers.other[o] || !readers.groups[o].empty());
        if (Has(members, o) && !written && std::find(cone.begin(), cone.end(), o) == cone.end()) {
          if (cone.size() == kMaxConeMembers) return {};
          cone.push_back(o);
        }
      }
    }
    std::sort(cone.begin(), cone.end());
    return cone;
  }

  // Whether cone[k] must still be computed by group g once the cone's values that stay
  // nowhere else have moved to h: a member of g outside the cone (or one that stays) reads
  // it, or, where g is its home, a step other than h reads it from memory.
  bool Stays(const Readers& readers, int g, int h, const std::vector<int>& cone,
             const std::vector<bool>& stays, size_t k) const {
    const int c = cone[k];
    if (plan_.group_of[c] == g && !plan_.copied_fill[c]) {
      if (readers.other[c]) return true;
      for (int reader : readers.groups[c]) {
        if (reader != h) return true;
      }
    }
    for (int m : plan_.groups[g].members) {
      if (m <= c) continue;
      const auto& ops = program_.instructions[m].operands;
      if (std::find(ops.begin(), ops.end(), c) == ops.end()) continue;
      auto at = std::lower_bound(cone.begin(), cone.end(), m);
      if (at == cone.end() || *at != m || stays[at - cone.begin()]) return true;
    }
    return false;
  }

  // Whether h may compute the cone: it reads every cone value it read before at each
  // element's own position, and the cone's inputs cost it no more large reads than the
  // cone values it no longer reads (an input h reads anyway, or a small broadcast source,
  // is free; another group's output counts one; a product's or any other step's output
  // is refused, so a convolution's or product's epilogue keeps its only reader).
  bool ReadsPay(int h, const std::vector<int>& cone) const {
    const FusionGroup& to = plan_.groups[h];
    std::vector<int> h_reads;
    int saved = 0;
    for (int m : to.members) {
      const ir::Instruction& inst = program_.instructions[m];
      for (size_t k = 0; k < inst.operands.size(); ++k) {
        const int o = inst.operands[k];
        if (Has(to.members, o)) continue;
        h_reads.push_back(o);
        if (std::binary_search(cone.begin(), cone.end(), o) && !KeepsIndex(program_, inst, k)) {
          return false;
        }
      }
    }
    std::sort(h_reads.begin(), h_reads.end());
    h_reads.erase(std::unique(h_reads.begin(), h_reads.end()), h_reads.end());
    for (int c : cone) saved += Has(h_reads, c) ? 1 : 0;
    std::vector<int> added;
    for (int c : cone) {
      for (int o : program_.instructions[c].operands) {
        if (std::binary_search(cone.begin(), cone.end(), o) || Has(to.members, o) ||
            Has(h_reads, o) || program_.instructions[o].shape.num_elements() * 8 <= to.count) {
          continue;
        }
        if (plan_.group_of[o] < 0) return false;
        if (std::find(added.begin(), added.end(), o) == added.end()) added.push_back(o);
      }
    }
    return static_cast<int>(added.size()) <= saved;
  }

  const ir::Program& program_;
  FusionPlan& plan_;
};

}  // namespace

bool KeepsIndex(const ir::Program& program, const ir::Instruction& inst, size_t k) {
  if (inst.op == Op::kBroadcastInDim) {
    return program.instructions[inst.operands[k]].shape.num_elements() == inst.shape.num_elements();
  }
  return true;  // elementwise operands and reshape
}

void DropEmptyGroups(FusionPlan* plan) {
  const auto empty = [](const FusionGroup& group) { return group.members.empty(); };
  if (std::none_of(plan->groups.begin(), plan->groups.end(), empty)) return;
  std::vector<int> new_index(plan->groups.size(), -1);
  std::vector<FusionGroup> kept;
  for (size_t g = 0; g < plan->groups.size(); ++g) {
    if (plan->groups[g].members.empty()) continue;
    new_index[g] = static_cast<int>(kept.size());
    kept.push_back(std::move(plan->groups[g]));
  }
  plan->groups = std::move(kept);
  for (int& g : plan->group_of) {
    if (g >= 0) g = new_index[g];
  }
}

void SinkRecomputedValues(const ir::Program& program, FusionPlan* plan) {
  Sinker sinker(program, plan);
  bool moved = false;
  for (int round = 0; round < kSinkRounds; ++round) {
    const Readers readers = FindReaders(program, *plan);
    // A group changed this round is left alone until its readers are found again.
    std::vector<bool> dirty(plan->groups.size(), false);
    bool changed = false;
    for (int g = 0; g < static_cast<int>(plan->groups.size()); ++g) {
      if (dirty[g]) continue;
      const std::vector<int> members = plan->groups[g].members;
      for (auto it = members.rbegin(); it != members.rend(); ++it) {
        if (!Has(plan->groups[g].members, *it)) continue;
        const int v = *it;
        const int h = readers.groups[v].size() == 1 ? readers.groups[v][0] : -1;
        if (!sinker.TrySink(readers, g, v, dirty)) continue;
        dirty[g] = true;
        dirty[h] = true;
        changed = true;
        break;
      }
    }
    moved = moved || changed;
    if (!changed) break;
  }
  if (moved) DropEmptyGroups(plan);
}

}  // namespace seam::cpu
