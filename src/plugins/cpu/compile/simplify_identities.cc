// Algebraic identities. Each rewrite gives the same bytes as the kernels would for every
// input, NaN, infinities and signed zeros included; rewrites that hold only for "ordinary"
// numbers are left out on purpose (docs/ir.md, "Compiler passes"):
//   - float x + 0 is not x (-0 + 0 is +0): only x + (-0) and x - (+0) are rewritten;
//   - float x * 0 is not 0 (NaN, inf, and -0 for negative x): only integers fold it;
//   - convert and not of pred are not dropped: they turn any non-zero byte into 1.
#include <cstring>
#include <utility>

#include "src/ir/bf16.h"
#include "src/plugins/cpu/compile/simplify_internal.h"

namespace seam::cpu {
namespace {

using ir::DType;
using ir::Op;

// `value` in `dtype`'s memory encoding.
std::vector<uint8_t> Encode(DType dtype, double value) {
  std::vector<uint8_t> bytes(ir::DTypeSize(dtype));
  auto put = [&](auto v) { std::memcpy(bytes.data(), &v, sizeof(v)); };
  switch (dtype) {
    case DType::kF32:
      put(static_cast<float>(value));
      break;
    case DType::kF64:
      put(value);
      break;
    case DType::kBF16:
      put(ir::FloatToBF16(static_cast<float>(value)));
      break;
    case DType::kS32:
      put(static_cast<int32_t>(value));
      break;
    case DType::kS64:
      put(static_cast<int64_t>(value));
      break;
    case DType::kPred:
      put(static_cast<uint8_t>(value != 0));
      break;
  }
  return bytes;
}

// The one element that every element of value `index` equals (bytes), when the value is a
// constant with identical elements, seen through broadcasts and reshapes. Empty when not
// known, or when the value has no elements.
std::vector<uint8_t> UniformElement(const Rewriter& rewriter, int index) {
  const ir::Instruction* inst = &rewriter.at(index);
  while (inst->op == Op::kBroadcastInDim || inst->op == Op::kReshape) {
    inst = &rewriter.at(inst->operands[0]);
  }
  if (inst->op != Op::kConstant) return {};
  const std::vector<uint8_t>& bytes = inst->literal.bytes;
  const size_t size = ir::DTypeSize(inst->shape.dtype);
  if (bytes.empty()) return {};
  for (size_t offset = size; offset < bytes.size(); offset += size) {
    if (std::memcmp(bytes.data(), bytes.data() + offset, size) != 0) return {};
  }
  return std::vector<uint8_t>(bytes.data(), bytes.data() + size);
}

// Whether every element of value `index` is `value`, bit for bit (-0.0 is not 0.0).
bool IsUniform(const Rewriter& rewriter, int index, double value) {
  std::vector<uint8_t> element = UniformElement(rewriter, index);
  return !element.empty() && element == Encode(rewriter.at(index).shape.dtype, value);
}

bool IsElementwise(Op op) {
  return op == Op::kSelect || op == Op::kConvert ||
         ir::OpElementwiseKind(op) != ir::ElementwiseKind::kNone;
}

bool AllZero(const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    if (v != 0) return false;
  }
  return true;
}

// x + 0, x - 0, x * 1, x / 1, x ^ 1, integer x * 0 (the value 0 is the zero operand).
std::optional<int> Arithmetic(const Rewriter& rw, const ir::Instruction& inst) {
  const int a = inst.operands[0];
  const int b = inst.operands[1];
  const bool is_float = ir::IsFloat(inst.shape.dtype);
  // The additive identity of the kernels' arithmetic: -0 for floats (x + -0 == x even for
  // x = -0), 0 for integers.
  const double add_identity = is_float ? -0.0 : 0.0;
  switch (inst.op) {
    case Op::kAdd:
      if (IsUniform(rw, b, add_identity)) return a;
      if (IsUniform(rw, a, add_identity)) return b;
      return std::nullopt;
    case Op::kSubtract:
      if (IsUniform(rw, b, 0.0)) return a;  // x - (+0) == x + (-0)
      return std::nullopt;
    case Op::kMultiply:
      if (IsUniform(rw, b, 1.0)) return a;
      if (IsUniform(rw, a, 1.0)) return b;
      if (!is_float && IsUniform(rw, b, 0.0)) return b;
      if (!is_float && IsUniform(rw, a, 0.0)) return a;
      return std::nullopt;
    case Op::kDivide:
    case Op::kPower:
      if (IsUniform(rw, b, 1.0)) return a;
      return std::nullopt;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kAdd
#define SEAM_CASES_EXCEPT_kSubtract
#define SEAM_CASES_EXCEPT_kMultiply
#define SEAM_CASES_EXCEPT_kDivide
#define SEAM_CASES_EXCEPT_kPower
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kAdd
#undef SEAM_CASES_EXCEPT_kSubtract
#undef SEAM_CASES_EXCEPT_kMultiply
#undef SEAM_CASES_EXCEPT_kDivide
#undef SEAM_CASES_EXCEPT_kPower
      break;
  }
  return std::nullopt;
}

// Data movement that changes nothing, and chains of the same movement op merged into one.
// broadcast_in_dim(reshape(x)) where the reshape only inserts unit dimensions into an x
// without unit dimensions (a [4] seen as [4,1], say): the broadcast reads x directly, each
// dimension of x going where its reshaped dimension went. Same elements in the same places,
// and the reshape no longer has to be written to memory.
std::optional<int> BroadcastThroughReshape(Rewriter& rw, const ir::Instruction& inst,
                                           const ir::Instruction& reshape) {
  const ir::Shape& x = rw.at(reshape.operands[0]).shape;
  const std::vector<int64_t>& reshaped = reshape.shape.dims;
  const std::vector<int64_t>& outer = inst.attrs.at("dims");
  std::vector<int64_t> dims;
  size_t next = 0;  // the next dimension of x to place
  for (size_t d = 0; d < reshaped.size(); ++d) {
    if (reshaped[d] == 1) continue;
    if (next == x.dims.size() || x.dims[next] != reshaped[d]) return std::nullopt;
    dims.push_back(outer[d]);
    ++next;
  }
  if (next != x.dims.size()) return std::nullopt;
  for (int64_t size : x.dims) {
    if (size == 1) return std::nullopt;
  }
  ir::Instruction direct = inst;
  direct.operands = {reshape.operands[0]};
  direct.attrs["dims"] = std::move(dims);
  return rw.Visit(std::move(direct));
}

std::optional<int> Movement(Rewriter& rw, const ir::Instruction& inst) {
  const int a = inst.operands[0];
  const ir::Instruction& operand = rw.at(a);
  switch (inst.op) {
    case Op::kReshape: {
      if (operand.shape == inst.shape) return a;
      if (operand.op != Op::kReshape) return std::nullopt;
      ir::Instruction merged = inst;
      merged.operands = {operand.operands[0]};
      return rw.Visit(std::move(merged));
    }
    case Op::kTranspose: {
      const std::vector<int64_t>& permutation = inst.attrs.at("permutation");
      bool identity = true;
      for (size_t i = 0; i < permutation.size(); ++i) identity &= permutation[i] == int64_t(i);
      if (identity) return a;
      if (operand.op != Op::kTranspose) return std::nullopt;
      // Result dimension i is operand dimension permutation[i], which is the inner
      // operand's dimension inner[permutation[i]].
      const std::vector<int64_t>& inner = operand.attrs.at("permutation");
      ir::Instruction merged = inst;
      merged.operands = {operand.operands[0]};
      for (size_t i = 0; i < permutation.size(); ++i) {
        merged.attrs["permutation"][i] = inner[permutation[i]];
      }
      return rw.Visit(std::move(merged));
    }
    case Op::kBroadcastInDim: {
      // Equal shapes leave dims = 0..rank-1 as the only choice: the identity.
      if (operand.shape == inst.shape) return a;
      if (operand.op == Op::kReshape) return BroadcastThroughReshape(rw, inst, operand);
      if (operand.op != Op::kBroadcastInDim) return std::nullopt;
      const std::vector<int64_t>& outer = inst.attrs.at("dims");
      ir::Instruction merged = inst;
      merged.operands = {operand.operands[0]};
      std::vector<int64_t> dims;
      for (int64_t d : operand.attrs.at("dims")) dims.push_back(outer[d]);
      merged.attrs["dims"] = std::move(dims);
      return rw.Visit(std::move(merged));
    }
    case Op::kSlice: {
      if (operand.shape != inst.shape) return std::nullopt;
      for (int64_t stride : inst.attrs.at("stride")) {
        if (stride != 1) return std::nullopt;
      }
      return AllZero(inst.attrs.at("start")) ? std::optional<int>(a) : std::nullopt;
    }
    case Op::kPad:
      if (AllZero(inst.attrs.at("low")) && AllZero(inst.attrs.at("high")) &&
          AllZero(inst.attrs.at("interior"))) {
        return a;
      }
      return std::nullopt;
    case Op::kConcatenate:
      return inst.operands.size() == 1 ? std::optional<int>(a) : std::nullopt;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kReshape
#define SEAM_CASES_EXCEPT_kTranspose
#define SEAM_CASES_EXCEPT_kBroadcastInDim
#define SEAM_CASES_EXCEPT_kSlice
#define SEAM_CASES_EXCEPT_kPad
#define SEAM_CASES_EXCEPT_kConcatenate
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kReshape
#undef SEAM_CASES_EXCEPT_kTranspose
#undef SEAM_CASES_EXCEPT_kBroadcastInDim
#undef SEAM_CASES_EXCEPT_kSlice
#undef SEAM_CASES_EXCEPT_kPad
#undef SEAM_CASES_EXCEPT_kConcatenate
      break;
  }
  return std::nullopt;
}

// neg(neg(x)), integer not(not(x)), convert to the operand's own dtype, selects that do not
// choose.
std::optional<int> Elementwise(const Rewriter& rw, const ir::Instruction& inst) {
  const int a = inst.operands[0];
  const ir::Instruction& operand = rw.at(a);
  switch (inst.op) {
    case Op::kNeg:
      if (operand.op == Op::kNeg) return operand.operands[0];
      return std::nullopt;
    case Op::kNot:
      if (ir::IsInteger(inst.shape.dtype) && operand.op == Op::kNot) return operand.operands[0];
      return std::nullopt;
    case Op::kConvert:
      if (operand.shape == inst.shape && inst.shape.dtype != DType::kPred) return a;
      return std::nullopt;
    case Op::kSelect: {
      const int on_true = inst.operands[1];
      const int on_false = inst.operands[2];
      if (on_true == on_false) return on_true;
      // A pred constant holds only 0 and 1 (the verifier checks), so 1 is "true".
      if (IsUniform(rw, a, 1.0)) return on_true;
      if (IsUniform(rw, a, 0.0)) return on_false;
      return std::nullopt;
    }
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kNeg
#define SEAM_CASES_EXCEPT_kNot
#define SEAM_CASES_EXCEPT_kConvert
#define SEAM_CASES_EXCEPT_kSelect
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kNeg
#undef SEAM_CASES_EXCEPT_kNot
#undef SEAM_CASES_EXCEPT_kConvert
#undef SEAM_CASES_EXCEPT_kSelect
    break;
  }
  return std::nullopt;
}

// op(broadcast(x), broadcast(y)) -> broadcast(op(x, y)) when every operand is a broadcast
// of the same dims from the same operand dims: each result element is op of the same
// source elements either way, and the op runs on fewer elements (constants then fold).
std::optional<int> HoistOverBroadcasts(Rewriter& rw, const ir::Instruction& inst) {
  if (!IsElementwise(inst.op)) return std::nullopt;
  const ir::Instruction& first = rw.at(inst.operands[0]);
  if (first.op != Op::kBroadcastInDim) return std::nullopt;
  // Copies: Visit below may grow the program and move its instructions.
  const std::vector<int64_t> dims = first.attrs.at("dims");
  const std::vector<int64_t> source_dims = rw.at(first.operands[0]).shape.dims;
  ir::Instruction inner = inst;
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    const ir::Instruction& operand = rw.at(inst.operands[k]);
    if (operand.op != Op::kBroadcastInDim || operand.attrs.at("dims") != dims ||
        rw.at(operand.operands[0]).shape.dims != source_dims) {
      return std::nullopt;
    }
    inner.operands[k] = operand.operands[0];
  }
  inner.shape.dims = source_dims;
  const int computed = rw.Visit(std::move(inner));
  ir::Instruction broadcast;
  broadcast.op = Op::kBroadcastInDim;
  broadcast.operands = {computed};
  broadcast.shape = inst.shape;
  broadcast.attrs["dims"] = dims;
  return rw.Visit(std::move(broadcast));
}

}  // namespace

std::optional<int> ApplyIdentities(Rewriter& rewriter, const ir::Instruction& inst) {
  if (inst.operands.empty()) return std::nullopt;
  if (inst.operands.size() == 2) {
    if (std::optional<int> r = Arithmetic(rewriter, inst)) return r;
  }
  if (std::optional<int> r = Elementwise(rewriter, inst)) return r;
  if (std::optional<int> r = Movement(rewriter, inst)) return r;
  return HoistOverBroadcasts(rewriter, inst);
}

}  // namespace seam::cpu
