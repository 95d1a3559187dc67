// The character corpus and the batch rule shared by the example and its libtorch twin.
#include "examples/char_transformer/corpus.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace char_transformer {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> TextFiles(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    throw std::runtime_error("the fortunes text folder '" + dir +
                             "' does not exist (install Debian's `fortunes` package or pass "
                             "--data DIR)");
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_symlink() || !entry.is_regular_file()) continue;
    if (entry.path().extension() == ".dat") continue;
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    throw std::runtime_error("the folder '" + dir + "' holds no text file (only .dat or links)");
  }
  return files;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

Corpus LoadCorpus(const std::string& dir, int64_t context) {
  Corpus corpus;
  corpus.files = TextFiles(dir);
  std::string text;
  for (const std::string& file : corpus.files) text += ReadAll(file);
  corpus.bytes = static_cast<int64_t>(text.size());
  std::array<int32_t, 256> token{};
  token.fill(-1);
  for (char c : text) token[static_cast<uint8_t>(c)] = 0;
  for (int b = 0; b < 256; ++b) {
    if (token[b] == 0) {
      token[b] = static_cast<int32_t>(corpus.vocabulary.size());
      corpus.vocabulary.push_back(static_cast<uint8_t>(b));
    }
  }
  const auto validation_size = static_cast<int64_t>(text.size() / 10);
  const int64_t train_size = corpus.bytes - validation_size;
  if (validation_size < context + 1) {
    throw std::runtime_error("the text under '" + dir + "' has " + std::to_string(corpus.bytes) +
                             " bytes: too short for a validation split (the last 10%) of at "
                             "least context + 1 = " +
                             std::to_string(context + 1) + " bytes");
  }
  corpus.train.reserve(static_cast<size_t>(train_size));
  corpus.validation.reserve(static_cast<size_t>(validation_size));
  for (int64_t i = 0; i < corpus.bytes; ++i) {
    int32_t t = token[static_cast<uint8_t>(text[static_cast<size_t>(i)])];
    (i < train_size ? corpus.train : corpus.validation).push_back(t);
  }
  return corpus;
}

BatchSampler::BatchSampler(const Corpus& corpus, int64_t batch, int64_t context, uint64_t seed)
    : corpus_(corpus), batch_(batch), context_(context), state_(seed) {}

uint64_t BatchSampler::NextRandom() {
  // SplitMix64 (Steele, Lea and Flood): one addition and a mixing function.
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void BatchSampler::Next(std::vector<int32_t>* inputs, std::vector<int32_t>* targets) {
  const auto span = static_cast<uint64_t>(static_cast<int64_t>(corpus_.train.size()) - context_);
  inputs->resize(static_cast<size_t>(batch_ * context_));
  targets->resize(inputs->size());
  for (int64_t r = 0; r < batch_; ++r) {
    const auto start = static_cast<int64_t>(NextRandom() % span);
    for (int64_t i = 0; i < context_; ++i) {
      (*inputs)[static_cast<size_t>(r * context_ + i)] =
          corpus_.train[static_cast<size_t>(start + i)];
      (*targets)[static_cast<size_t>(r * context_ + i)] =
          corpus_.train[static_cast<size_t>(start + i + 1)];
    }
  }
}

void ValidationWindows(const Corpus& corpus, int64_t count, int64_t context,
                       std::vector<int32_t>* inputs, std::vector<int32_t>* targets) {
  const int64_t room = static_cast<int64_t>(corpus.validation.size()) - context - 1;
  const int64_t stride = room / std::max<int64_t>(count - 1, 1);
  inputs->resize(static_cast<size_t>(count * context));
  targets->resize(inputs->size());
  for (int64_t k = 0; k < count; ++k) {
    const int64_t start = k * stride;
    for (int64_t i = 0; i < context; ++i) {
      (*inputs)[static_cast<size_t>(k * context + i)] =
          corpus.validation[static_cast<size_t>(start + i)];
      (*targets)[static_cast<size_t>(k * context + i)] =
          corpus.validation[static_cast<size_t>(start + i + 1)];
    }
  }
}

std::vector<int32_t> Encode(const Corpus& corpus, const std::string& text) {
  std::vector<int32_t> tokens;
  for (char c : text) {
    auto byte = static_cast<uint8_t>(c);
    auto it = std::lower_bound(corpus.vocabulary.begin(), corpus.vocabulary.end(), byte);
    if (it == corpus.vocabulary.end() || *it != byte) {
      throw std::runtime_error("the prompt's byte " + std::to_string(byte) +
                               " does not occur in the training text");
    }
    tokens.push_back(static_cast<int32_t>(it - corpus.vocabulary.begin()));
  }
  return tokens;
}

std::string Decode(const Corpus& corpus, const std::vector<int32_t>& tokens) {
  std::string text;
  for (int32_t t : tokens)
    text.push_back(static_cast<char>(corpus.vocabulary[static_cast<size_t>(t)]));
  return text;
}

int32_t SampleToken(const std::vector<float>& logits, double temperature, uint64_t random) {
  const double top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> weights(logits.size());
  double total = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    weights[i] = std::exp((static_cast<double>(logits[i]) - top) / temperature);
    total += weights[i];
  }
  const double u = static_cast<double>(random >> 11) * 0x1.0p-53 * total;
  double running = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    running += weights[i];
    if (u < running) return static_cast<int32_t>(i);
  }
  return static_cast<int32_t>(weights.size() - 1);
}

}  // namespace char_transformer
