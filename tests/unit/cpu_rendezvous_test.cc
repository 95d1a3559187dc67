// The CPU plugin's all_reduce rendezvous: reductions in group order, and release on abort.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "src/plugins/cpu/collectives/collectives.h"

namespace seam::cpu {
namespace {

TEST(RendezvousTest, EveryMemberGetsTheGroupsSum) {
  Rendezvous rendezvous;
  std::vector<std::vector<float>> in = {{1, 2}, {3, 4}, {5, 6}};
  std::vector<std::vector<float>> out(3, std::vector<float>(2));
  std::vector<absl::Status> status(3);
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      status[r] = rendezvous.AllReduce(1, ir::Op::kAllReduceSum, ir::DType::kF32, {2, 0, 1}, r,
                                       reinterpret_cast<const uint8_t*>(in[r].data()),
                                       reinterpret_cast<uint8_t*>(out[r].data()), 2);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < 3; ++r) {
    EXPECT_TRUE(status[r].ok()) << status[r];
    EXPECT_EQ(out[r], (std::vector<float>{9, 12}));
  }
}

// Every all_reduce row of ops.def folds with its own combiner: 3, -2, 5 and 1 have a sum,
// a product, a maximum and a minimum that all differ.
TEST(RendezvousTest, EveryAllReduceFoldsWithItsOwnCombiner) {
  const std::vector<float> values = {3, -2, 5, 1};
  int rows = 0;
  for (int i = 0; i < ir::kNumOps; ++i) {
    const auto op = static_cast<ir::Op>(i);
    if (!ir::IsAllReduce(op)) continue;
    ++rows;
    float expected = 0;
    switch (ir::ReductionOf(op)) {
      case ir::Combiner::kSum:
        expected = 7;
        break;
      case ir::Combiner::kProduct:
        expected = -30;
        break;
      case ir::Combiner::kMax:
        expected = 5;
        break;
      case ir::Combiner::kMin:
        expected = -2;
        break;
      case ir::Combiner::kNone:
        ADD_FAILURE() << ir::OpName(op) << " has no combiner";
        break;
    }
    Rendezvous rendezvous;
    std::vector<float> out(values.size());
    std::vector<absl::Status> status(values.size());
    std::vector<std::thread> threads;
    for (int r = 0; r < static_cast<int>(values.size()); ++r) {
      threads.emplace_back([&, r] {
        status[r] = rendezvous.AllReduce(1, op, ir::DType::kF32, {0, 1, 2, 3}, r,
                                         reinterpret_cast<const uint8_t*>(&values[r]),
                                         reinterpret_cast<uint8_t*>(&out[r]), 1);
      });
    }
    for (std::thread& t : threads) t.join();
    for (size_t r = 0; r < values.size(); ++r) {
      EXPECT_TRUE(status[r].ok()) << status[r];
      EXPECT_EQ(out[r], expected) << ir::OpName(op) << ", replica " << r;
    }
  }
  EXPECT_GE(rows, 3);
}

TEST(RendezvousTest, AbortReleasesTheWaitingReplicas) {
  Rendezvous rendezvous;
  std::vector<float> in = {1, 2};
  std::vector<std::vector<float>> out(3, std::vector<float>(2));
  std::vector<absl::Status> status(3);
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    threads.emplace_back([&, r] {
      status[r] = rendezvous.AllReduce(4, ir::Op::kAllReduceMax, ir::DType::kF32, {0, 1, 2, 3}, r,
                                       reinterpret_cast<const uint8_t*>(in.data()),
                                       reinterpret_cast<uint8_t*>(out[r].data()), 2);
    });
  }
  // Replica 3 fails before it reaches the all_reduce.
  rendezvous.Abort(3, absl::InternalError("replica 3 failed: boom"));
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(status[r].code(), absl::StatusCode::kInternal);
    EXPECT_EQ(status[r].message(),
              "%4 (all_reduce_max): the launch was aborted: replica 3 failed: boom");
  }
  // A replica arriving after the abort at a group with the failed replica is refused at once.
  absl::Status late = rendezvous.AllReduce(6, ir::Op::kAllReduceSum, ir::DType::kF32, {3, 0}, 0,
                                           reinterpret_cast<const uint8_t*>(in.data()),
                                           reinterpret_cast<uint8_t*>(out[0].data()), 2);
  EXPECT_EQ(late.code(), absl::StatusCode::kInternal);
}

TEST(RendezvousTest, GroupOfFindsTheReplicasGroup) {
  ir::Instruction inst;
  inst.op = ir::Op::kAllReduceSum;
  inst.attrs = {{"replica_groups", {0, 2, 1, 3}}, {"group_size", {2}}};
  EXPECT_EQ(GroupOf(inst, 2), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(GroupOf(inst, 3), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(GroupOf(inst, 7).empty());
}

}  // namespace
}  // namespace seam::cpu
