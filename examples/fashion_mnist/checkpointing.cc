#include "examples/fashion_mnist/checkpointing.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "seam/checkpoint.h"

namespace fashion_mnist {
namespace {

void Save(const std::string& dir, const std::string& name, const Position& position,
          seam::nn::Module& model, seam::optim::Optimizer& optimizer, const std::mt19937_64& rng) {
  const std::filesystem::path folder = std::filesystem::path(dir) / name;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error)
    throw seam::Error(seam::ErrorCode::kInternal,
                      "--save: cannot create " + folder.string() + ": " + error.message());
  std::ostringstream rng_state;
  rng_state << rng;
  const std::string epoch = std::to_string(position.epoch);
  std::map<std::string, std::string> metadata = {
      {"epoch", epoch}, {"optimizer", "adam"}, {"data_rng", rng_state.str()}};
  if (position.step > 0) {
    // The running loss as a hexadecimal float: exact, so the resumed epoch prints the same.
    char loss[64];
    std::snprintf(loss, sizeof loss, "%a", static_cast<double>(position.loss_sum));
    metadata["epoch_step"] = std::to_string(position.step);
    metadata["epoch_loss_sum"] = loss;
  }
  seam::checkpoint::save_file((folder / "model.safetensors").string(), model.state_dict(),
                              {{"epoch", epoch}});
  seam::checkpoint::save_file((folder / "optimizer.safetensors").string(),
                              optimizer.state_dict(model.named_parameters()), metadata);
  seam::checkpoint::write_text_file((std::filesystem::path(dir) / "latest").string(), name + "\n");
}

// A non-negative integer of the metadata, or DATA_LOSS naming the file and the value.
int64_t Count(const std::string& text, const std::string& key, const std::string& file) {
  int64_t value = 0;
  const auto [end, parsed] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (parsed != std::errc() || end != text.data() + text.size() || value < 0 || value > (1 << 30)) {
    throw seam::Error(seam::ErrorCode::kDataLoss, "--resume: " + file + " has " + key + " '" +
                                                      text.substr(0, 40) +
                                                      "' in its metadata, not a count");
  }
  return value;
}

std::string MidEpochName(const Position& position) {
  return "epoch-" + std::to_string(position.epoch + 1) + "-step-" + std::to_string(position.step);
}

}  // namespace

void SaveEpoch(const std::string& dir, int epoch, seam::nn::Module& model,
               seam::optim::Optimizer& optimizer, const std::mt19937_64& rng) {
  Save(dir, "epoch-" + std::to_string(epoch), Position{epoch, 0, 0}, model, optimizer, rng);
}

void SaveMidEpoch(const std::string& dir, const Position& position, seam::nn::Module& model,
                  seam::optim::Optimizer& optimizer, const std::mt19937_64& epoch_rng) {
  Save(dir, MidEpochName(position), position, model, optimizer, epoch_rng);
}

int StopAtPreemption(const std::string& dir, Position position, int64_t steps, int64_t global_step,
                     seam::nn::Module& model, seam::optim::Optimizer& optimizer,
                     const std::mt19937_64& epoch_rng, const seam::Tensor& loss_sum, bool writer) {
  // The step just launched finishes first: a process must not exit with a collective in
  // flight (its peer still runs it), nor with work queued on the device.
  seam::wait_device_ops();
  std::printf("preempted: every rank stops at step %lld (epoch %d, step %lld of %lld)\n",
              static_cast<long long>(global_step), position.epoch + 1,
              static_cast<long long>(position.step), static_cast<long long>(steps));
  if (writer) {
    position.loss_sum = loss_sum.item<float>();
    SaveMidEpoch(dir, position, model, optimizer, epoch_rng);
    std::printf("saved %s/%s; exiting with status 143\n", dir.c_str(),
                MidEpochName(position).c_str());
  }
  std::fflush(stdout);
  return 143;
}

Position ResumeFrom(const std::string& dir, seam::nn::Module& model,
                    seam::optim::Optimizer& optimizer, std::mt19937_64& rng) {
  const std::string latest_path = (std::filesystem::path(dir) / "latest").string();
  if (!std::filesystem::exists(latest_path)) return {};  // nothing saved yet: from the start
  std::ifstream latest(latest_path);
  std::string name;
  if (!(latest >> name) || name.rfind("epoch-", 0) != 0) {
    throw seam::Error(seam::ErrorCode::kNotFound,
                      "--resume: " + latest_path +
                          " is missing or does not name a checkpoint (epoch-<k>[-step-<s>])");
  }
  const std::filesystem::path folder = std::filesystem::path(dir) / name;
  const std::string file = (folder / "optimizer.safetensors").string();
  model.load_state_dict(
      seam::checkpoint::load_file((folder / "model.safetensors").string()).tensors);
  seam::checkpoint::Loaded saved = seam::checkpoint::load_file(file);
  auto field = [&](const std::string& key) {
    auto it = saved.metadata.find(key);
    if (it == saved.metadata.end()) {
      throw seam::Error(seam::ErrorCode::kInvalidArgument,
                        "--resume: " + file + " has no '" + key + "' in its metadata");
    }
    return it->second;
  };
  Position position;
  position.epoch = static_cast<int>(Count(field("epoch"), "epoch", file));
  if (saved.metadata.count("epoch_step") != 0) {
    position.step = Count(field("epoch_step"), "epoch_step", file);
    const std::string loss = field("epoch_loss_sum");
    char* end = nullptr;
    position.loss_sum = static_cast<float>(std::strtod(loss.c_str(), &end));
    if (loss.empty() || end != loss.c_str() + loss.size()) {
      throw seam::Error(seam::ErrorCode::kDataLoss, "--resume: " + file + " has epoch_loss_sum '" +
                                                        loss.substr(0, 40) +
                                                        "' in its metadata, not a number");
    }
  }
  std::istringstream rng_state(field("data_rng"));
  rng_state >> rng;
  if (!rng_state)
    throw seam::Error(seam::ErrorCode::kInvalidArgument,
                      "--resume: the saved data_rng state does not parse");
  optimizer.load_state_dict(saved.tensors, model.named_parameters());
  return position;
}

Position ResumeAndSay(const std::string& dir, seam::nn::Module& model,
                      seam::optim::Optimizer& optimizer, std::mt19937_64& rng, int64_t steps) {
  const Position resumed = ResumeFrom(dir, model, optimizer, rng);
  if (resumed.step > 0) {
    std::printf("resumed from %s in epoch %d after step %lld of %lld\n", dir.c_str(),
                resumed.epoch + 1, static_cast<long long>(resumed.step),
                static_cast<long long>(steps));
  } else if (resumed.epoch > 0) {
    std::printf("resumed from %s after epoch %d\n", dir.c_str(), resumed.epoch);
  } else {
    std::printf("no checkpoint in %s yet: starting from epoch 1\n", dir.c_str());
  }
  return resumed;
}

}  // namespace fashion_mnist
