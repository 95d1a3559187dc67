// Donation at the step barrier: an optimizer step overwrites every parameter and state
// tensor in place, so each sync gives their old device buffers to the program as
// input/output aliases. Observables: the InputOutputAliasCount counter, and the address
// of each tensor's device memory in the in-process CPU plugin (a donated buffer's memory
// becomes the new value's, so no new parameter buffer is allocated).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>

#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/lazy/graph_executor.h"
#include "src/lazy/tensor_internal.h"
#include "src/plugins/cpu/api/testing_hooks.h"

namespace seam {
namespace {

int64_t Aliases() { return metrics::CounterValue("InputOutputAliasCount"); }

// Where the tensor's value lives in the CPU plugin (the tensor must be synced and ready).
const void* Address(const Tensor& t) {
  lazy::NodePtr node = TensorAccess::Impl(t, "Address")->node();
  EXPECT_TRUE(node->is_leaf() && node->value->device != nullptr);
  if (!node->is_leaf() || node->value->device == nullptr) return nullptr;
  // A run's outputs become ready one after the other: wait for this one.
  while (!node->value->device->IsReady()) std::this_thread::yield();
  return cpu::testing::BufferDataAddress(
      static_cast<const PJRT_Buffer*>(node->value->device->native_handle()));
}

std::vector<const Tensor*> Updated(nn::Mlp& model, const optim::Optimizer& opt) {
  std::vector<Tensor*> params = model.parameters();
  std::vector<const Tensor*> all(params.begin(), params.end());
  for (const Tensor* s : opt.state()) all.push_back(s);
  return all;
}

std::vector<const void*> Addresses(const std::vector<const Tensor*>& tensors) {
  std::vector<const void*> out;
  for (const Tensor* t : tensors) out.push_back(Address(*t));
  return out;
}

// Forward, loss, gradients, update; one sync; the loss is read after the sync (so every
// run has finished when this returns).
float Step(nn::Mlp& model, optim::Optimizer& opt, int64_t batch, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0, 1);
  std::vector<float> xs(static_cast<size_t>(batch * 6));
  std::vector<int32_t> ys(static_cast<size_t>(batch));
  for (float& x : xs) x = dist(rng);
  for (int64_t i = 0; i < batch; ++i) ys[i] = xs[i * 6] > xs[i * 6 + 1] ? 1 : 0;
  Tensor loss = nn::cross_entropy(model.forward(Tensor::from_vector(xs, {batch, 6})),
                                  Tensor::from_vector(ys, {batch}));
  opt.step(loss);
  sync();
  return loss.item<float>();
}

void ExpectDonatingSteps(nn::Mlp& model, optim::Optimizer& opt, int64_t expected_per_step) {
  Step(model, opt, 16, 1);  // warm-up: compiles, creates the optimizer state
  std::vector<const Tensor*> updated = Updated(model, opt);
  ASSERT_EQ(static_cast<int64_t>(updated.size()), expected_per_step);
  for (int i = 0; i < 3; ++i) {
    std::vector<const void*> before = Addresses(updated);
    int64_t aliases = Aliases();
    int64_t compiles = metrics::CounterValue("UncachedCompile");
    Step(model, opt, 16, 2 + i);
    EXPECT_EQ(Aliases() - aliases, expected_per_step) << "step " << i;
    EXPECT_EQ(metrics::CounterValue("UncachedCompile"), compiles) << "step " << i;
    // Every parameter and state now lives in the memory its old value had.
    EXPECT_EQ(Addresses(updated), before) << "step " << i;
  }
}

TEST(StepDonationTest, SgdMomentumDonatesEveryParameterAndVelocity) {
  nn::Mlp model({6, 8, 2}, 1);
  optim::Sgd opt(model.parameters(), 0.1f, 0.9f);
  ExpectDonatingSteps(model, opt, 4 + 4);
}

TEST(StepDonationTest, AdamDonatesEveryParameterAndBothMoments) {
  nn::Mlp model({6, 8, 2}, 2);
  optim::Adam opt(model.parameters(), 1e-2f);
  ExpectDonatingSteps(model, opt, 4 + 8);
}

TEST(StepDonationTest, KeptCopyBlocksDonationOfThatTensorOnly) {
  nn::Mlp model({6, 8, 2}, 3);
  optim::Sgd opt(model.parameters(), 0.1f, 0.9f);
  Step(model, opt, 16, 1);
  Tensor kept = *model.parameters()[0];  // a user's copy of the first weight
  std::vector<float> kept_values = kept.to_vector<float>();
  const void* kept_memory = Address(kept);
  int64_t aliases = Aliases();
  int64_t compiles = metrics::CounterValue("UncachedCompile");
  Step(model, opt, 16, 2);
  EXPECT_EQ(Aliases() - aliases, 7);
  // Donation is part of the program, so of its compile-cache key: 7 aliases, not 8, is
  // another program.
  EXPECT_EQ(metrics::CounterValue("UncachedCompile") - compiles, 1);
  // The copy still reads the value from before the step; the weight moved to new memory.
  EXPECT_EQ(kept.to_vector<float>(), kept_values);
  EXPECT_EQ(Address(kept), kept_memory);
  EXPECT_NE(Address(*model.parameters()[0]), kept_memory);
  EXPECT_NE(model.parameters()[0]->to_vector<float>(), kept_values);
}

TEST(StepDonationTest, TrainingResultsDoNotDependOnDonation) {
  auto train = [](bool block_donation, std::vector<float>* losses) {
    nn::Mlp model({6, 8, 2}, 4);
    optim::Sgd opt(model.parameters(), 0.1f, 0.9f, 1e-3f);
    int64_t aliases = Aliases();
    std::vector<Tensor> copies;
    for (int i = 0; i < 5; ++i) {
      copies.clear();
      if (block_donation) {
        for (Tensor* p : model.parameters()) copies.push_back(*p);
      }
      losses->push_back(Step(model, opt, 16, 10 + i));
    }
    // Velocities are donated from the first step (their zeros are uploaded by it); the
    // parameters only without the copies.
    EXPECT_EQ(Aliases() - aliases, block_donation ? 5 * 4 : 5 * 8);
    std::vector<float> weights;
    for (Tensor* p : model.parameters()) {
      std::vector<float> v = p->to_vector<float>();
      weights.insert(weights.end(), v.begin(), v.end());
    }
    return weights;
  };
  std::vector<float> donated_losses, kept_losses;
  std::vector<float> donated = train(false, &donated_losses);
  std::vector<float> kept = train(true, &kept_losses);
  EXPECT_EQ(donated_losses, kept_losses);
  EXPECT_EQ(donated, kept);
  EXPECT_LT(donated_losses.back(), donated_losses.front());
}

TEST(StepDonationTest, HostReadsNeverDonate) {
  nn::Mlp model({6, 8, 2}, 5);
  optim::Sgd opt(model.parameters(), 0.1f, 0.9f);
  Step(model, opt, 16, 1);
  Tensor loss = nn::cross_entropy(model.forward(Tensor::randn({16, 6}, 7)),
                                  Tensor::zeros({16}, DType::kInt32));
  opt.step(loss);
  int64_t aliases = Aliases();
  EXPECT_TRUE(std::isfinite(loss.item<float>()));  // syncs the loss alone
  // Syncs the first weight's update alone, into a new buffer.
  EXPECT_EQ(model.parameters()[0]->to_vector<float>().size(), 6u * 8u);
  EXPECT_EQ(Aliases(), aliases);
  sync();  // the other updates are still pending; the step barrier donates those
  EXPECT_EQ(Aliases() - aliases, 7);
}

TEST(StepDonationTest, PendingGraphOfTheSameStepMayReadTheDonatedValue) {
  Tensor w = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  w.assign(w * 2.0f);
  sync();
  Tensor doubled = w * 3.0f;  // reads the old value, in the same program as the update
  w.assign(w + 0.5f);
  int64_t aliases = Aliases();
  sync();
  EXPECT_EQ(Aliases() - aliases, 1);
  EXPECT_EQ(doubled.to_vector<float>(), (std::vector<float>{6, 12, 18}));
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{2.5f, 4.5f, 6.5f}));
}

// The public sync() takes every pending graph, so a graph that reads the old value is
// always part of the step. The internal SyncTensors can leave one out: then that graph
// still needs the old buffer, which must not be donated.
TEST(StepDonationTest, GraphOutsideTheSyncBlocksDonation) {
  Tensor w = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  w.assign(w * 2.0f);
  sync();
  Tensor reader = w * 3.0f;  // pending; reads the value w is about to replace
  w.assign(w + 1.0f);
  int64_t aliases = Aliases();
  absl::Status status = lazy::SyncTensors({TensorAccess::Impl(w, "test")}, /*donate=*/true);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(Aliases(), aliases);
  EXPECT_EQ(reader.to_vector<float>(), (std::vector<float>{6, 12, 18}));
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{3, 5, 7}));

  // The same partial sync without an outside reader donates.
  w.assign(w + 1.0f);
  status = lazy::SyncTensors({TensorAccess::Impl(w, "test")}, /*donate=*/true);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(Aliases() - aliases, 1);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{4, 6, 8}));
}

void ExpectError(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected seam::Error";
  } catch (const Error& e) {
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }
}

TEST(StepDonationTest, StaleHandleToABufferDonorIsAClearError) {
  Tensor w = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  w.assign(w * 2.0f);
  sync();
  Tensor stale = w;
  set_buffer_donor(w);
  w.assign(w + 1.0f);
  int64_t aliases = Aliases();
  sync();
  EXPECT_EQ(Aliases() - aliases, 1);  // donated although `stale` still refers to it
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{3, 5, 7}));
  ExpectError([&] { stale.to_vector<float>(); }, {"to_vector", "f32[3]", "donated"});
  ExpectError([&] { stale.sum().item<float>(); }, {"reduce_sum", "f32[3]", "donated"});
  ExpectError([&] { (void)(stale + w); }, {"add", "f32[3]", "donated"});
  // Nothing else broke: the live value still computes.
  EXPECT_EQ((w * 2.0f).to_vector<float>(), (std::vector<float>{6, 10, 14}));
}

TEST(StepDonationTest, BufferDonorNeedsASyncedTensor) {
  Tensor w = Tensor::from_vector({1.0f}, {1});
  ExpectError([&] { set_buffer_donor(w * 2.0f); }, {"set_buffer_donor", "f32[1]", "pending"});
}

}  // namespace
}  // namespace seam
