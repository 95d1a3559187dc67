// Module names and state dicts (include/seam/nn.h): PyTorch's names and layout, a round trip
// through a safetensors file, and loads that do not fit (nothing changes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "seam/checkpoint.h"
#include "seam/nn.h"
#include "seam/optim.h"

namespace seam::nn {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Names(const std::vector<NamedParameter>& params) {
  std::vector<std::string> names;
  for (const NamedParameter& p : params) names.push_back(p.name);
  return names;
}

TEST(StateDictTest, NamesAndLayoutAreThoseOfPyTorch) {
  Mlp mlp({3, 4, 2}, 1);
  EXPECT_THAT(Names(mlp.named_parameters()),
              ElementsAre("layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"));
  StateDict state = mlp.state_dict();
  EXPECT_EQ(state.at("layers.0.weight").shape(), (std::vector<int64_t>{4, 3}));  // [out, in]
  // seam's Linear keeps PyTorch's layout: the state holds the weight as it is.
  EXPECT_EQ(mlp.layers[0].weight.shape(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(state.at("layers.0.weight").to_vector<float>(),
            mlp.layers[0].weight.to_vector<float>());
  EXPECT_EQ(state.at("layers.1.bias").to_vector<float>(), mlp.layers[1].bias.to_vector<float>());

  Sequential seq({std::make_shared<Linear>(3, 4, 1), std::make_shared<Lambda>(relu),
                  std::make_shared<Linear>(4, 2, 2)});
  EXPECT_THAT(Names(seq.named_parameters()),
              ElementsAre("0.weight", "0.bias", "2.weight", "2.bias"));
  EXPECT_EQ(seq.state_dict().at("2.weight").shape(), (std::vector<int64_t>{2, 4}));
}

TEST(StateDictTest, ARoundTripThroughAFileGivesTheSameModel) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("seam_state_dict_" + std::to_string(getpid()) + ".safetensors"))
                               .string();
  Mlp trained({3, 4, 2}, 1);
  checkpoint::save_file(path, trained.state_dict(), {{"epoch", "1"}});
  Mlp fresh({3, 4, 2}, 99);  // other values
  Tensor x = Tensor::from_vector({0.5F, -1.0F, 2.0F, 1.0F, 0.0F, -0.5F}, {2, 3});
  EXPECT_NE(fresh.forward(x).to_vector<float>(), trained.forward(x).to_vector<float>());
  fresh.load_state_dict(checkpoint::load_file(path).tensors);
  std::filesystem::remove(path);
  EXPECT_EQ(fresh.forward(x).to_vector<float>(), trained.forward(x).to_vector<float>());
  for (size_t i = 0; i < fresh.layers.size(); ++i) {
    EXPECT_EQ(fresh.layers[i].weight.shape(), trained.layers[i].weight.shape());
    EXPECT_EQ(fresh.layers[i].weight.to_vector<float>(),
              trained.layers[i].weight.to_vector<float>());
  }
}

TEST(StateDictTest, AStateThatDoesNotFitLoadsNothingAndNamesEveryProblem) {
  Mlp mlp({3, 4, 2}, 1);
  const std::vector<float> before = mlp.layers[0].weight.to_vector<float>();
  StateDict state = Mlp({3, 4, 2}, 5).state_dict();
  state.erase("layers.1.bias");
  state["layers.2.weight"] = Tensor::zeros({1});
  state["layers.0.weight"] = Tensor::zeros({3, 4});  // [in, out] instead of [out, in]
  state["layers.0.bias"] = Tensor::from_vector(std::vector<double>{1, 2, 3, 4}, {4});
  try {
    mlp.load_state_dict(state);
    FAIL() << "a state that does not fit was loaded";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("nothing loaded"));
    EXPECT_THAT(message, HasSubstr("missing 'layers.1.bias'"));
    EXPECT_THAT(message, HasSubstr("unexpected 'layers.2.weight'"));
    EXPECT_THAT(message, HasSubstr("'layers.0.weight' has shape [3,4], the module's is [4,3]"));
    EXPECT_THAT(message, HasSubstr("'layers.0.bias' is float64, the module's is float32"));
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
  EXPECT_EQ(mlp.layers[0].weight.to_vector<float>(), before);
}

// A bfloat16 model and its Adam state saved after two steps and loaded into fresh ones:
// two more steps end bit-identical to the run that was not interrupted.
TEST(StateDictTest, ABf16ModelAndAdamResumeBitIdentical) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("seam_state_dict_bf16_" + std::to_string(getpid())))
                              .string();
  std::filesystem::create_directories(dir);
  Tensor x = Tensor::from_vector({0.5F, -1.0F, 2.0F, 1.0F, 0.0F, -0.5F}, {2, 3}, DType::kBFloat16);
  Tensor y = Tensor::from_vector(std::vector<int64_t>{1, 0}, {2});
  auto step = [&](Mlp& model, optim::Adam& opt) {
    opt.step(cross_entropy(model.forward(x), y));
    sync();
  };
  Mlp model({3, 4, 2}, 1, DType::kBFloat16);
  optim::Adam opt(model.parameters(), 0.05F);
  step(model, opt);
  step(model, opt);
  checkpoint::save_file(dir + "/model.safetensors", model.state_dict());
  checkpoint::save_file(dir + "/optimizer.safetensors", opt.state_dict(model.named_parameters()));
  Mlp resumed({3, 4, 2}, 7, DType::kBFloat16);
  optim::Adam resumed_opt(resumed.parameters(), 0.05F);
  resumed.load_state_dict(checkpoint::load_file(dir + "/model.safetensors").tensors);
  resumed_opt.load_state_dict(checkpoint::load_file(dir + "/optimizer.safetensors").tensors,
                              resumed.named_parameters());
  std::filesystem::remove_all(dir);
  step(model, opt);
  step(model, opt);
  step(resumed, resumed_opt);
  step(resumed, resumed_opt);
  for (size_t i = 0; i < model.layers.size(); ++i) {
    EXPECT_EQ(resumed.layers[i].weight.dtype(), DType::kBFloat16);
    EXPECT_EQ(resumed.layers[i].weight.to_vector<bfloat16>(),
              model.layers[i].weight.to_vector<bfloat16>());
    EXPECT_EQ(resumed.layers[i].bias.to_vector<bfloat16>(),
              model.layers[i].bias.to_vector<bfloat16>());
  }
  // A float32 state does not load into the bfloat16 model, and says why.
  try {
    resumed.load_state_dict(Mlp({3, 4, 2}, 1).state_dict());
    FAIL() << "a float32 state loaded into a bfloat16 model";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'layers.0.weight' is float32, the module's is bfloat16"));
  }
}

}  // namespace
}  // namespace seam::nn
