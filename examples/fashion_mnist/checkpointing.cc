#include "examples/fashion_mnist/checkpointing.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "seam/checkpoint.h"

namespace fashion_mnist {

void SaveEpoch(const std::string& dir, int epoch, seam::nn::Module& model,
               seam::optim::Optimizer& optimizer, const std::mt19937_64& rng) {
  const std::string name = "epoch-" + std::to_string(epoch);
  const std::filesystem::path folder = std::filesystem::path(dir) / name;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error)
    throw seam::Error(seam::ErrorCode::kInternal,
                      "--save: cannot create " + folder.string() + ": " + error.message());
  std::ostringstream rng_state;
  rng_state << rng;
  seam::checkpoint::save_file((folder / "model.safetensors").string(), model.state_dict(),
                              {{"epoch", std::to_string(epoch)}});
  seam::checkpoint::save_file(
      (folder / "optimizer.safetensors").string(), optimizer.state_dict(model.named_parameters()),
      {{"epoch", std::to_string(epoch)}, {"optimizer", "adam"}, {"data_rng", rng_state.str()}});
  seam::checkpoint::write_text_file((std::filesystem::path(dir) / "latest").string(), name + "\n");
}

int ResumeFrom(const std::string& dir, seam::nn::Module& model, seam::optim::Optimizer& optimizer,
               std::mt19937_64& rng) {
  const std::string latest_path = (std::filesystem::path(dir) / "latest").string();
  if (!std::filesystem::exists(latest_path)) return 0;  // nothing saved yet: from the start
  std::ifstream latest(latest_path);
  std::string name;
  if (!(latest >> name) || name.rfind("epoch-", 0) != 0) {
    throw seam::Error(
        seam::ErrorCode::kNotFound,
        "--resume: " + latest_path + " is missing or does not name a checkpoint (epoch-<k>)");
  }
  const std::filesystem::path folder = std::filesystem::path(dir) / name;
  model.load_state_dict(
      seam::checkpoint::load_file((folder / "model.safetensors").string()).tensors);
  seam::checkpoint::Loaded saved =
      seam::checkpoint::load_file((folder / "optimizer.safetensors").string());
  auto field = [&](const std::string& key) {
    auto it = saved.metadata.find(key);
    if (it == saved.metadata.end()) {
      throw seam::Error(seam::ErrorCode::kInvalidArgument,
                        "--resume: " + (folder / "optimizer.safetensors").string() + " has no '" +
                            key + "' in its metadata");
    }
    return it->second;
  };
  const std::string epoch_text = field("epoch");
  int epoch = 0;
  const auto [end, parsed] =
      std::from_chars(epoch_text.data(), epoch_text.data() + epoch_text.size(), epoch);
  if (parsed != std::errc() || end != epoch_text.data() + epoch_text.size() || epoch < 0) {
    throw seam::Error(seam::ErrorCode::kDataLoss,
                      "--resume: " + (folder / "optimizer.safetensors").string() + " has epoch '" +
                          epoch_text.substr(0, 40) + "' in its metadata, not a number of epochs");
  }
  std::istringstream rng_state(field("data_rng"));
  rng_state >> rng;
  if (!rng_state)
    throw seam::Error(seam::ErrorCode::kInvalidArgument,
                      "--resume: the saved data_rng state does not parse");
  optimizer.load_state_dict(saved.tensors, model.named_parameters());
  return epoch;
}

}  // namespace fashion_mnist
