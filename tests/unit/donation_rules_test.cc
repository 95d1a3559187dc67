// The donation rules (lazy::MayDonate, src/lazy/donation.h) on their own: the one function
// the step barrier (PlanDonations) and a compiled step's replay both ask. Each case builds
// the owners the rule counts by hand: the step's parameter list, the leaf, and the leaf's
// owners in the step (the barrier: operand edges of the program; a replay: the tensor
// handles its result is assigned to).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "src/lazy/donation.h"
#include "src/lazy/lazy_tensor.h"
#include "tests/unit/fake_client.h"

namespace seam::lazy {
namespace {

class DonationRulesTest : public ::testing::Test {
 protected:
  // A value of f32[2] on the (fake) device, its device handle owned by the value alone.
  std::shared_ptr<DeviceValue> DeviceOnly() {
    const std::vector<float> data = {1.0f, 2.0f};
    auto value = NewDeviceValue();
    value->shape = ir::Shape{ir::DType::kF32, {2}};
    runtime::ComputationClient::TensorSource source{value->shape, data.data(),
                                                    client_.GetDefaultDevice()};
    auto sent = client_.TransferToDevice({source});
    EXPECT_TRUE(sent.ok()) << sent.status();
    value->device = std::move(sent->front());
    return value;
  }
  // A value of f32[2] that is on the host only (never sent).
  static std::shared_ptr<DeviceValue> HostOnly() {
    auto value = NewDeviceValue();
    value->shape = ir::Shape{ir::DType::kF32, {2}};
    value->host = ir::Literal::FromF32({1.0f, 2.0f}, {2});
    return value;
  }

  fake::FakeClient client_;
};

// The barrier's case: the leaf's owners in the step are the operand edges reading it.
TEST_F(DonationRulesTest, BarrierDonatesWhenOnlyTheProgramsEdgesHoldTheLeaf) {
  for (bool on_device : {true, false}) {
    std::shared_ptr<DeviceValue> value = on_device ? DeviceOnly() : HostOnly();
    std::vector<std::shared_ptr<DeviceValue>> parameters = {value};  // the walk's leaves
    NodePtr leaf = MakeLeaf(std::move(value));
    std::vector<NodePtr> edges = {leaf, leaf};  // two operands of the program read it
    NodePtr held = leaf;                        // the caller's reference
    leaf.reset();
    const std::shared_ptr<DeviceValue>& v = held->value;
    EXPECT_TRUE(MayDonate(v, held, 2)) << "on device: " << on_device;
    EXPECT_FALSE(MayDonate(v, held, 1)) << "an owner outside the step (one edge counted)";
    NodePtr other_graph = held;  // a graph outside the step keeps the leaf
    EXPECT_FALSE(MayDonate(v, held, 2));
    other_graph.reset();
    std::shared_ptr<DeviceValue> copy = v;  // another tensor holds the value
    EXPECT_FALSE(MayDonate(v, held, 2));
    copy.reset();
    EXPECT_TRUE(MayDonate(v, held, 2));
    v->donated = true;
    EXPECT_FALSE(MayDonate(v, held, 2)) << "a donated buffer is never donated again";
  }
}

TEST_F(DonationRulesTest, SharedDeviceBufferOrNoDataIsNeverDonated) {
  std::shared_ptr<DeviceValue> value = DeviceOnly();
  std::vector<std::shared_ptr<DeviceValue>> parameters = {value};
  NodePtr leaf = MakeLeaf(value);
  value.reset();
  EXPECT_TRUE(MayDonate(leaf->value, leaf, 0));
  runtime::ComputationClient::DataPtr alias = leaf->value->device;  // a second buffer owner
  EXPECT_FALSE(MayDonate(leaf->value, leaf, 0));
  leaf->value->buffer_donor = true;
  EXPECT_FALSE(MayDonate(leaf->value, leaf, 0)) << "buffer_donor never shares a buffer";
  alias.reset();
  leaf->value->device.reset();  // neither on the device nor on the host
  EXPECT_FALSE(MayDonate(leaf->value, leaf, 0));
}

// A replay's case: the leaf's owners in the step are the handles of the result.
TEST_F(DonationRulesTest, ReplayDonatesWhenOnlyTheResultsHandlesHoldTheLeaf) {
  std::shared_ptr<DeviceValue> value = DeviceOnly();
  std::vector<std::shared_ptr<DeviceValue>> arguments = {value};  // the replay's parameters
  NodePtr leaf = MakeLeaf(std::move(value));
  auto first = std::make_shared<TensorImpl>(leaf);
  auto second = std::make_shared<TensorImpl>(leaf);  // two handles assigned the result
  NodePtr held = first->node();
  leaf.reset();
  EXPECT_TRUE(MayDonate(arguments[0], held, 2));
  EXPECT_FALSE(MayDonate(arguments[0], held, 1)) << "a handle the capture does not know";
  second.reset();
  EXPECT_TRUE(MayDonate(arguments[0], held, 1));
  // No handle to find the leaf through: refused, unless the user marked the value.
  EXPECT_FALSE(MayDonate(arguments[0], nullptr, 0));
  arguments[0]->buffer_donor = true;
  EXPECT_TRUE(MayDonate(arguments[0], nullptr, 0));
}

TEST_F(DonationRulesTest, BufferDonorSkipsTheOwnershipChecksOnly) {
  std::shared_ptr<DeviceValue> value = DeviceOnly();
  NodePtr leaf = MakeLeaf(value);
  std::vector<NodePtr> outside = {leaf, leaf, leaf};  // held far beyond the step
  EXPECT_FALSE(MayDonate(value, leaf, 0));
  value->buffer_donor = true;
  EXPECT_TRUE(MayDonate(value, leaf, 0));
  value->donated = true;
  EXPECT_FALSE(MayDonate(value, leaf, 0));
}

}  // namespace
}  // namespace seam::lazy
