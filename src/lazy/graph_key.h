// The compile-cache key of a pending graph, taken from the nodes themselves, and the check
// that a cached program is exactly the one LowerGraph would build from them. With both, a
// step barrier that hits the compile cache never builds (or hashes, or frees) an
// ir::Program: the lowering runs only on a miss.
#ifndef SEAM_LAZY_GRAPH_KEY_H_
#define SEAM_LAZY_GRAPH_KEY_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "src/ir/program.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// The graph of `roots` in LowerGraph's instruction order: nodes[i] becomes instruction i
// (a parameter for a leaf, one per distinct value), its operands are
// operands[operand_begin[i] .. operand_begin[i+1]).
struct GraphWalk {
  std::vector<const Node*> nodes;
  std::vector<int> operand_begin;  // nodes.size() + 1 entries
  std::vector<int> operands;
  std::vector<int> results;
  std::vector<std::shared_ptr<DeviceValue>> leaves;  // parameter p = leaves[p]
  uint64_t hash = 0;  // over everything LowerGraph's program would contain
  // Input/output aliases the caller adds to the program (none from WalkGraph): part of the
  // key (WalkKey) and of the match, and to be copied into the program on a compile.
  std::vector<ir::Alias> aliases;
  // Everything LowerGraph's program would hold but the aliases, as words (the number of
  // nodes; per node its kind, dtype and counts, dimensions, operand indices, attribute
  // words, a constant's literal; then the results): two walks with equal signatures lower
  // to one program. Kept with a
  // compiled program, so that a later step matches it by comparing words (SignatureMatches).
  std::vector<uint64_t> signature;
  bool exact = true;  // false when a count did not fit its field: the signature matches nothing

  // Empties the lists (keeping their capacity) and drops the leaves' references; the
  // signature is rewritten by the next walk.
  void Clear() {
    nodes.clear();
    operand_begin.clear();
    operands.clear();
    results.clear();
    leaves.clear();
    aliases.clear();
    exact = true;
  }
};
GraphWalk WalkGraph(const std::vector<NodePtr>& roots);
// The same into `walk`, whose vectors keep their capacity (a step barrier reuses one walk).
void WalkGraph(const std::vector<NodePtr>& roots, GraphWalk& walk);

// The cache key of the walk: its hash, combined with the aliases when there are any.
uint64_t WalkKey(const GraphWalk& walk);

// Whether `program` equals LowerGraph(roots).program, with walk.aliases as its aliases,
// for the walked roots.
bool WalkMatches(const GraphWalk& walk, const ir::Program& program);
// The same, for a program compiled from a walk whose signature was `signature`: the words
// are compared instead of the program's instructions.
bool SignatureMatches(const GraphWalk& walk, absl::Span<const uint64_t> signature,
                      const ir::Program& program);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_GRAPH_KEY_H_
