// The character transformer's modules and their PyTorch names.
#include "examples/char_transformer/model.h"

#include <string>
#include <utility>

namespace char_transformer {

using seam::Tensor;
using seam::nn::NamedParameter;

CharTransformer::CharTransformer(const ModelConfig& config, uint64_t seed)
    : config(config),
      token_embedding(config.vocab, config.width, seed),
      position_embedding(config.context, config.width, seed + 1),
      ln_f({config.width}),
      head(config.width, config.vocab, seed + 2) {
  for (int64_t i = 0; i < config.layers; ++i) {
    // Each block draws from three seeds (its own, + 1, + 2): 16 apart leaves them distinct.
    blocks.push_back(std::make_unique<seam::nn::TransformerBlock>(
        config.width, config.heads, seed + 16 * static_cast<uint64_t>(i + 1), /*causal=*/true));
  }
}

Tensor CharTransformer::forward(const Tensor& tokens) const {
  const int64_t length = tokens.shape().at(1);
  // [batch, length, width] + [length, width], broadcast over the batch.
  Tensor x = token_embedding.forward(tokens) +
             position_embedding.forward(Tensor::arange(length, seam::DType::kInt32));
  for (const auto& block : blocks) x = block->forward(x);
  return head.forward(ln_f.forward(x));
}

std::vector<Tensor*> CharTransformer::parameters() {
  std::vector<Tensor*> params;
  for (const NamedParameter& p : named_parameters()) params.push_back(p.tensor);
  return params;
}

std::vector<NamedParameter> CharTransformer::named_parameters() {
  std::vector<NamedParameter> params;
  const auto add = [&](const std::string& prefix, std::vector<NamedParameter> more) {
    for (NamedParameter& p : more) {
      p.name = prefix + p.name;
      params.push_back(std::move(p));
    }
  };
  add("token_embedding.", token_embedding.named_parameters());
  add("position_embedding.", position_embedding.named_parameters());
  for (size_t i = 0; i < blocks.size(); ++i) {
    add("blocks." + std::to_string(i) + ".", blocks[i]->named_parameters());
  }
  add("ln_f.", ln_f.named_parameters());
  add("head.", head.named_parameters());
  return params;
}

std::vector<seam::nn::Module*> CharTransformer::children() {
  std::vector<seam::nn::Module*> modules = {&token_embedding, &position_embedding};
  for (const auto& block : blocks) modules.push_back(block.get());
  modules.push_back(&ln_f);
  modules.push_back(&head);
  return modules;
}

int64_t CharTransformer::parameter_count() {
  int64_t count = 0;
  for (Tensor* p : parameters()) count += p->numel();
  return count;
}

}  // namespace char_transformer
