// The simplification driver: one rewriting walk (identities, folding, sharing), then dead
// code removal, then the verifier.
#include "src/plugins/cpu/compile/simplify.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/ir/verifier.h"
#include "src/plugins/cpu/compile/simplify_internal.h"

namespace seam::cpu {

Rewriter::Rewriter(const ir::Program& source, const SimplifyOptions& options) : options_(options) {
  program_.name = source.name;
  program_.replica_count = source.replica_count;
  program_.aliases = source.aliases;
  program_.instructions.reserve(source.instructions.size());
}

int Rewriter::Visit(ir::Instruction inst) {
  if (inst.op != ir::Op::kParameter) {
    // A rule must hand back a value of the same shape; anything else is ignored (and the
    // verifier would catch a rule that slipped through some other way).
    if (options_.identities) {
      std::optional<int> replaced = ApplyIdentities(*this, inst);
      if (replaced && at(*replaced).shape == inst.shape) return *replaced;
    }
    if (options_.fold_transposes) {
      std::optional<int> folded = FoldTransposeIntoDot(*this, inst);
      if (folded && at(*folded).shape == inst.shape) return *folded;
    }
    if (options_.fold_constants) {
      std::optional<int> folded = FoldConstant(*this, inst);
      if (folded && at(*folded).shape == inst.shape) return *folded;
    }
  }
  return Emit(std::move(inst));
}

int Rewriter::Emit(ir::Instruction inst) {
  const bool share = options_.common_subexpressions && CseTable::Shareable(inst);
  if (share) {
    if (std::optional<int> existing = cse_.Find(program_, inst)) return *existing;
  }
  const int index = static_cast<int>(program_.instructions.size());
  program_.instructions.push_back(std::move(inst));
  if (share) cse_.Add(program_.instructions.back(), index);
  return index;
}

ir::Program EliminateDeadCode(const ir::Program& program) {
  const int n = static_cast<int>(program.instructions.size());
  std::vector<bool> live(n, false);
  for (int r : program.results) live[r] = true;
  for (int i = n - 1; i >= 0; --i) {
    const ir::Instruction& inst = program.instructions[i];
    if (inst.op == ir::Op::kParameter) live[i] = true;
    if (!live[i]) continue;
    for (int operand : inst.operands) live[operand] = true;
  }
  ir::Program out;
  out.name = program.name;
  out.replica_count = program.replica_count;
  out.aliases = program.aliases;
  std::vector<int> renumbered(n, -1);
  for (int i = 0; i < n; ++i) {
    if (!live[i]) continue;
    ir::Instruction inst = program.instructions[i];
    for (int& operand : inst.operands) operand = renumbered[operand];
    renumbered[i] = static_cast<int>(out.instructions.size());
    out.instructions.push_back(std::move(inst));
  }
  out.results.reserve(program.results.size());
  for (int r : program.results) out.results.push_back(renumbered[r]);
  return out;
}

absl::StatusOr<ir::Program> Simplify(const ir::Program& program, const SimplifyOptions& options) {
  Rewriter rewriter(program, options);
  std::vector<int> renumbered;
  renumbered.reserve(program.instructions.size());
  for (ir::Instruction inst : program.instructions) {
    for (int& operand : inst.operands) operand = renumbered[operand];
    renumbered.push_back(rewriter.Visit(std::move(inst)));
  }
  ir::Program& out = rewriter.program();
  for (int r : program.results) out.results.push_back(renumbered[r]);
  ir::Program result = options.dead_code ? EliminateDeadCode(out) : std::move(out);
  if (absl::Status status = ir::VerifyProgram(result); !status.ok()) {
    return absl::InternalError(
        absl::StrCat("simplify produced an invalid program (a bug in a pass): ", status.message()));
  }
  return result;
}

}  // namespace seam::cpu
