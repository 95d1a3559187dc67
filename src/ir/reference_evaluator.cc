#include "src/ir/reference_evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/ir/bf16.h"
#include "src/ir/reference_gather.h"
#include "src/ir/reference_rng_sort.h"
#include "src/ir/reference_scalar.h"
#include "src/ir/reference_window.h"
#include "src/ir/verifier.h"

namespace seam::ir {
namespace {

using reference::CompareFloat;
using reference::CompareInt;
using reference::ConvertToFloat;
using reference::ConvertToInt;
using reference::FloatBinary;
using reference::FloatUnary;
using reference::IntBinary;
using reference::IntUnary;
using reference::RoundTo;

// Row-major, one element per entry of f (float dtypes) or i (s32, s64, pred).
struct Value {
  Shape shape;
  std::vector<double> f;
  std::vector<int64_t> i;

  explicit Value(Shape s) : shape(std::move(s)) {
    if (IsFloat(shape.dtype)) {
      f.assign(shape.num_elements(), 0.0);
    } else {
      i.assign(shape.num_elements(), 0);
    }
  }
  int64_t size() const { return shape.num_elements(); }
  bool is_float() const { return IsFloat(shape.dtype); }
  void CopyFrom(const Value& from, int64_t from_index, int64_t to_index) {
    if (is_float()) {
      f[to_index] = from.f[from_index];
    } else {
      i[to_index] = from.i[from_index];
    }
  }
};

using reference::Index;
using reference::Ravel;
using reference::Unravel;

template <typename T>
T LoadElement(const Literal& literal, int64_t k) {
  T v;
  std::memcpy(&v, literal.bytes.data() + k * sizeof(T), sizeof(T));
  return v;
}

Value FromLiteral(const Literal& literal) {
  Value v(literal.shape);
  for (int64_t k = 0; k < v.size(); ++k) {
    switch (literal.shape.dtype) {
      case DType::kF32:
        v.f[k] = LoadElement<float>(literal, k);
        break;
      case DType::kF64:
        v.f[k] = LoadElement<double>(literal, k);
        break;
      case DType::kBF16:
        v.f[k] = BF16ToFloat(LoadElement<uint16_t>(literal, k));
        break;
      case DType::kS32:
        v.i[k] = LoadElement<int32_t>(literal, k);
        break;
      case DType::kS64:
        v.i[k] = LoadElement<int64_t>(literal, k);
        break;
      case DType::kPred:
        v.i[k] = LoadElement<uint8_t>(literal, k) != 0;
        break;
    }
  }
  return v;
}

template <typename T>
void StoreElement(Literal* literal, int64_t k, T v) {
  std::memcpy(literal->bytes.data() + k * sizeof(T), &v, sizeof(T));
}

Literal ToLiteral(const Value& v) {
  Literal literal;
  literal.shape = v.shape;
  literal.bytes.resize(v.shape.byte_size());
  for (int64_t k = 0; k < v.size(); ++k) {
    switch (v.shape.dtype) {
      case DType::kF32:
        StoreElement(&literal, k, static_cast<float>(v.f[k]));
        break;
      case DType::kF64:
        StoreElement(&literal, k, v.f[k]);
        break;
      case DType::kBF16:
        StoreElement(&literal, k, FloatToBF16(static_cast<float>(v.f[k])));
        break;
      case DType::kS32:
        StoreElement(&literal, k, static_cast<int32_t>(v.i[k]));
        break;
      case DType::kS64:
        StoreElement(&literal, k, v.i[k]);
        break;
      case DType::kPred:
        StoreElement(&literal, k, static_cast<uint8_t>(v.i[k] != 0));
        break;
    }
  }
  return literal;
}

const std::vector<int64_t>& Attr(const Instruction& inst, const char* name) {
  return inst.attrs.at(name);
}

Value Elementwise(const Instruction& inst, const std::vector<const Value*>& in) {
  Value out(inst.shape);
  DType dtype = in[0]->shape.dtype;
  for (int64_t k = 0; k < out.size(); ++k) {
    switch (OpArity(inst.op)) {
      case 1:
        if (out.is_float()) {
          out.f[k] = RoundTo(dtype, FloatUnary(inst.op, in[0]->f[k]));
        } else {
          out.i[k] = IntUnary(inst.op, dtype, in[0]->i[k]);
        }
        break;
      case 2:
        if (out.shape.dtype == DType::kPred && inst.op != Op::kAnd && inst.op != Op::kOr) {
          out.i[k] = in[0]->is_float() ? CompareFloat(inst.op, in[0]->f[k], in[1]->f[k])
                                       : CompareInt(inst.op, in[0]->i[k], in[1]->i[k]);
        } else if (out.is_float()) {
          out.f[k] = RoundTo(dtype, FloatBinary(inst.op, in[0]->f[k], in[1]->f[k]));
        } else {
          out.i[k] = IntBinary(inst.op, dtype, in[0]->i[k], in[1]->i[k]);
        }
        break;
    }
  }
  return out;
}

// minimum(maximum(x, lo), hi) with those ops' element rules (NaN wins, +0 > -0).
Value Clamp(const Instruction& inst, const std::vector<const Value*>& in) {
  Value out(inst.shape);
  const DType dtype = inst.shape.dtype;
  for (int64_t k = 0; k < out.size(); ++k) {
    if (out.is_float()) {
      out.f[k] = FloatBinary(Op::kMinimum, FloatBinary(Op::kMaximum, in[1]->f[k], in[0]->f[k]),
                             in[2]->f[k]);
    } else {
      out.i[k] = IntBinary(Op::kMinimum, dtype,
                           IntBinary(Op::kMaximum, dtype, in[1]->i[k], in[0]->i[k]), in[2]->i[k]);
    }
  }
  return out;
}

Value Select(const Instruction& inst, const std::vector<const Value*>& in) {
  Value out(inst.shape);
  for (int64_t k = 0; k < out.size(); ++k) out.CopyFrom(in[0]->i[k] ? *in[1] : *in[2], k, k);
  return out;
}

Value Convert(const Instruction& inst, const Value& in) {
  Value out(inst.shape);
  for (int64_t k = 0; k < out.size(); ++k) {
    double f = in.is_float() ? in.f[k] : 0;
    int64_t i = in.is_float() ? 0 : in.i[k];
    if (out.is_float()) {
      out.f[k] = ConvertToFloat(in.shape.dtype, f, i, out.shape.dtype);
    } else {
      out.i[k] = ConvertToInt(in.shape.dtype, f, i, out.shape.dtype);
    }
  }
  return out;
}

Value Iota(const Instruction& inst) {
  Value out(inst.shape);
  int64_t dimension = Attr(inst, "dimension")[0];
  for (int64_t k = 0; k < out.size(); ++k) {
    int64_t position = Unravel(k, out.shape.dims)[dimension];
    if (out.is_float()) {
      out.f[k] = ConvertToFloat(DType::kS64, 0, position, out.shape.dtype);
    } else {
      out.i[k] = position;
    }
  }
  return out;
}

// Each result element names the operand element it copies: `source` maps a result index
// to an operand index, or returns false for "no element" (pad's padding).
template <typename Source>
Value Gather(const Instruction& inst, const Value& in, Source source) {
  Value out(inst.shape);
  for (int64_t k = 0; k < out.size(); ++k) {
    Index from = Unravel(k, out.shape.dims);
    out.CopyFrom(in, Ravel(source(from), in.shape.dims), k);
  }
  return out;
}

Value BroadcastInDim(const Instruction& inst, const Value& in) {
  const std::vector<int64_t>& dims = Attr(inst, "dims");
  return Gather(inst, in, [&](const Index& out) {
    Index from(in.shape.rank());
    for (size_t d = 0; d < dims.size(); ++d) from[d] = in.shape.dims[d] == 1 ? 0 : out[dims[d]];
    return from;
  });
}

Value Transpose(const Instruction& inst, const Value& in) {
  const std::vector<int64_t>& permutation = Attr(inst, "permutation");
  return Gather(inst, in, [&](const Index& out) {
    Index from(in.shape.rank());
    for (size_t d = 0; d < permutation.size(); ++d) from[permutation[d]] = out[d];
    return from;
  });
}

Value Slice(const Instruction& inst, const Value& in) {
  const std::vector<int64_t>& start = Attr(inst, "start");
  const std::vector<int64_t>& stride = Attr(inst, "stride");
  return Gather(inst, in, [&](const Index& out) {
    Index from(out.size());
    for (size_t d = 0; d < out.size(); ++d) from[d] = start[d] + out[d] * stride[d];
    return from;
  });
}

Value Reshape(const Instruction& inst, const Value& in) {
  Value out(inst.shape);
  out.f = in.f;
  out.i = in.i;
  return out;
}

Value Concatenate(const Instruction& inst, const std::vector<const Value*>& in) {
  Value out(inst.shape);
  int64_t dimension = Attr(inst, "dimension")[0];
  for (int64_t k = 0; k < out.size(); ++k) {
    Index index = Unravel(k, out.shape.dims);
    size_t operand = 0;
    while (index[dimension] >= in[operand]->shape.dims[dimension]) {
      index[dimension] -= in[operand]->shape.dims[dimension];
      ++operand;
    }
    out.CopyFrom(*in[operand], Ravel(index, in[operand]->shape.dims), k);
  }
  return out;
}

Value Pad(const Instruction& inst, const Value& in, const Value& padding) {
  Value out(inst.shape);
  for (int64_t k = 0; k < out.size(); ++k) out.CopyFrom(padding, 0, k);
  const std::vector<int64_t>& low = Attr(inst, "low");
  const std::vector<int64_t>& interior = Attr(inst, "interior");
  for (int64_t k = 0; k < in.size(); ++k) {
    Index index = Unravel(k, in.shape.dims);
    bool inside = true;
    for (size_t d = 0; d < index.size(); ++d) {
      __int128 position = low[d] + static_cast<__int128>(index[d]) * (interior[d] + __int128{1});
      inside = inside && position >= 0 && position < out.shape.dims[d];
      index[d] = static_cast<int64_t>(position);
    }
    if (inside) out.CopyFrom(in, k, Ravel(index, out.shape.dims));
  }
  return out;
}

// reduce_* and all_reduce_*: folds `x` into the accumulator `acc` of dtype `dtype` with the
// op's combiner (ops.def).
double FoldFloat(Op op, double acc, double x) {
  switch (ReductionOf(op)) {
    case Combiner::kSum:
      return acc + x;
    case Combiner::kProduct:
      return acc * x;
    case Combiner::kMax:
      return FloatBinary(Op::kMaximum, acc, x);
    case Combiner::kMin:
      return FloatBinary(Op::kMinimum, acc, x);
    case Combiner::kNone:
      break;  // not a reduction: EvaluateOne sends none
  }
  return std::numeric_limits<double>::quiet_NaN();
}

int64_t FoldInt(Op op, DType dtype, int64_t acc, int64_t x) {
  switch (ReductionOf(op)) {
    case Combiner::kSum:
      return IntBinary(Op::kAdd, dtype, acc, x);
    case Combiner::kProduct:
      return IntBinary(Op::kMultiply, dtype, acc, x);
    case Combiner::kMax:
      return IntBinary(Op::kMaximum, dtype, acc, x);
    case Combiner::kMin:
      return IntBinary(Op::kMinimum, dtype, acc, x);
    case Combiner::kNone:
      break;  // not a reduction: EvaluateOne sends none
  }
  return 0;
}

Value Reduce(const Instruction& inst, const Value& in) {
  Value out(inst.shape);
  DType dtype = in.shape.dtype;
  const std::vector<int64_t>& axes = Attr(inst, "axes");
  bool is_float = in.is_float();
  const Combiner combiner = ReductionOf(inst.op);
  double float_init = ReductionIdentity<double>(combiner);
  int64_t int_init = dtype == DType::kS32 ? ReductionIdentity<int32_t>(combiner)
                                          : ReductionIdentity<int64_t>(combiner);
  std::fill(out.f.begin(), out.f.end(), float_init);
  std::fill(out.i.begin(), out.i.end(), int_init);
  for (int64_t k = 0; k < in.size(); ++k) {
    Index index = Unravel(k, in.shape.dims);
    Index kept;
    for (size_t d = 0; d < index.size(); ++d) {
      if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) == axes.end()) {
        kept.push_back(index[d]);
      }
    }
    int64_t o = Ravel(kept, out.shape.dims);
    if (is_float) {
      out.f[o] = FoldFloat(inst.op, out.f[o], in.f[k]);
    } else {
      out.i[o] = FoldInt(inst.op, dtype, out.i[o], in.i[k]);
    }
  }
  for (double& x : out.f) x = RoundTo(dtype, x);
  return out;
}

Value DotGeneral(const Instruction& inst, const Value& lhs, const Value& rhs) {
  Value out(inst.shape);
  const std::vector<int64_t>& lb = Attr(inst, "lhs_batch");
  const std::vector<int64_t>& rb = Attr(inst, "rhs_batch");
  const std::vector<int64_t>& lc = Attr(inst, "lhs_contracting");
  const std::vector<int64_t>& rc = Attr(inst, "rhs_contracting");
  auto free_dims = [](const Shape& s, const std::vector<int64_t>& a,
                      const std::vector<int64_t>& b) {
    std::vector<int64_t> free;
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (std::find(a.begin(), a.end(), d) == a.end() &&
          std::find(b.begin(), b.end(), d) == b.end()) {
        free.push_back(d);
      }
    }
    return free;
  };
  std::vector<int64_t> lf = free_dims(lhs.shape, lb, lc);
  std::vector<int64_t> rf = free_dims(rhs.shape, rb, rc);
  std::vector<int64_t> contracted;
  contracted.reserve(lc.size());
  for (int64_t d : lc) contracted.push_back(lhs.shape.dims[d]);
  int64_t terms = Shape{DType::kF32, contracted}.num_elements();
  DType dtype = lhs.shape.dtype;
  for (int64_t k = 0; k < out.size(); ++k) {
    Index o = Unravel(k, out.shape.dims);
    Index li(lhs.shape.rank()), ri(rhs.shape.rank());
    size_t p = 0;
    for (size_t j = 0; j < lb.size(); ++j, ++p) li[lb[j]] = ri[rb[j]] = o[p];
    for (int64_t d : lf) li[d] = o[p++];
    for (int64_t d : rf) ri[d] = o[p++];
    double fsum = 0;
    int64_t isum = 0;
    for (int64_t t = 0; t < terms; ++t) {
      Index c = Unravel(t, contracted);
      for (size_t j = 0; j < lc.size(); ++j) li[lc[j]] = ri[rc[j]] = c[j];
      int64_t a = Ravel(li, lhs.shape.dims);
      int64_t b = Ravel(ri, rhs.shape.dims);
      if (out.is_float()) {
        fsum += lhs.f[a] * rhs.f[b];
      } else if (dtype == DType::kPred) {
        isum = isum || (lhs.i[a] && rhs.i[b]);
      } else {
        isum =
            IntBinary(Op::kAdd, dtype, isum, IntBinary(Op::kMultiply, dtype, lhs.i[a], rhs.i[b]));
      }
    }
    if (out.is_float()) {
      out.f[k] = RoundTo(dtype, fsum);
    } else {
      out.i[k] = isum;
    }
  }
  return out;
}

// values[r] holds replica r's operand; every member of a group gets the group's fold.
std::vector<Value> AllReduce(const Instruction& inst, const std::vector<const Value*>& values) {
  std::vector<Value> out(values.size(), Value(inst.shape));
  int64_t group_size = Attr(inst, "group_size")[0];
  const std::vector<int64_t>& replicas = Attr(inst, "replica_groups");
  DType dtype = inst.shape.dtype;
  for (size_t g = 0; g < replicas.size(); g += group_size) {
    Value acc = *values[replicas[g]];
    for (int64_t m = 1; m < group_size; ++m) {
      const Value& x = *values[replicas[g + m]];
      for (int64_t k = 0; k < acc.size(); ++k) {
        if (acc.is_float()) {
          acc.f[k] = FoldFloat(inst.op, acc.f[k], x.f[k]);
        } else {
          acc.i[k] = FoldInt(inst.op, dtype, acc.i[k], x.i[k]);
        }
      }
    }
    for (double& x : acc.f) x = RoundTo(dtype, x);
    for (int64_t m = 0; m < group_size; ++m) out[replicas[g + m]] = acc;
  }
  return out;
}

// convolution, reduce_window_* and select_and_scatter (reference_window.h) compute in
// double, float only: their result rounded to its dtype.
Value Windowed(const Instruction& inst, std::vector<double> result) {
  Value out(inst.shape);
  out.f = std::move(result);
  for (double& x : out.f) x = RoundTo(inst.shape.dtype, x);
  return out;
}

// argmax/argmin and cumsum along `axis`: outer x extent x inner, row-major.
struct AxisLoop {
  int64_t outer = 1, extent = 1, inner = 1;
  AxisLoop(const Shape& shape, int64_t axis) {
    for (int64_t d = 0; d < shape.rank(); ++d) {
      (d < axis ? outer : d == axis ? extent : inner) *= shape.dims[d];
    }
  }
};

// Whether candidate c replaces the best so far b: ties keep the first; the first NaN wins.
template <typename T>
bool Better(Op op, T c, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(b)) return false;
    if (std::isnan(c)) return true;
  }
  return op == Op::kArgMax ? c > b : c < b;
}

Value ArgReduce(const Instruction& inst, const Value& in) {
  Value out(inst.shape);
  const AxisLoop loop(in.shape, Attr(inst, "axis")[0]);
  for (int64_t o = 0; o < loop.outer; ++o) {
    for (int64_t i = 0; i < loop.inner; ++i) {
      const int64_t base = o * loop.extent * loop.inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < loop.extent; ++k) {
        const int64_t c = base + k * loop.inner, b = base + best * loop.inner;
        if (in.is_float() ? Better(inst.op, in.f[c], in.f[b]) : Better(inst.op, in.i[c], in.i[b])) {
          best = k;
        }
      }
      out.i[o * loop.inner + i] = best;
    }
  }
  return out;
}

// Each running sum is rounded to the dtype (integers wrap) before the next term is added.
Value Cumsum(const Instruction& inst, const Value& in) {
  Value out = in;
  const AxisLoop loop(in.shape, Attr(inst, "axis")[0]);
  const DType dtype = in.shape.dtype;
  for (int64_t o = 0; o < loop.outer; ++o) {
    for (int64_t k = 1; k < loop.extent; ++k) {
      for (int64_t i = 0; i < loop.inner; ++i) {
        const int64_t at = (o * loop.extent + k) * loop.inner + i, prev = at - loop.inner;
        if (out.is_float()) {
          out.f[at] = RoundTo(dtype, out.f[prev] + in.f[at]);
        } else {
          out.i[at] = IntBinary(Op::kAdd, dtype, out.i[prev], in.i[at]);
        }
      }
    }
  }
  return out;
}

// gather copies; scatter_* starts from operand 0 and applies the updates one by one in
// the order of reference::ScatterTargets (add: rounded after each addition, as a sequential kernel
// does; replace: the last update of an element wins).
Value Indexed(const Instruction& inst, const std::vector<const Value*>& in) {
  Value out(inst.shape);
  if (inst.op == Op::kGather) {
    const std::vector<int64_t> sources =
        reference::GatherSources(inst, in[0]->shape, in[1]->shape, in[1]->i);
    for (int64_t k = 0; k < static_cast<int64_t>(sources.size()); ++k) {
      out.CopyFrom(*in[0], sources[static_cast<size_t>(k)], k);
    }
    return out;
  }
  out = *in[0];
  const std::vector<reference::ScatterStep> steps =
      reference::ScatterTargets(inst, in[0]->shape, in[1]->shape, in[1]->i, in[2]->shape);
  const DType dtype = inst.shape.dtype;
  for (const reference::ScatterStep& step : steps) {
    const int64_t t = step.target, k = step.update;
    if (inst.op == Op::kScatterReplace) {
      out.CopyFrom(*in[2], k, t);
    } else if (out.is_float()) {
      out.f[t] = RoundTo(dtype, out.f[t] + in[2]->f[k]);
    } else {
      out.i[t] = IntBinary(Op::kAdd, dtype, out.i[t], in[2]->i[k]);
    }
  }
  return out;
}

Value EvaluateOne(const Instruction& inst, const std::vector<const Value*>& in) {
  switch (inst.op) {
    case Op::kConstant:
      return FromLiteral(inst.literal);
    case Op::kIota:
      return Iota(inst);
    case Op::kSelect:
      return Select(inst, in);
    case Op::kClamp:
      return Clamp(inst, in);
    case Op::kConvert:
      return Convert(inst, *in[0]);
    case Op::kBroadcastInDim:
      return BroadcastInDim(inst, *in[0]);
    case Op::kReshape:
      return Reshape(inst, *in[0]);
    case Op::kTranspose:
      return Transpose(inst, *in[0]);
    case Op::kSlice:
      return Slice(inst, *in[0]);
    case Op::kConcatenate:
      return Concatenate(inst, in);
    case Op::kPad:
      return Pad(inst, *in[0], *in[1]);
    case Op::kReduceSum:
    case Op::kReduceProduct:
    case Op::kReduceMax:
    case Op::kReduceMin:
      return Reduce(inst, *in[0]);
    case Op::kDotGeneral:
      return DotGeneral(inst, *in[0], *in[1]);
    case Op::kArgMax:
    case Op::kArgMin:
      return ArgReduce(inst, *in[0]);
    case Op::kCumsum:
      return Cumsum(inst, *in[0]);
    case Op::kConvolution:
      return Windowed(inst,
                      reference::Convolution(inst, in[0]->shape, in[0]->f, in[1]->shape, in[1]->f));
    case Op::kReduceWindowSum:
    case Op::kReduceWindowMax:
    case Op::kReduceWindowMin:
      return Windowed(inst, reference::ReduceWindow(inst, in[0]->shape, in[0]->f));
    case Op::kSelectAndScatter:
      return Windowed(inst, reference::SelectAndScatter(inst, in[0]->shape, in[0]->f, in[1]->f));
    case Op::kGather:
    case Op::kScatterAdd:
    case Op::kScatterReplace:
      return Indexed(inst, in);
    case Op::kRngBitGenerator: {
      Value out(inst.shape);
      out.i =
          reference::RngBits(inst.shape.dtype, out.size(), in[0]->i[0], in[1]->i[0], in[1]->i[1]);
      return out;
    }
    case Op::kArgsort: {
      Value out(inst.shape);
      out.i = reference::Argsort(in[0]->shape, Attr(inst, "axis")[0],
                                 Attr(inst, "descending")[0] != 0, in[0]->f, in[0]->i);
      return out;
    }
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
      return Elementwise(inst, in);
    case Op::kParameter:  // EvaluateReplicated binds parameters and meets the replicas
    case Op::kAllReduceSum:
    case Op::kAllReduceMax:
    case Op::kAllReduceMin:
      break;
  }
  return Value(inst.shape);
}

}  // namespace

absl::StatusOr<std::vector<std::vector<Literal>>> EvaluateReplicated(
    const Program& program, const std::vector<std::vector<Literal>>& arguments) {
  if (absl::Status s = VerifyProgram(program); !s.ok()) return s;
  if (static_cast<int64_t>(arguments.size()) != program.replica_count) {
    return absl::InvalidArgumentError(absl::StrCat("reference evaluator: ", arguments.size(),
                                                   " replicas of arguments given, the program has ",
                                                   program.replica_count));
  }
  std::vector<Shape> parameters = program.ParameterShapes();
  for (size_t r = 0; r < arguments.size(); ++r) {
    if (arguments[r].size() != parameters.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("reference evaluator: replica ", r, " has ", arguments[r].size(),
                       " arguments, the program has ", parameters.size(), " parameters"));
    }
    for (size_t p = 0; p < parameters.size(); ++p) {
      const Literal& arg = arguments[r][p];
      if (arg.shape != parameters[p] || arg.bytes.size() != parameters[p].byte_size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "reference evaluator: argument ", p, " of replica ", r, " is ", arg.shape.ToString(),
            " with ", arg.bytes.size(), " bytes, parameter ", p, " is ", parameters[p].ToString()));
      }
    }
  }
  size_t replicas = arguments.size();
  std::vector<std::vector<Value>> values(replicas);
  for (const Instruction& inst : program.instructions) {
    std::vector<std::vector<const Value*>> operands(replicas);
    for (size_t r = 0; r < replicas; ++r) {
      for (int o : inst.operands) operands[r].push_back(&values[r][o]);
    }
    if (IsAllReduce(inst.op)) {
      std::vector<const Value*> per_replica;
      for (size_t r = 0; r < replicas; ++r) per_replica.push_back(operands[r][0]);
      std::vector<Value> reduced = AllReduce(inst, per_replica);
      for (size_t r = 0; r < replicas; ++r) values[r].push_back(std::move(reduced[r]));
      continue;
    }
    for (size_t r = 0; r < replicas; ++r) {
      if (inst.op == Op::kParameter) {
        values[r].push_back(FromLiteral(arguments[r][inst.parameter_index]));
      } else {
        values[r].push_back(EvaluateOne(inst, operands[r]));
      }
    }
  }
  std::vector<std::vector<Literal>> results(replicas);
  for (size_t r = 0; r < replicas; ++r) {
    for (int k : program.results) results[r].push_back(ToLiteral(values[r][k]));
  }
  return results;
}

absl::StatusOr<std::vector<Literal>> Evaluate(const Program& program,
                                              const std::vector<Literal>& arguments) {
  absl::StatusOr<std::vector<std::vector<Literal>>> results =
      EvaluateReplicated(program, {arguments});
  if (!results.ok()) return results.status();
  return std::move(results->front());
}

}  // namespace seam::ir
