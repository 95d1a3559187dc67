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
  // The host draws' seed sequence (next_init_seed): manual_seed's seed and the draws since.
  uint64_t init_seed = kDefaultSeed;
  uint64_t init_count = 0;
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

NodePtr Bin(ir::Op op, const NodePtr& a, const NodePtr& b) { return MakeNode(op, {a, b}, {}); }

}  // namespace

NodePtr DrawBits(ir::DType dtype, Ints dims) {
  Generator& g = Default();
  std::lock_guard<std::mutex> lock(g.mu);
  if (!g.key.defined()) Seed(g, kDefaultSeed);
  const NodePtr key = NodeOf(g.key, "rand");
  const NodePtr counter = NodeOf(g.counter, "rand");
  NodePtr bits = MakeNode(ir::Op::kRngBitGenerator, {key, counter}, {}, MakeShape(dtype, dims));
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
  // The top m bits of each word (m = 24 for f32, 8 for bf16, 53 for f64) as k * 2^-m: the
  // word with its other bits cleared, read as a signed integer v (exact in the float type:
  // at most m significant bits), times 2^-bits gives v / 2^bits in [-1/2, 1/2), and adding
  // 1 to the negative ones gives the unsigned word's value (exact too). Elementwise and
  // without division, so it fuses into one loop.
  const bool wide = dtype == DType::kF64;
  const DType word = wide ? DType::kS64 : DType::kS32;
  const DType compute = wide ? DType::kF64 : DType::kF32;
  const int64_t keep_mask = wide                    ? ~int64_t{0x7FF}
                            : dtype == DType::kBF16 ? -(int64_t{1} << 24)
                                                    : -256;
  const NodePtr bits = DrawBits(word, dims);
  const NodePtr mask = BroadcastTo(ConstantNode(FullIntLiteral(word, {}, keep_mask)), dims);
  auto constant = [&](double v) {
    return BroadcastTo(ConstantNode(ScalarLiteral(compute, v)), dims);
  };
  const NodePtr half = Bin(Op::kMultiply, Convert(Bin(Op::kAnd, bits, mask), compute),
                           constant(wide ? 0x1p-64 : 0x1p-32));
  const NodePtr negative = Bin(Op::kLt, half, constant(0));
  const NodePtr u = Select(negative, Bin(Op::kAdd, half, constant(1)), half);
  return dtype == DType::kBF16 ? Convert(u, DType::kBF16) : u;
}

}  // namespace lazy

void manual_seed(uint64_t seed) {
  lazy::Generator& g = lazy::Default();
  std::lock_guard<std::mutex> lock(g.mu);
  lazy::Seed(g, seed);
  g.init_seed = seed;
  g.init_count = 0;
}

uint64_t next_init_seed() {
  lazy::Generator& g = lazy::Default();
  std::lock_guard<std::mutex> lock(g.mu);
  // splitmix64's output function over seed + count * its increment: neighbouring counts
  // (and neighbouring seeds) give unrelated generator seeds.
  uint64_t z = g.init_seed + ++g.init_count * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
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
