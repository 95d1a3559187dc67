// The examples' checkpoints (docs/checkpoints.md; fashion_mnist and fashion_mnist_cnn): after
// each epoch DIR/epoch-<k>/ gets model.safetensors and optimizer.safetensors (the epoch and the
// data-order generator's state in the metadata), then DIR/latest is replaced atomically by
// "epoch-<k>": a checkpoint counts once `latest` names it.
#ifndef SEAM_EXAMPLES_FASHION_MNIST_CHECKPOINTING_H_
#define SEAM_EXAMPLES_FASHION_MNIST_CHECKPOINTING_H_

#include <random>
#include <string>

#include "seam/nn.h"
#include "seam/optim.h"

namespace fashion_mnist {

void SaveEpoch(const std::string& dir, int epoch, seam::nn::Module& model,
               seam::optim::Optimizer& optimizer, const std::mt19937_64& rng);

// Loads the checkpoint DIR/latest names into `model`, `optimizer` and `rng`; returns its
// epoch, or 0 when DIR/latest does not exist (a job restarted before its first save).
// Throws seam::Error naming the file when something is unreadable or does not fit.
int ResumeFrom(const std::string& dir, seam::nn::Module& model, seam::optim::Optimizer& optimizer,
               std::mt19937_64& rng);

}  // namespace fashion_mnist

#endif  // SEAM_EXAMPLES_FASHION_MNIST_CHECKPOINTING_H_
