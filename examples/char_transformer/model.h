// The character-level language model of examples/char_transformer: token and learned
// position embeddings, pre-norm causal transformer blocks (nn::TransformerBlock), a final
// LayerNorm and a Linear head. Parameter names are those of the PyTorch module the libtorch
// twin builds (bench/char_transformer_twin.cc):
//   token_embedding.weight [vocab, width], position_embedding.weight [context, width],
//   blocks.<i>.{ln_1,attn,ln_2,mlp}.* (nn::TransformerBlock's names), ln_f.{weight,bias},
//   head.weight [vocab, width], head.bias [vocab].
#ifndef SEAM_EXAMPLES_CHAR_TRANSFORMER_MODEL_H_
#define SEAM_EXAMPLES_CHAR_TRANSFORMER_MODEL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "seam/nn.h"
#include "seam/tensor.h"

namespace char_transformer {

struct ModelConfig {
  int64_t vocab = 0;
  int64_t width = 128;
  int64_t layers = 4;
  int64_t heads = 4;
  int64_t context = 64;
};

class CharTransformer : public seam::nn::Module {
 public:
  // Initial values drawn by each module's own rule (docs/frontend.md) from seeds derived
  // from `seed`.
  CharTransformer(const ModelConfig& config, uint64_t seed);
  // tokens [batch, context] int32 -> logits [batch, context, vocab].
  seam::Tensor forward(const seam::Tensor& tokens) const override;
  std::vector<seam::Tensor*> parameters() override;
  std::vector<seam::nn::NamedParameter> named_parameters() override;
  std::vector<seam::nn::Module*> children() override;
  int64_t parameter_count();

  ModelConfig config;
  seam::nn::Embedding token_embedding, position_embedding;
  std::vector<std::unique_ptr<seam::nn::TransformerBlock>> blocks;
  seam::nn::LayerNorm ln_f;
  seam::nn::Linear head;
};

}  // namespace char_transformer

#endif  // SEAM_EXAMPLES_CHAR_TRANSFORMER_MODEL_H_
