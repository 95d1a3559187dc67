// The step planner (src/lazy/step_plan.h) seen through its two users: seam::pending_ir_text
// prints the program that the step barrier then compiles, donations and replicas included,
// over a counting fake client (tests/unit/fake_client.h) with a lazy::Runtime of its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "seam/distributed.h"
#include "seam/tensor.h"
#include "src/ir/text.h"
#include "src/lazy/runtime.h"
#include "tests/unit/fake_client.h"

namespace seam {
namespace {

class LazyStepPlanTest : public ::testing::Test {
 protected:
  // The text of the one program the barrier compiled since `before` programs.
  std::string CompiledSince(size_t before) {
    std::vector<ir::Program> compiled = client_.compiled();
    EXPECT_EQ(compiled.size(), before + 1);
    return compiled.empty() ? "" : ir::PrintProgram(compiled.back());
  }

  fake::FakeClient client_;
  lazy::Runtime runtime_{&client_};
  lazy::ScopedRuntime scoped_{runtime_};
};

TEST_F(LazyStepPlanTest, PendingIrTextIsWhatTheBarrierCompilesWithItsDonations) {
  Tensor w = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  Tensor x = Tensor::from_vector({0.5f, 0.5f, 0.5f}, {3});
  Tensor y = (w * x).exp();
  sync();  // w and x are on the device now
  for (int step = 0; step < 2; ++step) {
    w.assign(w - x * 0.25f);  // w's old buffer may be donated: nothing else holds it
    const std::string text = pending_ir_text({w});
    const size_t before = client_.compiled().size();
    sync();
    if (step == 0) {
      ASSERT_EQ(client_.compiled().size(), before + 1);
      ir::Program compiled = client_.compiled().back();
      EXPECT_EQ(compiled.aliases.size(), 1u) << text;
      EXPECT_EQ(ir::PrintProgram(compiled), text);
    } else {
      EXPECT_EQ(client_.compiled().size(), before);  // the same program, from the cache
      EXPECT_EQ(ir::PrintProgram(client_.compiled().back()), text);
    }
  }
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{0.75f, 1.75f, 2.75f}));
}

TEST_F(LazyStepPlanTest, PendingIrTextPlansNoDonationAKeptCopyForbids) {
  Tensor w = Tensor::from_vector({1.0f, 2.0f}, {2});
  Tensor y = w * 2.0f;
  sync();
  Tensor kept = w;  // a user's copy of w's value: w's buffer cannot be given away
  w.assign(w + 1.0f);
  const std::string text = pending_ir_text({w});
  const size_t before = client_.compiled().size();
  sync();
  EXPECT_EQ(CompiledSince(before), text);
  EXPECT_TRUE(client_.compiled().back().aliases.empty()) << text;
  EXPECT_EQ(kept.to_vector<float>(), (std::vector<float>{1.0f, 2.0f}));
}

TEST_F(LazyStepPlanTest, PendingIrTextOfAReplicatedStepIsWhatTheBarrierCompiles) {
  DataParallel dp(2);
  Tensor x = dp.shard(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}, {4});
  Tensor total = dp.mean(x.sum());
  const std::string text = pending_ir_text({total});
  const size_t before = client_.compiled().size();
  sync();
  EXPECT_EQ(CompiledSince(before), text);
  EXPECT_EQ(client_.compiled().back().replica_count, 2);
}

}  // namespace
}  // namespace seam
