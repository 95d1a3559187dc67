#include "src/conformance/op_cases.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "src/conformance/op_cases_gather.h"
#include "src/ir/bf16.h"
#include "src/ir/shape_rules.h"
#include "src/ir/window.h"

namespace seam::conformance {
namespace {

using ir::DType;
using ir::Op;
using ir::Shape;
using Dims = std::vector<int64_t>;

constexpr int kCases = 8;

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}

  int64_t Int(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(engine_);
  }
  bool OneIn(int n) { return Int(0, n - 1) == 0; }
  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(engine_);
  }

  // Case 0: rank min_rank, no 0 dimension; case 1: one 0 dimension; later: random.
  Dims Shape(int case_index, int min_rank, int max_rank = 3) {
    int rank = case_index == 0 ? min_rank : static_cast<int>(Int(min_rank, max_rank));
    if (case_index == 1 && rank == 0) rank = 1;
    Dims dims;
    for (int d = 0; d < rank; ++d) dims.push_back(Int(1, 4));
    if (case_index == 1) dims[Int(0, rank - 1)] = 0;
    if (case_index > 1 && rank > 0 && OneIn(10)) dims[Int(0, rank - 1)] = 0;
    return dims;
  }

  Dims Permutation(int64_t n) {
    Dims p(n);
    for (int64_t i = 0; i < n; ++i) p[i] = i;
    std::shuffle(p.begin(), p.end(), engine_);
    return p;
  }

  Dims Subset(int64_t n) {
    Dims s;
    for (int64_t i = 0; i < n; ++i) {
      if (OneIn(2)) s.push_back(i);
    }
    return s;
  }

  // Elementwise ops and most reductions also see signed zeros, infinities, NaN and large
  // values; products and dots get tame values so that their error bound stays meaningful.
  double FloatValue(bool tame) {
    if (tame) return Uniform(-2, 2);
    if (OneIn(4)) return kSpecialFloats[Int(0, std::size(kSpecialFloats) - 1)];
    return Uniform(-4, 4);
  }

  int64_t IntValue(DType dtype) {
    int64_t pick = Int(0, 9);
    if (pick < 5) return Int(-8, 8);
    if (pick < 8) return Int(MinOf(dtype), MaxOf(dtype));
    std::vector<int64_t> special = SpecialInts(dtype);
    return special[Int(0, static_cast<int64_t>(special.size()) - 1)];
  }

  ir::Literal Values(const ir::Shape& shape, bool tame) {
    std::vector<double> floats;
    std::vector<int64_t> ints;
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      if (ir::IsFloat(shape.dtype)) {
        floats.push_back(FloatValue(tame));
      } else {
        ints.push_back(shape.dtype == DType::kPred ? Int(0, 1) : IntValue(shape.dtype));
      }
    }
    return MakeLiteral(shape, floats, ints);
  }

  // NaN comes first so that a reduction that drops it on a later element is caught.
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  static constexpr double kSpecialFloats[] = {std::numeric_limits<double>::quiet_NaN(),
                                              0.0,
                                              -0.0,
                                              0.5,
                                              -0.5,
                                              2.5,
                                              -2.5,
                                              1,
                                              -1,
                                              100,
                                              -100,
                                              1e10,
                                              -1e10,
                                              1e-3,
                                              3e38,
                                              kInf,
                                              -kInf};

  static int64_t MinOf(DType dtype) {
    return dtype == DType::kS32 ? std::numeric_limits<int32_t>::min()
                                : std::numeric_limits<int64_t>::min();
  }
  static int64_t MaxOf(DType dtype) {
    return dtype == DType::kS32 ? std::numeric_limits<int32_t>::max()
                                : std::numeric_limits<int64_t>::max();
  }
  static std::vector<int64_t> SpecialInts(DType dtype) {
    if (dtype == DType::kPred) return {0, 1};
    return {0, 1, -1, 2, -2, 7, -7, MinOf(dtype), MaxOf(dtype), MinOf(dtype) + 1, MaxOf(dtype) - 1};
  }

  static ir::Literal MakeLiteral(const ir::Shape& shape, const std::vector<double>& floats,
                                 const std::vector<int64_t>& ints) {
    ir::Literal literal;
    literal.shape = shape;
    literal.bytes.resize(shape.byte_size());
    uint8_t* out = literal.bytes.data();
    auto put = [&](auto v) {
      std::memcpy(out, &v, sizeof(v));
      out += sizeof(v);
    };
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      switch (shape.dtype) {
        case DType::kF32:
          put(static_cast<float>(floats[i]));
          break;
        case DType::kF64:
          put(floats[i]);
          break;
        case DType::kBF16:
          put(ir::FloatToBF16(static_cast<float>(floats[i])));
          break;
        case DType::kS32:
          put(static_cast<int32_t>(ints[i]));
          break;
        case DType::kS64:
          put(ints[i]);
          break;
        case DType::kPred:
          put(static_cast<uint8_t>(ints[i]));
          break;
      }
    }
    return literal;
  }

  // Every special value (unary), or every pair of them (operand 0 and 1 of a binary op).
  static ir::Literal SpecialGrid(DType dtype, int operand, int arity) {
    std::vector<double> floats(std::begin(kSpecialFloats), std::end(kSpecialFloats));
    std::vector<int64_t> ints = SpecialInts(dtype);
    int64_t n = ir::IsFloat(dtype) ? static_cast<int64_t>(floats.size())
                                   : static_cast<int64_t>(ints.size());
    int64_t count = arity == 1 ? n : n * n;
    std::vector<double> grid_floats;
    std::vector<int64_t> grid_ints;
    for (int64_t k = 0; k < count; ++k) {
      int64_t pick = arity == 1 ? k : operand == 0 ? k / n : k % n;
      if (ir::IsFloat(dtype)) {
        grid_floats.push_back(floats[pick]);
      } else {
        grid_ints.push_back(ints[pick]);
      }
    }
    return MakeLiteral({dtype, {count}}, grid_floats, grid_ints);
  }

 private:
  std::mt19937_64 engine_;
};

// Builds one case: parameters first, then the op.
class CaseBuilder {
 public:
  CaseBuilder(Random& random, bool tame) : random_(random), tame_(tame) {}

  int Param(const Shape& shape) { return ParamWith(random_.Values(shape, tame_)); }

  int ParamWith(ir::Literal value) {
    ir::Instruction inst;
    inst.op = Op::kParameter;
    inst.parameter_index = static_cast<int64_t>(case_.arguments.size());
    inst.shape = value.shape;
    case_.arguments.push_back(std::move(value));
    case_.program.instructions.push_back(std::move(inst));
    return static_cast<int>(case_.program.instructions.size()) - 1;
  }

  // `declared` matters where the result shape is not implied by the operands; elsewhere
  // the shape rule decides (and where it refuses, the declared shape stays).
  OpCase Finish(Op op, std::vector<int> operands, ir::Attributes attrs, Shape declared) {
    ir::Instruction inst;
    inst.op = op;
    inst.operands = std::move(operands);
    inst.attrs = std::move(attrs);
    inst.shape = std::move(declared);
    std::vector<Shape> shapes;
    for (int o : inst.operands) shapes.push_back(case_.program.instructions[o].shape);
    absl::StatusOr<Shape> inferred = ir::InferShape(inst, shapes);
    if (inferred.ok()) inst.shape = *inferred;
    case_.program.instructions.push_back(std::move(inst));
    case_.program.results = {static_cast<int>(case_.program.instructions.size()) - 1};
    return std::move(case_);
  }

  OpCase FinishConstant(const Shape& shape) {
    ir::Instruction inst;
    inst.op = Op::kConstant;
    inst.shape = shape;
    inst.literal = random_.Values(shape, tame_);
    case_.program.instructions.push_back(std::move(inst));
    case_.program.results = {0};
    return std::move(case_);
  }

 private:
  Random& random_;
  bool tame_;
  OpCase case_;
};

OpCase BroadcastCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  int64_t rank = i == 0 ? 0 : r.Int(0, 2);
  int64_t result_rank = rank + r.Int(i <= 1 ? 1 : 0, 2);
  Dims mapping = r.Permutation(result_rank);
  mapping.resize(rank);
  std::sort(mapping.begin(), mapping.end());
  Dims result;
  for (int64_t d = 0; d < result_rank; ++d) result.push_back(r.Int(1, 4));
  if (i == 1) result[r.Int(0, result_rank - 1)] = 0;
  Dims operand;
  for (int64_t m : mapping) operand.push_back(r.OneIn(3) ? 1 : result[m]);
  return b.Finish(Op::kBroadcastInDim, {b.Param({dtype, operand})}, {{"dims", mapping}},
                  {dtype, result});
}

OpCase ReshapeCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  Dims operand = r.Shape(i, 0);
  Dims result = operand;
  std::shuffle(result.begin(), result.end(), std::mt19937_64(r.Int(0, 1 << 30)));
  for (int64_t ones = r.Int(0, 2); ones > 0; --ones) {
    result.insert(result.begin() + r.Int(0, static_cast<int64_t>(result.size())), 1);
  }
  return b.Finish(Op::kReshape, {b.Param({dtype, operand})}, {}, {dtype, result});
}

OpCase SliceCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  Dims operand = r.Shape(i, 0);
  Dims start, limit, stride;
  for (int64_t d : operand) {
    start.push_back(r.Int(0, d));
    limit.push_back(r.Int(start.back(), d));
    stride.push_back(r.Int(1, 3));
  }
  return b.Finish(Op::kSlice, {b.Param({dtype, operand})},
                  {{"start", start}, {"limit", limit}, {"stride", stride}}, {});
}

OpCase ConcatenateCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  Dims base = r.Shape(i, 1);
  int64_t dimension = r.Int(0, static_cast<int64_t>(base.size()) - 1);
  std::vector<int> operands;
  for (int64_t n = r.Int(1, 3); n > 0; --n) {
    Dims dims = base;
    dims[dimension] = r.Int(0, 3);
    operands.push_back(b.Param({dtype, dims}));
  }
  return b.Finish(Op::kConcatenate, operands, {{"dimension", {dimension}}}, {});
}

OpCase PadCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  Dims operand = r.Shape(i, 0);
  Dims low, high, interior;
  for (int64_t n : operand) {
    low.push_back(r.Int(-2, 3));
    high.push_back(r.Int(-2, 3));
    // Every other case without interior padding (the CPU kernel's block-copy path).
    const int64_t gap = r.Int(0, 2);
    interior.push_back(i % 2 == 0 ? 0 : gap);
    if (low.back() + high.back() + n + std::max<int64_t>(n - 1, 0) * interior.back() < 0) {
      low.back() = high.back() = 0;
    }
  }
  int x = b.Param({dtype, operand});
  int value = b.Param({dtype, {}});
  return b.Finish(Op::kPad, {x, value}, {{"low", low}, {"high", high}, {"interior", interior}}, {});
}

// Random batch, free and contracting dimensions, each side in a random order; the first
// cases are the plain, transposed and batched matrix products that BLAS serves directly.
OpCase DotCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  struct Dim {
    char kind;  // 'b'atch, 'c'ontracting, 'l'hs free, 'r'hs free
    int64_t size;
    int id;
  };
  static const char* kLayouts[] = {"lc|cr", "lc|cr", "cl|cr", "blc|bcr", "lc|rc", "cl|rc"};
  std::vector<Dim> lhs, rhs;
  int next_id = 0;
  auto add = [&](char kind) {
    Dim dim{kind, kind == 'b' ? r.Int(1, 3) : r.Int(1, 4), next_id++};
    if (kind != 'r') lhs.push_back(dim);
    if (kind != 'l') rhs.push_back(dim);
  };
  if (i < static_cast<int>(std::size(kLayouts))) {
    std::string layout = kLayouts[i];
    std::string left = layout.substr(0, layout.find('|'));
    std::string right = layout.substr(layout.find('|') + 1);
    std::vector<Dim> dims;
    for (char kind : std::string("bclr")) {
      if (layout.find(kind) != std::string::npos) {
        dims.push_back({kind, kind == 'b' ? r.Int(1, 3) : r.Int(1, 4), next_id++});
      }
    }
    auto of_kind = [&](char kind) {
      return *std::find_if(dims.begin(), dims.end(), [&](const Dim& d) { return d.kind == kind; });
    };
    for (char kind : left) lhs.push_back(of_kind(kind));
    for (char kind : right) rhs.push_back(of_kind(kind));
  } else {
    for (int64_t n = r.Int(0, 1); n > 0; --n) add('b');
    for (int64_t n = r.Int(0, 2); n > 0; --n) add('c');
    for (int64_t n = r.Int(0, 2); n > 0; --n) add('l');
    for (int64_t n = r.Int(0, 2); n > 0; --n) add('r');
    std::shuffle(lhs.begin(), lhs.end(), std::mt19937_64(r.Int(0, 1 << 30)));
    std::shuffle(rhs.begin(), rhs.end(), std::mt19937_64(r.Int(0, 1 << 30)));
  }
  if (i == 1) (lhs.empty() ? rhs : lhs)[0].size = 0;
  // The same dimension must have the same size on both sides.
  for (Dim& d : rhs) {
    for (const Dim& l : lhs) {
      if (l.id == d.id) d.size = l.size;
    }
  }
  Dims lhs_dims, rhs_dims, lb, rb, lc, rc;
  for (size_t k = 0; k < lhs.size(); ++k) lhs_dims.push_back(lhs[k].size);
  for (size_t k = 0; k < rhs.size(); ++k) rhs_dims.push_back(rhs[k].size);
  for (size_t k = 0; k < lhs.size(); ++k) {
    for (size_t j = 0; j < rhs.size(); ++j) {
      if (lhs[k].id != rhs[j].id) continue;
      (lhs[k].kind == 'b' ? lb : lc).push_back(static_cast<int64_t>(k));
      (lhs[k].kind == 'b' ? rb : rc).push_back(static_cast<int64_t>(j));
    }
  }
  int x = b.Param({dtype, lhs_dims});
  int y = b.Param({dtype, rhs_dims});
  return b.Finish(
      Op::kDotGeneral, {x, y},
      {{"lhs_batch", lb}, {"rhs_batch", rb}, {"lhs_contracting", lc}, {"rhs_contracting", rc}}, {});
}

// Roles of a convolution operand's dimensions: `batch`, `feature` and the spatial list,
// from a permutation of 0..rank-1 (cases 2 and 3: NCHW and NHWC-style orders).
struct Roles {
  int64_t first = 0, second = 1;
  Dims spatial;
};
Roles RolesFor(Random& r, int64_t rank, int i, bool channels_last) {
  Dims p = r.Permutation(rank);
  if (i == 2 || i == 3) {
    for (int64_t d = 0; d < rank; ++d) p[d] = d;
    if (channels_last) std::rotate(p.begin() + 1, p.end() - 1, p.end());
  }
  Roles roles{p[0], p[1], Dims(p.begin() + 2, p.end())};
  return roles;
}

// Random dimension numbers, groups, strides, padding (negative too), lhs and rhs
// dilation; case 1 has a 0-sized dimension, windows may exceed the input (an empty result
// dimension).
OpCase ConvolutionCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  const int64_t spatial = i == 0 ? 0 : r.Int(1, 2) + (r.OneIn(6) ? 1 : 0);
  const int64_t rank = spatial + 2;
  // The kernel of the NHWC case is HWIO: input and output features last.
  Roles in = RolesFor(r, rank, i, i == 3);
  Roles kernel = RolesFor(r, rank, i, false);
  if (i == 3) kernel = {rank - 1, rank - 2, Dims()};
  if (i == 3) {
    for (int64_t d = 0; d < spatial; ++d) kernel.spatial.push_back(d);
  }
  Roles out = RolesFor(r, rank, i, i == 3);
  const int64_t batch = r.Int(1, 3), groups = r.OneIn(3) ? r.Int(2, 3) : 1;
  int64_t group_in = r.Int(1, 3), group_out = r.Int(1, 3);
  Dims in_sizes, kernel_sizes, strides, low, high, lhs_dilation, rhs_dilation;
  for (int64_t d = 0; d < spatial; ++d) {
    in_sizes.push_back(r.Int(1, 6));
    kernel_sizes.push_back(r.Int(1, 3));
    strides.push_back(r.Int(1, 2));
    lhs_dilation.push_back(r.OneIn(4) ? 2 : 1);
    rhs_dilation.push_back(r.OneIn(4) ? 2 : 1);
    low.push_back(r.Int(-1, 2));
    high.push_back(r.Int(-1, 2));
  }
  Dims lhs_dims(rank), rhs_dims(rank);
  lhs_dims[in.first] = batch;
  lhs_dims[in.second] = groups * group_in;
  rhs_dims[kernel.first] = groups * group_out;  // output features
  rhs_dims[kernel.second] = group_in;
  for (int64_t d = 0; d < spatial; ++d) {
    lhs_dims[in.spatial[d]] = in_sizes[d];
    rhs_dims[kernel.spatial[d]] = kernel_sizes[d];
  }
  if (i == 1) {
    // 0 in the batch, the features or a spatial dimension of the input.
    int64_t pick = r.Int(0, rank - 1);
    lhs_dims[pick] = 0;
    if (pick == in.second) rhs_dims[kernel.second] = 0;
  }
  for (int64_t d = 0; d < spatial; ++d) {
    ir::WindowDim w{1, 1, low[d], high[d], lhs_dilation[d], 1};
    if (ir::PaddedExtent(w, lhs_dims[in.spatial[d]]) < 0) low[d] = high[d] = 0;
  }
  int x = b.Param({dtype, lhs_dims});
  int y = b.Param({dtype, rhs_dims});
  return b.Finish(Op::kConvolution, {x, y},
                  {{"input_batch_dim", {in.first}},
                   {"input_feature_dim", {in.second}},
                   {"input_spatial_dims", in.spatial},
                   {"kernel_output_feature_dim", {kernel.first}},
                   {"kernel_input_feature_dim", {kernel.second}},
                   {"kernel_spatial_dims", kernel.spatial},
                   {"output_batch_dim", {out.first}},
                   {"output_feature_dim", {out.second}},
                   {"output_spatial_dims", out.spatial},
                   {"feature_group_count", {groups}},
                   {"window_strides", strides},
                   {"padding_low", low},
                   {"padding_high", high},
                   {"lhs_dilation", lhs_dilation},
                   {"rhs_dilation", rhs_dilation}},
                  {});
}

// reduce_window_* and select_and_scatter: windows up to 3 wide (some wider than the
// input), strides, padding and (reduce_window) dilations.
ir::Attributes WindowAttributes(Random& r, const Dims& dims, bool dilations) {
  Dims sizes, strides, low, high, base, window;
  for (int64_t n : dims) {
    sizes.push_back(r.Int(1, 3) + (r.OneIn(6) ? n : 0));
    strides.push_back(r.Int(1, 2));
    low.push_back(r.OneIn(2) ? 0 : r.Int(0, 2));
    high.push_back(r.OneIn(2) ? 0 : r.Int(0, 2));
    base.push_back(r.OneIn(4) ? 2 : 1);
    window.push_back(r.OneIn(4) ? 2 : 1);
  }
  ir::Attributes attrs = {{"window_dimensions", sizes},
                          {"window_strides", strides},
                          {"padding_low", low},
                          {"padding_high", high}};
  if (dilations) {
    attrs["base_dilation"] = base;
    attrs["window_dilation"] = window;
  }
  return attrs;
}

OpCase SelectAndScatterCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  Dims dims = r.Shape(i, 0);
  ir::Attributes attrs = WindowAttributes(r, dims, false);
  Dims windows;
  for (size_t d = 0; d < dims.size(); ++d) {
    ir::WindowDim w{attrs["window_dimensions"][d],
                    attrs["window_strides"][d],
                    attrs["padding_low"][d],
                    attrs["padding_high"][d],
                    1,
                    1};
    windows.push_back(static_cast<int64_t>(ir::WindowCount(w, dims[d])));
  }
  int x = b.Param({dtype, dims});
  int source = b.Param({dtype, windows});
  return b.Finish(Op::kSelectAndScatter, {x, source}, attrs, {});
}

// gather and scatter_*: op_cases_gather.cc draws the layout and the indices.
OpCase IndexedOpCase(Random& r, CaseBuilder& b, Op op, DType dtype, int i) {
  IndexedCase c = MakeIndexedCase(op, i, static_cast<uint64_t>(r.Int(0, INT64_MAX)));
  int operand = b.Param({dtype, c.operand});
  int indices = b.ParamWith(std::move(c.indices));
  std::vector<int> operands = {operand, indices};
  if (op != Op::kGather) operands.push_back(b.Param({dtype, c.updates}));
  return b.Finish(op, operands, std::move(c.attrs), {});
}

// The case that feeds every special value (every pair, for binary ops).
constexpr int kSpecialCase = 2;

// Every dtype to every dtype; the variant kSpecialCase converts every special value.
OpCase ConvertCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  DType to = ir::kAllDTypeList[i % ir::kNumDTypes];
  int variant = i / ir::kNumDTypes;
  if (variant == kSpecialCase) {
    ir::Literal values = Random::SpecialGrid(dtype, 0, 1);
    Dims dims = values.shape.dims;
    return b.Finish(Op::kConvert, {b.ParamWith(std::move(values))}, {}, {to, dims});
  }
  Dims dims = r.Shape(variant, 0);
  return b.Finish(Op::kConvert, {b.Param({dtype, dims})}, {}, {to, dims});
}

// argmax, argmin and cumsum along one axis; case 1 has a 0-sized dimension, kept off the
// axis (argmax refuses an empty one).
OpCase AxisCase(Random& r, CaseBuilder& b, Op op, DType dtype, int i) {
  Dims dims = r.Shape(i, 1);
  int64_t axis = r.Int(0, static_cast<int64_t>(dims.size()) - 1);
  if (dims[axis] == 0) dims[axis] = 3;
  if (i == 1 && dims.size() == 1) {
    dims.insert(dims.begin(), 0);
    axis = 1;
  } else if (i == 1) {
    dims[(axis + 1) % static_cast<int64_t>(dims.size())] = 0;
  }
  return b.Finish(op, {b.Param({dtype, dims})}, {{"axis", {axis}}}, {});
}

// argsort: descending in odd cases; the values repeat often (small integers, signed zeros,
// NaN among the special floats), so stability is checked.
OpCase ArgsortCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  Dims dims = r.Shape(i, 1);
  const int64_t axis = r.Int(0, static_cast<int64_t>(dims.size()) - 1);
  return b.Finish(Op::kArgsort, {b.Param({dtype, dims})},
                  {{"axis", {axis}}, {"descending", {i % 2}}}, {});
}

// rng_bit_generator: random key and counter (case 3: a counter whose low word is all ones,
// so the second block carries into the high word), result of `dtype` (case 1: 0-sized).
OpCase RngCase(Random& r, CaseBuilder& b, DType dtype, int i) {
  Dims dims = r.Shape(i, 0);
  if (i == 3) dims = {3, 5};
  const int key = b.Param({DType::kS64, {}});
  int counter = 0;
  if (i == 3) {
    counter = b.ParamWith(ir::Literal::FromS64({-1, r.Int(0, 1000)}, {2}));
  } else {
    counter = b.Param({DType::kS64, {2}});
  }
  return b.Finish(Op::kRngBitGenerator, {key, counter}, {}, {dtype, dims});
}

OpCase MakeCase(Op op, DType dtype, int i, Random& r) {
  bool tame = ir::ReductionOf(op) == ir::Combiner::kProduct || op == Op::kDotGeneral ||
              op == Op::kConvolution;
  CaseBuilder b(r, tame);
  switch (op) {
    case Op::kConstant:
      return b.FinishConstant({dtype, r.Shape(i, 0)});
    case Op::kIota: {
      Dims dims = r.Shape(i, 1);
      return b.Finish(op, {}, {{"dimension", {r.Int(0, static_cast<int64_t>(dims.size()) - 1)}}},
                      {dtype, dims});
    }
    case Op::kSelect: {
      Dims dims = r.Shape(i, 0);
      int p = b.Param({DType::kPred, dims});
      int x = b.Param({dtype, dims});
      return b.Finish(op, {p, x, b.Param({dtype, dims})}, {}, {dtype, dims});
    }
    case Op::kConvert:
      return ConvertCase(r, b, dtype, i);
    case Op::kBroadcastInDim:
      return BroadcastCase(r, b, dtype, i);
    case Op::kReshape:
      return ReshapeCase(r, b, dtype, i);
    case Op::kTranspose: {
      Dims dims = r.Shape(i, 0, 4);
      return b.Finish(op, {b.Param({dtype, dims})},
                      {{"permutation", r.Permutation(static_cast<int64_t>(dims.size()))}}, {});
    }
    case Op::kSlice:
      return SliceCase(r, b, dtype, i);
    case Op::kConcatenate:
      return ConcatenateCase(r, b, dtype, i);
    case Op::kPad:
      return PadCase(r, b, dtype, i);
    case Op::kDotGeneral:
      return DotCase(r, b, dtype, i);
    case Op::kConvolution:
      return ConvolutionCase(r, b, dtype, i);
    case Op::kReduceWindowSum:
    case Op::kReduceWindowMax:
    case Op::kReduceWindowMin: {
      Dims dims = r.Shape(i, 0);
      return b.Finish(op, {b.Param({dtype, dims})}, WindowAttributes(r, dims, true), {});
    }
    case Op::kSelectAndScatter:
      return SelectAndScatterCase(r, b, dtype, i);
    case Op::kArgMax:
    case Op::kArgMin:
    case Op::kCumsum:
      return AxisCase(r, b, op, dtype, i);
    case Op::kGather:
    case Op::kScatterAdd:
    case Op::kScatterReplace:
      return IndexedOpCase(r, b, op, dtype, i);
    case Op::kArgsort:
      return ArgsortCase(r, b, dtype, i);
    case Op::kRngBitGenerator:
      return RngCase(r, b, dtype, i);
    case Op::kAllReduceSum:
    case Op::kAllReduceMax:
    case Op::kAllReduceMin:
      return b.Finish(op, {b.Param({dtype, r.Shape(i, 0)})},
                      {{"replica_groups", {0}}, {"group_size", {1}}}, {});
    case Op::kReduceSum:
    case Op::kReduceProduct:
    case Op::kReduceMax:
    case Op::kReduceMin: {
      Dims dims = r.Shape(i, 0);
      if (i == kSpecialCase && ir::ReductionOf(op) != ir::Combiner::kProduct) {
        // Every row holds every special value; the columns run through them too.
        ir::Literal grid = Random::SpecialGrid(dtype, 1, 2);
        int64_t n = static_cast<int64_t>(std::sqrt(static_cast<double>(grid.shape.dims[0])));
        grid.shape.dims = {n, n};
        return b.Finish(op, {b.ParamWith(std::move(grid))}, {{"axes", r.Subset(2)}}, {});
      }
      return b.Finish(op, {b.Param({dtype, dims})},
                      {{"axes", r.Subset(static_cast<int64_t>(dims.size()))}}, {});
    }
    // The elementwise rows, clamp, and parameter (never asked for): operands of one shape.
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
    case Op::kParameter:
    case Op::kClamp:
      break;
  }
  Dims dims = r.Shape(i, 0);
  std::vector<int> operands;
  int arity = ir::OpArity(op);
  operands.reserve(static_cast<size_t>(arity));
  for (int k = 0; k < arity; ++k) {
    operands.push_back(i == kSpecialCase ? b.ParamWith(Random::SpecialGrid(dtype, k, arity))
                                         : b.Param({dtype, dims}));
  }
  return b.Finish(op, operands, {}, {dtype, dims});
}

}  // namespace

std::vector<OpCase> MakeCases(Op op, DType dtype, uint64_t seed) {
  Random random(seed * 1000003u + static_cast<uint64_t>(op) * 131u + static_cast<uint64_t>(dtype));
  int count = op == Op::kConvert ? (kSpecialCase + 1) * ir::kNumDTypes : kCases;
  std::vector<OpCase> cases;
  cases.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) cases.push_back(MakeCase(op, dtype, i, random));
  return cases;
}

double FloatAt(const ir::Literal& literal, int64_t index) {
  const uint8_t* p = literal.bytes.data() + index * ir::DTypeSize(literal.shape.dtype);
  switch (literal.shape.dtype) {
    case DType::kF32: {
      float v;
      std::memcpy(&v, p, sizeof(v));
      return v;
    }
    case DType::kBF16: {
      uint16_t v;
      std::memcpy(&v, p, sizeof(v));
      return ir::BF16ToFloat(v);
    }
    case DType::kF64:
    case DType::kS32:  // not floats: IntAt reads them
    case DType::kS64:
    case DType::kPred:
      break;
  }
  double v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

int64_t IntAt(const ir::Literal& literal, int64_t index) {
  const uint8_t* p = literal.bytes.data() + index * ir::DTypeSize(literal.shape.dtype);
  switch (literal.shape.dtype) {
    case DType::kS32: {
      int32_t v;
      std::memcpy(&v, p, sizeof(v));
      return v;
    }
    case DType::kPred:
      return *p;
    case DType::kS64:
    case DType::kF32:  // floats: FloatAt reads them
    case DType::kF64:
    case DType::kBF16:
      break;
  }
  int64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace seam::conformance
