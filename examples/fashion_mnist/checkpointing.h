// The examples' checkpoints (docs/checkpoints.md; fashion_mnist and fashion_mnist_cnn): after
// each epoch DIR/epoch-<k>/ gets model.safetensors and optimizer.safetensors (the epoch and the
// data-order generator's state in the metadata), then DIR/latest is replaced atomically by
// "epoch-<k>": a checkpoint counts once `latest` names it. At a preemption (docs/distributed.md,
// "Preemption") the same files go to DIR/epoch-<k>-step-<s>/ after s steps of epoch k:
// the metadata then also holds the steps of that epoch already taken and its running loss,
// and the generator's state is the one the epoch's shuffle started from.
#ifndef SEAM_EXAMPLES_FASHION_MNIST_CHECKPOINTING_H_
#define SEAM_EXAMPLES_FASHION_MNIST_CHECKPOINTING_H_

#include <cstdint>
#include <random>
#include <string>

#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace fashion_mnist {

// Where a checkpoint stands: `epoch` whole epochs done, then `step` steps of the next one
// (0: at the epoch's end) whose running loss sum was `loss_sum`.
struct Position {
  int epoch = 0;
  int64_t step = 0;
  float loss_sum = 0;
};

// After epoch `epoch`: DIR/epoch-<epoch>/, `rng` the generator after the epoch's shuffle.
void SaveEpoch(const std::string& dir, int epoch, seam::nn::Module& model,
               seam::optim::Optimizer& optimizer, const std::mt19937_64& rng);

// In the middle of an epoch (position.step > 0): DIR/epoch-<e + 1>-step-<s>/, `epoch_rng` the
// generator as it was before the epoch's shuffle.
void SaveMidEpoch(const std::string& dir, const Position& position, seam::nn::Module& model,
                  seam::optim::Optimizer& optimizer, const std::mt19937_64& epoch_rng);

// At the preemption's sync step (docs/distributed.md, "Preemption"): prints the step, saves
// the checkpoint of the middle of the epoch when `writer` (rank 0 of a job of several
// processes; the running loss is read from `loss_sum`), and returns 143, the status to exit
// with.
int StopAtPreemption(const std::string& dir, Position position, int64_t steps, int64_t global_step,
                     seam::nn::Module& model, seam::optim::Optimizer& optimizer,
                     const std::mt19937_64& epoch_rng, const seam::Tensor& loss_sum, bool writer);

// Loads the checkpoint DIR/latest names into `model`, `optimizer` and `rng`; returns its
// position, or epoch 0 step 0 when DIR/latest does not exist (a job restarted before its
// first save). Throws seam::Error naming the file when something is unreadable or does not
// fit.
Position ResumeFrom(const std::string& dir, seam::nn::Module& model,
                    seam::optim::Optimizer& optimizer, std::mt19937_64& rng);

// ResumeFrom, then a line on stdout saying where training goes on ("resumed from DIR after
// epoch 2", "resumed from DIR in epoch 3 after step 5 of 8", "no checkpoint in DIR yet:
// starting from epoch 1"); `steps` is the number of steps of an epoch.
Position ResumeAndSay(const std::string& dir, seam::nn::Module& model,
                      seam::optim::Optimizer& optimizer, std::mt19937_64& rng, int64_t steps);

}  // namespace fashion_mnist

#endif  // SEAM_EXAMPLES_FASHION_MNIST_CHECKPOINTING_H_
