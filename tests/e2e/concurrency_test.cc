// Threads using seam at once (docs/frontend.md, "Threads"): each trains its own model with
// seam::sync(), reads values back, runs eager ops and compiled steps, on 2 and 4 threads,
// and every value matches the same arithmetic done on the host. Also built with
// ThreadSanitizer (tests/CMakeLists.txt, the tsan pass of `make test`), where any data
// race fails the test. Each TEST runs in its own process.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "seam/compile.h"
#include "seam/tensor.h"
#include "src/base/sanitizers.h"

namespace seam {
namespace {

// Fewer rounds under ThreadSanitizer, which runs everything several times slower.
constexpr int kRounds = SEAM_TSAN ? 40 : 150;

// Runs body(t) on `threads` threads at once; a seam::Error or a wrong value in any thread
// is recorded and reported (a thread must not throw out of std::thread).
void OnThreads(int threads, const std::function<void(int)>& body) {
  std::vector<std::string> failures(static_cast<size_t>(threads));
  std::vector<std::thread> running;
  std::atomic<int> ready{0};
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();  // start together
      try {
        body(t);
      } catch (const std::exception& e) {
        failures[static_cast<size_t>(t)] = e.what();
      }
    });
  }
  for (std::thread& thread : running) thread.join();
  for (int t = 0; t < threads; ++t) {
    EXPECT_EQ(failures[static_cast<size_t>(t)], "") << "thread " << t;
  }
}

void Check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

bool Near(float a, float b) { return std::fabs(a - b) <= 1e-5f * (1.0f + std::fabs(b)); }

// w <- w * 0.5 + c (donating w's buffer each step), with host reads every few steps.
void TrainWithSync(int t) {
  const float c = static_cast<float>(t + 1);
  std::vector<float> host = {1.0f * c, 2.0f, -3.0f};
  Tensor w = Tensor::from_vector(host, {3});
  for (int i = 0; i < kRounds; ++i) {
    w.assign(w * 0.5f + c);
    sync();
    for (float& v : host) v = v * 0.5f + c;
    if (i % 7 == 0) {
      std::vector<float> got = w.to_vector<float>();
      for (size_t k = 0; k < host.size(); ++k) {
        Check(Near(got[k], host[k]), "step " + std::to_string(i) + ": w[" + std::to_string(k) +
                                         "] is " + std::to_string(got[k]) + ", expected " +
                                         std::to_string(host[k]));
      }
    }
  }
}

// A linear model fit by gradient descent: grad needs the loss's graph intact at the
// moment it is called, whatever other threads sync meanwhile.
void TrainWithGrad(int t) {
  Tensor x = Tensor::from_vector({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {3, 2});
  Tensor y = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3, 1});
  Tensor w = Tensor::from_vector({0.1f * static_cast<float>(t), 0.0f}, {2, 1});
  float first = 0, last = 0;
  for (int i = 0; i < kRounds / 3; ++i) {
    Tensor diff = x.matmul(w) - y;
    Tensor loss = (diff * diff).mean();
    std::vector<Tensor> g = grad(loss, {w});
    w.assign(w - g[0] * 0.01f);
    sync();
    last = loss.item<float>();
    if (i == 0) first = last;
  }
  Check(last < first,
        "the loss did not go down: " + std::to_string(first) + " -> " + std::to_string(last));
}

// A compiled step per thread: w <- w * 0.5 + input.
void TrainCompiled(int t) {
  const float c = static_cast<float>(t + 1);
  Tensor w = Tensor::from_vector({c, 0.0f}, {2});
  CompiledStep step = compile([&w](const std::vector<Tensor>& inputs) {
    w.assign(w * 0.5f + inputs[0]);
    return std::vector<Tensor>{w.sum()};
  });
  std::vector<float> host = {c, 0.0f};
  Tensor input = Tensor::from_vector({c, c}, {2});
  for (int i = 0; i < kRounds; ++i) {
    std::vector<Tensor> out = step({input});
    for (float& v : host) v = v * 0.5f + c;
    if (i % 5 == 0) {
      float got = out[0].item<float>();
      Check(Near(got, host[0] + host[1]), "compiled step " + std::to_string(i) + ": sum " +
                                              std::to_string(got) + ", expected " +
                                              std::to_string(host[0] + host[1]));
    }
  }
  Check(step.replayed_calls() > 0, "the compiled step never replayed: " + step.last_reason());
}

// Eager ops, each run at once, with the results read back.
void EagerOps(int t) {
  Tensor a = Tensor::from_vector({1.0f, 2.0f, static_cast<float>(t)}, {3});
  for (int i = 0; i < kRounds; ++i) {
    Tensor b = a * 2.0f + 1.0f;
    a = b - 1.0f;
    a = a * 0.5f;  // back to the same values
    if (i % 9 == 0) {
      std::vector<float> got = a.to_vector<float>();
      Check(Near(got[0], 1.0f) && Near(got[1], 2.0f) && Near(got[2], static_cast<float>(t)),
            "eager op " + std::to_string(i) + " gave " + std::to_string(got[0]));
    }
  }
  sync();
}

// A model shared by every thread, read and never written: each thread's steps read it
// while the others donate their own buffers.
void SharedReadOnly(const Tensor& shared, int t) {
  Tensor mine = Tensor::from_vector({static_cast<float>(t), 0.0f}, {2});
  for (int i = 0; i < kRounds; ++i) {
    mine.assign(mine * 0.5f + shared);
    sync();
  }
  std::vector<float> got = mine.to_vector<float>();
  std::vector<float> base = shared.to_vector<float>();
  Check(Near(got[0], 2.0f * base[0]) && Near(got[1], 2.0f * base[1]),
        "shared model: got " + std::to_string(got[0]) + ", " + std::to_string(got[1]));
}

class ConcurrencyTest : public ::testing::TestWithParam<int> {};

TEST_P(ConcurrencyTest, EachThreadTrainsItsOwnModelWithSync) {
  OnThreads(GetParam(), TrainWithSync);
}

TEST_P(ConcurrencyTest, GradientsWhileOtherThreadsSync) { OnThreads(GetParam(), TrainWithGrad); }

TEST_P(ConcurrencyTest, CompiledStepsOnEveryThread) { OnThreads(GetParam(), TrainCompiled); }

TEST_P(ConcurrencyTest, EagerOpsOnEveryThread) {
  set_eager(true);
  OnThreads(GetParam(), EagerOps);
  set_eager(false);
}

TEST_P(ConcurrencyTest, AModelSharedReadOnly) {
  Tensor shared = Tensor::from_vector({1.0f, -2.0f}, {2});
  sync();
  OnThreads(GetParam(), [&](int t) { SharedReadOnly(shared, t); });
}

TEST_P(ConcurrencyTest, EverythingAtOnce) {
  OnThreads(GetParam(), [](int t) {
    switch (t % 3) {
      case 0:
        TrainWithSync(t);
        break;
      case 1:
        TrainWithGrad(t);
        break;
      default:
        TrainCompiled(t);
        break;
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Threads, ConcurrencyTest, ::testing::Values(2, 4),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "Threads";
                         });

}  // namespace
}  // namespace seam
