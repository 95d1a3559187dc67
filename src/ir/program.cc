#include "src/ir/program.h"

namespace seam::ir {
namespace {

struct OpInfo {
  Op op;
  std::string_view name;
  int arity;
  DTypeSet dtypes;
  ElementwiseKind elementwise;
};

// From the shape rule's name in ops.def.
constexpr ElementwiseKind KindOfRule(std::string_view rule) {
  if (rule == "ElementwiseUnary") return ElementwiseKind::kUnary;
  if (rule == "ElementwiseBinary") return ElementwiseKind::kBinary;
  if (rule == "Compare") return ElementwiseKind::kCompare;
  return ElementwiseKind::kNone;
}

constexpr OpInfo kOps[] = {
#define SEAM_IR_OP(name, text, arity, rule, dtypes) \
  {Op::name, text, arity, dtypes, KindOfRule(#rule)},
#include "src/ir/ops.def"
#undef SEAM_IR_OP
};

}  // namespace

std::string_view OpName(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].name : std::string_view("invalid");
}

bool ParseOpName(std::string_view name, Op* op) {
  for (const OpInfo& info : kOps) {
    if (info.name == name) {
      *op = info.op;
      return true;
    }
  }
  return false;
}

int OpArity(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].arity : 0;
}

DTypeSet OpDTypes(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].dtypes : 0;
}

ElementwiseKind OpElementwiseKind(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].elementwise : ElementwiseKind::kNone;
}

bool IsAllReduce(Op op) {
  return op == Op::kAllReduceSum || op == Op::kAllReduceMax || op == Op::kAllReduceMin;
}

int Program::num_parameters() const {
  int n = 0;
  for (const Instruction& inst : instructions) n += (inst.op == Op::kParameter);
  return n;
}

std::vector<Shape> Program::ParameterShapes() const {
  std::vector<Shape> shapes(num_parameters());
  for (const Instruction& inst : instructions) {
    if (inst.op == Op::kParameter && inst.parameter_index >= 0 &&
        inst.parameter_index < static_cast<int64_t>(shapes.size())) {
      shapes[inst.parameter_index] = inst.shape;
    }
  }
  return shapes;
}

std::vector<Shape> Program::ResultShapes() const {
  std::vector<Shape> shapes;
  shapes.reserve(results.size());
  for (int r : results) {
    // Unverified programs may name missing instructions; they get a default shape.
    bool valid = r >= 0 && r < static_cast<int>(instructions.size());
    shapes.push_back(valid ? instructions[r].shape : Shape{});
  }
  return shapes;
}

}  // namespace seam::ir
