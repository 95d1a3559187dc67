// seam::manual_seed, seam::rand and nn::dropout through the public API: the bits against a
// Philox4x32-10 written here from the algorithm (so the documented element mapping and
// float conversion are checked, at the thread count SEAM_TEST_CPU_THREADS sets: the test
// runs once with 1 and once with 2), eager against lazy, fresh numbers every step without a
// recompile, dropout's statistics, scale and gradient, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "error_of.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/tensor.h"

namespace seam {
namespace {

// Before any test starts the client (the kernel pool reads it once).
[[maybe_unused]] const bool kThreadsSet = setenv("SEAM_CPU_THREADS", SEAM_TEST_CPU_THREADS, 1) == 0;

// Philox4x32-10 from Salmon et al. 2011: ten rounds, multipliers 0xD2511F53 and 0xCD9E8D57,
// key bumped by 0x9E3779B9 and 0xBB67AE85 between rounds.
struct Philox {
  uint32_t key[2];
  void Block(uint64_t counter_low, uint32_t out[4]) const {
    uint32_t x[4] = {static_cast<uint32_t>(counter_low), static_cast<uint32_t>(counter_low >> 32),
                     0, 0};
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; ++r) {
      const uint64_t a = uint64_t{0xD2511F53} * x[0];
      const uint64_t b = uint64_t{0xCD9E8D57} * x[2];
      const uint32_t y0 = static_cast<uint32_t>(b >> 32) ^ x[1] ^ k0;
      const uint32_t y2 = static_cast<uint32_t>(a >> 32) ^ x[3] ^ k1;
      x[1] = static_cast<uint32_t>(b);
      x[3] = static_cast<uint32_t>(a);
      x[0] = y0;
      x[2] = y2;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    std::memcpy(out, x, sizeof(x));
  }
  // The 32-bit word `e` of the stream that starts at block `first`.
  uint32_t Word(uint64_t first, int64_t e) const {
    uint32_t w[4];
    Block(first + static_cast<uint64_t>(e / 4), w);
    return w[e % 4];
  }
  uint64_t Word64(uint64_t first, int64_t e) const {
    uint32_t w[4];
    Block(first + static_cast<uint64_t>(e / 2), w);
    const int j = static_cast<int>(e % 2) * 2;
    return w[j] | uint64_t{w[j + 1]} << 32;
  }
};

Philox FromSeed(uint64_t seed) {
  return {{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}};
}

TEST(RandomTest, RandIsThePhiloxStreamInDocumentedOrder) {
  manual_seed(0x123456789abcdefull);
  const Philox philox = FromSeed(0x123456789abcdefull);
  // 210000 words (blocks 0..52499): split between threads when there are 2.
  Tensor a = rand({300, 700});
  Tensor b = rand({5}, DType::kFloat64);   // 5 64-bit words: blocks 52500..52502
  Tensor c = rand({9}, DType::kBFloat16);  // blocks 52503..52505
  Tensor d = rand({3});                    // block 52506
  sync();
  const std::vector<float> av = a.to_vector<float>();
  ASSERT_EQ(av.size(), 210000u);
  for (int64_t e = 0; e < 210000; ++e) {
    const float expected = static_cast<float>(philox.Word(0, e) >> 8) * 0x1p-24f;
    ASSERT_EQ(av[e], expected) << "element " << e;
  }
  const std::vector<double> bv = b.to_vector<double>();
  for (int64_t e = 0; e < 5; ++e) {
    EXPECT_EQ(bv[e], static_cast<double>(philox.Word64(52500, e) >> 11) * 0x1p-53) << e;
  }
  const std::vector<float> cv = c.to_vector<float>();
  for (int64_t e = 0; e < 9; ++e) {
    EXPECT_EQ(cv[e], static_cast<float>(philox.Word(52503, e) >> 24) * 0x1p-8f) << e;
  }
  const std::vector<float> dv = d.to_vector<float>();
  for (int64_t e = 0; e < 3; ++e) {
    EXPECT_EQ(dv[e], static_cast<float>(philox.Word(52506, e) >> 8) * 0x1p-24f) << e;
  }
}

std::vector<float> DrawSequence(uint64_t seed) {
  manual_seed(seed);
  Tensor x = rand({33});
  Tensor y = nn::dropout(Tensor::ones({4, 50}), 0.25, true);
  Tensor z = rand({2, 2}, DType::kFloat64).to(DType::kFloat32);
  std::vector<float> out = x.to_vector<float>();
  for (const Tensor& t : {y, z}) {
    const std::vector<float> v = t.to_vector<float>();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

TEST(RandomTest, SameSeedSameBitsInEagerAndLazyMode) {
  const std::vector<float> lazy1 = DrawSequence(42);
  const std::vector<float> lazy2 = DrawSequence(42);
  set_eager(true);
  const std::vector<float> eager = DrawSequence(42);
  set_eager(false);
  EXPECT_EQ(lazy1, lazy2);
  EXPECT_EQ(lazy1, eager);
  EXPECT_NE(DrawSequence(43), lazy1);
}

TEST(RandomTest, EachStepDrawsFreshNumbersWithoutRecompiling) {
  manual_seed(5);
  Tensor w = Tensor::ones({8, 16});
  std::vector<std::vector<float>> seen;
  int64_t compiles_after_second = -1;
  for (int step = 0; step < 6; ++step) {
    Tensor noise = rand({8, 16});
    Tensor y = nn::dropout(w, 0.5, true) + noise;
    Tensor total = y.sum();
    sync();
    seen.push_back(y.to_vector<float>());
    total.item<float>();
    // The first step's counter is host data, later steps' the previous step's output: the
    // program is the same from the second step on.
    if (step == 1) {
      compiles_after_second = metrics::CounterValue("UncachedCompile");
      EXPECT_GT(compiles_after_second, 0);
    }
    if (step > 1) {
      EXPECT_EQ(metrics::CounterValue("UncachedCompile"), compiles_after_second) << "step " << step;
    }
  }
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_NE(seen[i], seen[i - 1]) << "step " << i;
}

TEST(RandomTest, DropoutZeroesAboutPAndScalesTheRest) {
  manual_seed(11);
  const int64_t n = 200000;
  const double p = 0.3;
  const std::vector<float> y = nn::dropout(Tensor::ones({n}), p, true).to_vector<float>();
  int64_t zeros = 0;
  const float scale = static_cast<float>(1.0 / (1.0 - p));
  for (float v : y) {
    if (v == 0) {
      ++zeros;
    } else {
      ASSERT_EQ(v, scale);
    }
  }
  // Zeros ~ Binomial(n, p): standard deviation sqrt(p (1 - p) / n) = 0.00102 of the
  // fraction; 0.0065 is over 6 of them (a false failure about once in 10^9 seeds).
  EXPECT_NEAR(static_cast<double>(zeros) / n, p, 0.0065);
  // Identity when not training or p == 0.
  Tensor x = rand({10});
  EXPECT_EQ(nn::dropout(x, p, false).to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(nn::dropout(x, 0.0, true).to_vector<float>(), x.to_vector<float>());
  nn::Dropout module(0.9);
  EXPECT_NE(module.forward(Tensor::ones({64})).to_vector<float>(), std::vector<float>(64, 1.0f));
  module.eval();
  EXPECT_EQ(module.forward(Tensor::ones({64})).to_vector<float>(), std::vector<float>(64, 1.0f));
}

TEST(RandomTest, DropoutGradientIsTheMaskTimesTheScale) {
  manual_seed(21);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> dist(0.5, 2);
  std::vector<double> xs(500), ws(500);
  for (double& v : xs) v = dist(rng);
  for (double& v : ws) v = dist(rng);
  Tensor x = Tensor::from_vector(xs, {500});
  Tensor y = nn::dropout(x, 0.4, true);
  Tensor g = grad((y * Tensor::from_vector(ws, {500})).sum(), {x})[0];
  const std::vector<double> yv = y.to_vector<double>(), gv = g.to_vector<double>();
  const double scale = 1.0 / 0.6;
  int kept = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (yv[i] == 0) {
      EXPECT_EQ(gv[i], 0) << i;
    } else {
      ++kept;
      EXPECT_EQ(yv[i], xs[i] * scale) << i;
      EXPECT_EQ(gv[i], ws[i] * scale) << i;
    }
  }
  EXPECT_GT(kept, 200);
  EXPECT_LT(kept, 400);
}

TEST(RandomTest, Errors) {
  Tensor x = Tensor::ones({3});
  EXPECT_EQ(ErrorOf([&] { nn::dropout(x, 1.0, true); }),
            "dropout: p=1 is outside [0, 1) (the probability of zeroing an element)");
  EXPECT_EQ(ErrorOf([&] { nn::dropout(x, -0.5, false); }),
            "dropout: p=-0.5 is outside [0, 1) (the probability of zeroing an element)");
  EXPECT_EQ(ErrorOf([&] { nn::Dropout(1.5); }),
            "Dropout: p=1.5 is outside [0, 1) (the probability of zeroing an element)");
  EXPECT_EQ(ErrorOf([&] { nn::dropout(Tensor::ones({3}, DType::kInt32), 0.5, true); }),
            "dropout: needs a float tensor, got int32");
  EXPECT_EQ(ErrorOf([&] { rand({2}, DType::kInt64); }),
            "rand: dtype int64 is not a float dtype (float32, float64 or bfloat16)");
  EXPECT_EQ(ErrorOf([&] { rand({2, -1}); }), "rand: shape has a negative dimension -1");
}

}  // namespace
}  // namespace seam
