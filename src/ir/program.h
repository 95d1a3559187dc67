// The program IR: an SSA list of instructions, a result tuple and a replica count.
// Instructions refer to their operands by index; an operand always precedes its user.
#ifndef SEAM_IR_PROGRAM_H_
#define SEAM_IR_PROGRAM_H_

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/ir/shape.h"

namespace seam::ir {

enum class Op : uint8_t {
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo) name,
#include "src/ir/ops.def"
#undef SEAM_IR_OP
};

inline constexpr int kNumOps = 0
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo) \
  +1  // NOLINT(bugprone-macro-parentheses)
#include "src/ir/ops.def"
#undef SEAM_IR_OP
    ;

std::string_view OpName(Op op);  // the text name from ops.def
bool ParseOpName(std::string_view name, Op* op);
int OpArity(Op op);                   // operand count from ops.def; -1: one or more
DTypeSet OpDTypes(Op op);             // the dtypes the op computes on (ops.def)
std::string_view OpShapeRule(Op op);  // the shape rule's name in ops.def: "Reduce", ...
bool IsAllReduce(Op op);  // the rows of shape rule AllReduce: all_reduce_sum, _max, _min

// ops.def's effect column: what besides its operands an op's result depends on.
enum class Effect : uint8_t {
  kPure,        // nothing: equal operands give equal results (foldable, CSE may merge)
  kRandom,      // random bits
  kCollective,  // the other replicas' operands
};
Effect OpEffect(Op op);
// Every dtype of the op's row is a float (exp, convolution...): from ops.def's dtypes.
bool OpFloatOnly(Op op);

// ops.def's combiner column: how a reduction (shape rules Reduce, ReduceWindow, AllReduce)
// folds its elements; kNone for every other op.
enum class Combiner : uint8_t { kNone, kSum, kProduct, kMax, kMin };
Combiner ReductionOf(Op op);
// The binary row one step of a fold with `combiner` is: add, multiply, maximum or minimum
// (kNone: add; no caller asks).
Op CombinerBinaryOp(Combiner combiner);

// The value a fold with `combiner` starts from, in the compute type T: 0, 1, then -inf and
// +inf for floats or the lowest and highest value for integers. kNone has none (0).
template <typename T>
constexpr T ReductionIdentity(Combiner combiner) {
  using Limits = std::numeric_limits<T>;
  switch (combiner) {
    case Combiner::kSum:
      return T(0);
    case Combiner::kProduct:
      return T(1);
    case Combiner::kMax:
      return Limits::has_infinity ? -Limits::infinity() : Limits::lowest();
    case Combiner::kMin:
      return Limits::has_infinity ? Limits::infinity() : Limits::max();
    case Combiner::kNone:
      break;
  }
  return T(0);
}
// The elementwise rows of ops.def, by their shape rule: unary (ElementwiseUnary), binary
// (ElementwiseBinary) and compare (Compare, whose result is pred); kNone for other ops.
enum class ElementwiseKind { kNone, kUnary, kBinary, kCompare };
ElementwiseKind OpElementwiseKind(Op op);

// Named integer-list attributes, e.g. "dims" of broadcast_in_dim, "axes" of reduce_sum
// (docs/ir.md lists every op's attributes).
// Ordered by name so that printing and hashing are canonical.
using Attributes = std::map<std::string, std::vector<int64_t>>;

struct Instruction {
  Op op = Op::kParameter;
  std::vector<int> operands;  // indices of earlier instructions
  Shape shape;                // the result shape
  Attributes attrs;
  int64_t parameter_index = -1;  // kParameter only: its position in the argument list
  Literal literal;               // kConstant only: the value (literal.shape == shape)

  bool operator==(const Instruction& other) const = default;
};

// Buffer donation: result `output_index` lives in the memory of parameter
// `parameter_index`, which the caller gives up when the program runs (docs/ir.md).
struct Alias {
  int64_t output_index = 0;
  int64_t parameter_index = 0;

  bool operator==(const Alias& other) const = default;
};

struct Program {
  std::string name = "main";
  int64_t replica_count = 1;
  std::vector<Instruction> instructions;
  std::vector<int> results;    // the result tuple, as instruction indices (may repeat)
  std::vector<Alias> aliases;  // input/output aliases, in the order written

  int num_parameters() const;                  // number of kParameter instructions
  std::vector<Shape> ParameterShapes() const;  // indexed by parameter_index
  std::vector<Shape> ResultShapes() const;
  bool operator==(const Program& other) const = default;
};

}  // namespace seam::ir

#endif  // SEAM_IR_PROGRAM_H_
