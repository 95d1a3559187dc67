// Resuming training from files (issue 19): a run interrupted after k steps, saved with the
// module's and the optimizer's state dicts, and resumed in fresh objects ends with the
// parameters of the uninterrupted run, bit for bit (SGD with momentum and weight decay,
// Adam, capturable Adam; lazy steps, and compiled steps for SGD and capturable Adam); and an
// optimizer state that does not fit loads nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "seam/checkpoint.h"
#include "seam/compile.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"

namespace seam {
namespace {

using ::testing::HasSubstr;
using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor*>)>;

constexpr int kSteps = 5;
constexpr int kInterruptAfter = 3;

Tensor Batch(int step) {
  std::mt19937 rng(static_cast<uint32_t>(100 + step));
  std::normal_distribution<float> dist(0, 1);
  std::vector<float> xs(8 * 5);
  for (float& v : xs) v = dist(rng);
  return Tensor::from_vector(xs, {8, 5});
}

Tensor Labels() { return Tensor::from_vector({0, 1, 2, 0, 1, 2, 0, 1}, {8}); }

void Step(nn::Mlp& model, optim::Optimizer& opt, int step) {
  Tensor loss = nn::cross_entropy(model.forward(Batch(step)), Labels());
  opt.step(loss);
  sync();
}

// Steps through seam::compile (traced twice, then replayed), or plain lazy steps.
class Trainer {
 public:
  Trainer(nn::Mlp& model, optim::Optimizer& opt, bool compiled) : model_(model), opt_(opt) {
    if (!compiled) return;
    step_ = std::make_unique<CompiledStep>([this](const std::vector<Tensor>& in) {
      Tensor loss = nn::cross_entropy(model_.forward(in[0]), in[1]);
      opt_.step(loss);
      return std::vector<Tensor>{loss};
    });
  }
  int64_t replayed() const { return step_ == nullptr ? 0 : step_->replayed_calls(); }
  void Run(int step) {
    if (step_ == nullptr) return Step(model_, opt_, step);
    (*step_)({Batch(step), Labels()});
  }

 private:
  nn::Mlp& model_;
  optim::Optimizer& opt_;
  std::unique_ptr<CompiledStep> step_;
};

std::vector<std::vector<float>> Params(nn::Mlp& model) {
  std::vector<std::vector<float>> values;
  for (Tensor* p : model.parameters()) values.push_back(p->to_vector<float>());
  return values;
}

class ResumeTest : public ::testing::TestWithParam<std::string> {
 protected:
  bool Compiled() const { return GetParam().find("compiled") != std::string::npos; }
  std::unique_ptr<optim::Optimizer> Make(std::vector<Tensor*> params) const {
    if (GetParam().rfind("sgd", 0) == 0) {
      return std::make_unique<optim::Sgd>(params, 0.1F, 0.9F, 0.01F);
    }
    return std::make_unique<optim::Adam>(
        params, 0.01F, 0.9F, 0.999F, 1e-8F, 0.0F,
        /*capturable=*/GetParam().find("capturable") != std::string::npos);
  }
  std::string Path(const std::string& name) const {
    return (std::filesystem::temp_directory_path() /
            ("seam_resume_" + std::to_string(getpid()) + "_" + GetParam() + "_" + name))
        .string();
  }
};

TEST_P(ResumeTest, AResumedRunEndsBitIdenticalToTheUninterruptedOne) {
  nn::Mlp whole({5, 6, 3}, 3);
  std::unique_ptr<optim::Optimizer> whole_opt = Make(whole.parameters());
  Trainer whole_trainer(whole, *whole_opt, Compiled());
  for (int step = 0; step < kSteps; ++step) whole_trainer.Run(step);
  if (Compiled()) {
    EXPECT_GT(whole_trainer.replayed(), 0);  // the compiled path really ran
  }

  {
    nn::Mlp first({5, 6, 3}, 3);
    std::unique_ptr<optim::Optimizer> opt = Make(first.parameters());
    Trainer trainer(first, *opt, Compiled());
    for (int step = 0; step < kInterruptAfter; ++step) trainer.Run(step);
    checkpoint::save_file(Path("model"), first.state_dict());
    checkpoint::save_file(Path("optimizer"), opt->state_dict(first.named_parameters()),
                          {{"step", std::to_string(kInterruptAfter)}});
  }
  nn::Mlp resumed({5, 6, 3}, 77);  // other initial values, overwritten by the load
  std::unique_ptr<optim::Optimizer> opt = Make(resumed.parameters());
  resumed.load_state_dict(checkpoint::load_file(Path("model")).tensors);
  checkpoint::Loaded saved = checkpoint::load_file(Path("optimizer"));
  opt->load_state_dict(saved.tensors, resumed.named_parameters());
  std::filesystem::remove(Path("model"));
  std::filesystem::remove(Path("optimizer"));
  Trainer trainer(resumed, *opt, Compiled());
  for (int step = std::stoi(saved.metadata.at("step")); step < kSteps; ++step) {
    trainer.Run(step);
  }
  EXPECT_EQ(Params(resumed), Params(whole));
}

INSTANTIATE_TEST_SUITE_P(Optimizers, ResumeTest,
                         ::testing::Values("sgd", "adam", "adam_capturable", "sgd_compiled",
                                           "adam_capturable_compiled"));

int64_t Compiles() { return metrics::MetricTotalSamples("CompileTime"); }

// Issue 31 item 6: saving the state dicts does not change the training step's program.
// The first save compiles the transposes into PyTorch's layout (one small program); the
// step after it, and a second save, compile nothing.
TEST_P(ResumeTest, SavingTheModelAndItsOptimizerRecordsNoRecompile) {
  nn::Mlp model({5, 6, 3}, 3);
  std::unique_ptr<optim::Optimizer> opt = Make(model.parameters());
  Trainer trainer(model, *opt, Compiled());
  for (int step = 0; step < kInterruptAfter; ++step) trainer.Run(step);
  const auto save = [&] {
    checkpoint::save_file(Path("model"), model.state_dict());
    checkpoint::save_file(Path("optimizer"), opt->state_dict(model.named_parameters()));
  };
  save();
  const int64_t before = Compiles();
  ASSERT_GT(before, 0);
  trainer.Run(kInterruptAfter);
  EXPECT_EQ(Compiles(), before) << "the step after a save compiled a new program";
  save();
  EXPECT_EQ(Compiles(), before) << "a second save compiled again";
  std::filesystem::remove(Path("model"));
  std::filesystem::remove(Path("optimizer"));
}

// Issue 31 item 6: the tensors a load creates are plain device data (no pending view or
// transpose), so a resumed run's steps are the programs an uninterrupted run already
// compiled in this process: every one of them is a compile-cache hit.
TEST_P(ResumeTest, AResumedRunCompilesNothingAnUninterruptedRunDidNot) {
  nn::Mlp whole({5, 6, 3}, 3);
  std::unique_ptr<optim::Optimizer> whole_opt = Make(whole.parameters());
  Trainer whole_trainer(whole, *whole_opt, Compiled());
  for (int step = 0; step < kSteps; ++step) whole_trainer.Run(step);
  checkpoint::save_file(Path("model"), whole.state_dict());
  checkpoint::save_file(Path("optimizer"), whole_opt->state_dict(whole.named_parameters()));

  nn::Mlp resumed({5, 6, 3}, 77);
  std::unique_ptr<optim::Optimizer> opt = Make(resumed.parameters());
  resumed.load_state_dict(checkpoint::load_file(Path("model")).tensors);
  opt->load_state_dict(checkpoint::load_file(Path("optimizer")).tensors,
                       resumed.named_parameters());
  std::filesystem::remove(Path("model"));
  std::filesystem::remove(Path("optimizer"));
  const int64_t before = Compiles();
  if (Compiled()) {
    // A compiled step traces its first two calls through the lazy path, whose programs the
    // uninterrupted run's trainer compiled too; the replays compile nothing.
    Trainer trainer(resumed, *opt, true);
    for (int step = 0; step < 3; ++step) trainer.Run(step);
  } else {
    Step(resumed, *opt, 0);
  }
  EXPECT_EQ(Compiles(), before) << "the resumed run's first step compiled a program the "
                                   "uninterrupted run never compiled";
}

TEST(OptimizerStateDict, PyTorchNamesAndLayout) {
  nn::Mlp model({5, 6, 3}, 3);
  optim::Adam adam(model.parameters(), 0.01F);
  Step(model, adam, 0);
  nn::StateDict state = adam.state_dict(model.named_parameters());
  EXPECT_EQ(state.at("state.0.exp_avg").shape(), (std::vector<int64_t>{6, 5}));  // [out, in]
  EXPECT_EQ(state.at("state.1.exp_avg_sq").shape(), (std::vector<int64_t>{6}));
  EXPECT_EQ(state.at("state.2.step").item<float>(), 1.0F);
  EXPECT_EQ(state.at("param_groups.0.lr").item<float>(), 0.01F);
  EXPECT_EQ(state.size(), 4 * 3 + 5u);  // 4 parameters x 3 entries, 5 hyperparameters
}

TEST(OptimizerStateDict, AStateThatDoesNotFitLoadsNothing) {
  nn::Mlp model({5, 6, 3}, 3);
  optim::Sgd with_momentum(model.parameters(), 0.1F, 0.9F);
  nn::StateDict state = with_momentum.state_dict();
  optim::Sgd plain(model.parameters(), 0.5F);  // no momentum: no buffers expected
  try {
    plain.load_state_dict(state);
    FAIL() << "loaded momentum buffers into an optimizer without momentum";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unexpected 'state.0.momentum_buffer'"));
  }
  EXPECT_EQ(plain.lr, 0.5F);  // unchanged
  state.erase("param_groups.0.lr");
  EXPECT_THROW(with_momentum.load_state_dict(state), Error);
}

}  // namespace
}  // namespace seam
