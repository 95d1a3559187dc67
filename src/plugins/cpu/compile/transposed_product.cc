#include "src/plugins/cpu/compile/transposed_product.h"

#include <cstdint>

namespace seam::cpu {

std::optional<DotPlan> PlanTransposedProduct(const ir::Program& program, int transpose, int dot) {
  const ir::Instruction& d = program.instructions[dot];
  DotPlan plan = PlanDot(program.instructions[d.operands[0]].shape,
                         program.instructions[d.operands[1]].shape, DotDimensionsOf(d));
  const auto batch_dims = static_cast<int64_t>(d.attrs.at("lhs_batch").size());
  if (!WriteResultTransposed(&plan, d.shape, batch_dims,
                             program.instructions[transpose].attrs.at("permutation"))) {
    return std::nullopt;
  }
  return plan;
}

std::vector<int> FindTransposedProducts(const ir::Program& program) {
  const int n = static_cast<int>(program.instructions.size());
  std::vector<int> readers(n, 0);
  for (const ir::Instruction& inst : program.instructions) {
    for (int o : inst.operands) ++readers[o];
  }
  for (int r : program.results) ++readers[r];
  std::vector<int> product(n, -1);
  for (int t = 0; t < n; ++t) {
    const ir::Instruction& inst = program.instructions[t];
    if (inst.op != ir::Op::kTranspose) continue;
    const int d = inst.operands[0];
    const ir::Instruction& dot = program.instructions[d];
    if (dot.op != ir::Op::kDotGeneral || readers[d] != 1) continue;
    // Only f32 and f64 results can be written transposed: no plan for the others (a bf16
    // plan would make its oneDNN primitive for nothing).
    if (dot.shape.dtype != ir::DType::kF32 && dot.shape.dtype != ir::DType::kF64) continue;
    if (PlanTransposedProduct(program, t, d).has_value()) product[t] = d;
  }
  return product;
}

}  // namespace seam::cpu
