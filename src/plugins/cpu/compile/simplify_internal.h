// Shared by the simplification passes (simplify*.cc) and their tests; not a plugin API.
#ifndef SEAM_PLUGINS_CPU_SIMPLIFY_INTERNAL_H_
#define SEAM_PLUGINS_CPU_SIMPLIFY_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/simplify_options.h"

namespace seam::cpu {

// simplify_cse.cc: instructions already in a program, found by value.
class CseTable {
 public:
  // Whether an instruction may share another's value: not parameters (each is its own
  // argument) and not collectives (they meet other replicas).
  static bool Shareable(const ir::Instruction& inst);
  // The index of an instruction equal to `inst` that was added before, if any.
  std::optional<int> Find(const ir::Program& program, const ir::Instruction& inst) const;
  void Add(const ir::Instruction& inst, int index);

 private:
  std::unordered_multimap<uint64_t, int> by_hash_;
};

// Builds the simplified program in one walk over the source: every instruction arrives with
// its operands already simplified (operands precede users), so one walk reaches a fixed
// point for the rules below.
class Rewriter {
 public:
  Rewriter(const ir::Program& source, const SimplifyOptions& options);

  // Adds `inst` (operands are indices into the program being built) after applying the
  // enabled rules; returns the index of the instruction that holds its value, which has
  // `inst.shape`.
  int Visit(ir::Instruction inst);
  // Adds `inst` as it is, or returns an equal earlier instruction when sharing is on.
  int Emit(ir::Instruction inst);

  const ir::Instruction& at(int index) const { return program_.instructions[index]; }
  const SimplifyOptions& options() const { return options_; }
  ir::Program& program() { return program_; }

 private:
  ir::Program program_;
  SimplifyOptions options_;
  CseTable cse_;
};

// simplify_identities.cc: an algebraic rewrite of `inst`, or nullopt when none applies.
// May add instructions through rewriter.Visit.
std::optional<int> ApplyIdentities(Rewriter& rewriter, const ir::Instruction& inst);

// simplify_transpose_fold.cc: `inst`, a dot_general reading a transpose, rewritten to read
// the transpose's operand (added through rewriter.Visit), or nullopt where it does not
// read one or the CPU kernels would copy that operand (DotReadsInPlace).
std::optional<int> FoldTransposeIntoDot(Rewriter& rewriter, const ir::Instruction& inst);

// simplify_fold.cc: `inst` folded into a constant (added through rewriter.Emit), or
// nullopt when an operand is not a constant, the op is not folded (parameters, constants,
// iota, broadcast_in_dim, collectives) or the result is larger than the options allow.
std::optional<int> FoldConstant(Rewriter& rewriter, const ir::Instruction& inst);

// simplify_fold.cc: computes one instruction on host literals with the plugin's kernels,
// exactly as Executable::Run would (an all_reduce is a lone replica's copy). Operands have
// the shapes the verifier checked. Not for parameters.
ir::Literal EvaluateWithKernels(const ir::Instruction& inst,
                                const std::vector<const ir::Literal*>& operands);

// simplify.cc: `program` without the instructions that no result depends on (parameters
// stay, in their order); operands and results renumbered.
ir::Program EliminateDeadCode(const ir::Program& program);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_SIMPLIFY_INTERNAL_H_
