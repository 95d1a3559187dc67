// seam::manual_seed and seam::rand (include/seam/tensor.h; docs/frontend.md "Random
// numbers"): the default generator's key (int64 scalar) and counter (int64[2]) are tensors,
// so each draw is an IR rng_bit_generator on program data and the counter's advance is an
// add in the same program, never a new constant.
#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/lazy/random_internal.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace lazy {
namespace {

constexpr uint64_t kDefaultSeed = 67280421310721u;  // torch's default_generator seed

struct Generator {
  std::mutex mu;
  Tensor key, counter;  // undefined until the first draw or manual_seed
};

// Never destroyed: its tensors may hold device buffers past the runtime's static teardown.
Generator& Default() {
  static Generator* generator = new Generator;
  return *generator;
}

void Seed(Generator& g, uint64_t seed) {
  g.key = Tensor::from_vector(std::vector<int64_t>{static_cast<int64_t>(seed)}, {});
  g.counter = Tensor::from_vector(std::vector<int64_t>{0, 0}, {2});
}

NodePtr IntConstant(int64_t value, Ints dims) {
  return BroadcastTo(ConstantNode(FullIntLiteral(ir::DType::kS64, {}, value)), dims);
}

NodePtr Bin(ir::Op op, const NodePtr& a, const NodePtr& b) { return MakeNode(op, {a, b}, {}); }

}  // namespace

NodePtr DrawBits(ir::DType dtype, Ints dims) {
  Generator& g = Default();
  std::lock_guard<std::mutex> lock(g.mu);
  if (!g.key.defined()) Seed(g, kDefaultSeed);
  const NodePtr key = NodeOf(g.key, "rand");
  const NodePtr counter = NodeOf(g.counter, "rand");
  const NodePtr bits =
      MakeNode(ir::Op::kRngBitGenerator, {key, counter}, {}, MakeShape(dtype, dims));
  // One Philox block gives 16 bytes; the low counter word advances by the blocks used (the
  // high word stays: 2^64 blocks are never drawn).
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  const int64_t blocks = (count * static_cast<int64_t>(ir::DTypeSize(dtype)) + 15) / 16;
  ir::Literal step = ir::Literal::FromS64({blocks, 0}, {2});
  g.counter.assign(Wrap(Bin(ir::Op::kAdd, counter, ConstantNode(std::move(step)))));
  return bits;
}

NodePtr UniformFromBits(ir::DType dtype, Ints dims) {
  using ir::DType;
  using ir::Op;
  if (dtype == DType::kF64) {
    // The top 53 bits of each 64-bit word: hi * 2^21 + lo / 2^11 with hi and lo its
    // unsigned 32-bit halves (the IR has no logical shift; these divisions are exact or
    // floor divisions of non-negative values).
    const NodePtr w = DrawBits(DType::kS64, dims);
    const NodePtr mask = IntConstant(0xFFFFFFFF, dims);
    const NodePtr lo = Bin(Op::kAnd, w, mask);
    const NodePtr hi =
        Bin(Op::kAnd,
            Bin(Op::kDivide, Bin(Op::kSubtract, w, lo), IntConstant(int64_t{1} << 32, dims)), mask);
    const NodePtr k = Bin(Op::kAdd, Bin(Op::kMultiply, hi, IntConstant(int64_t{1} << 21, dims)),
                          Bin(Op::kDivide, lo, IntConstant(int64_t{1} << 11, dims)));
    return Bin(Op::kMultiply, Convert(k, DType::kF64),
               BroadcastTo(ConstantNode(ScalarLiteral(DType::kF64, 0x1p-53)), dims));
  }
  // f32: the top 24 bits of each 32-bit word; bf16: the top 8 (then exact in bf16).
  const bool bf16 = dtype == DType::kBF16;
  const NodePtr w = Convert(DrawBits(DType::kS32, dims), DType::kS64);
  const NodePtr u = Bin(Op::kAnd, w, IntConstant(0xFFFFFFFF, dims));
  const NodePtr k = Bin(Op::kDivide, u, IntConstant(bf16 ? int64_t{1} << 24 : 256, dims));
  const NodePtr scale =
      BroadcastTo(ConstantNode(ScalarLiteral(DType::kF32, bf16 ? 0x1p-8 : 0x1p-24)), dims);
  const NodePtr f = Bin(Op::kMultiply, Convert(k, DType::kF32), scale);
  return bf16 ? Convert(f, DType::kBF16) : f;
}

}  // namespace lazy

void manual_seed(uint64_t seed) {
  lazy::Generator& g = lazy::Default();
  std::lock_guard<std::mutex> lock(g.mu);
  lazy::Seed(g, seed);
}

Tensor rand(const std::vector<int64_t>& shape, DType dtype) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kBFloat16) {
    lazy::ThrowInvalid(absl::StrCat("rand: dtype ", dtype_name(dtype),
                                    " is not a float dtype (float32, float64 or bfloat16)"));
  }
  for (int64_t d : shape) {
    if (d < 0) {
      lazy::ThrowInvalid(absl::StrCat("rand: shape has a negative dimension ", d));
    }
  }
  return lazy::Wrap(lazy::UniformFromBits(lazy::ToIr(dtype), shape));
}

}  // namespace seam
