// Optimizers. step() records each parameter's update and assigns the new value to the
// parameter's handle (the old value is left for a later buffer donation); nothing runs
// until the next sync. Hyperparameters travel as program data, so changing the learning
// rate between steps does not recompile.
#ifndef SEAM_OPTIM_H_
#define SEAM_OPTIM_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "seam/distributed.h"
#include "seam/nn.h"
#include "seam/tensor.h"

namespace seam::optim {

class Optimizer {
 public:
  // The parameters to update: a module's (Sgd opt(model, 0.1f)), or handles given one by
  // one. The module (or the tensors) must outlive the optimizer and stay where they are.
  explicit Optimizer(nn::Module& module) : params_(module.parameters()) {}
  explicit Optimizer(std::vector<Tensor*> params) : params_(std::move(params)) {}
  virtual ~Optimizer() = default;
  // Gradients of the scalar `loss` for every parameter, then one update.
  void step(const Tensor& loss);
  // Data parallel (torch_xla's xm.optimizer_step): each gradient is averaged over the
  // replicas of `dp` (all_reduce sum divided by the replica count, inside the program)
  // before the update, so every replica applies the same update to the same parameters.
  // The gradients of one element type share one all_reduce (flattened and concatenated).
  void step(const Tensor& loss, const DataParallel& dp);
  virtual void update(const std::vector<Tensor>& grads) = 0;
  const std::vector<Tensor*>& params() const { return params_; }
  // The optimizer's own state tensors (empty before the first step), which each step
  // overwrites like the parameters: SGD's velocities, Adam's first then second moments.
  virtual std::vector<const Tensor*> state() const { return {}; }

  // The optimizer's state by PyTorch's names: per parameter i, "state.<i>.<key>" (Sgd with
  // momentum: momentum_buffer; Adam: exp_avg, exp_avg_sq, step, a float32 scalar), and each
  // hyperparameter as a float32 scalar "param_groups.0.<name>" (lr, momentum, ...). With
  // `layout` (the model's named_parameters()), the state of a parameter PyTorch keeps
  // transposed is given transposed too. Before the first step the per-parameter state is
  // zeros, as it starts.
  nn::StateDict state_dict(const std::vector<nn::NamedParameter>& layout = {});
  // Sets the state and the hyperparameters from `state` (the same `layout`). The optimizer
  // must have the same parameters and the same kind of settings (momentum on or off,
  // capturable or not). Every name, shape and dtype is checked first; any problem is an
  // Error naming each one, and then nothing has changed.
  void load_state_dict(const nn::StateDict& state,
                       const std::vector<nn::NamedParameter>& layout = {});

 protected:
  // One state tensor: its key under "state.<param>." (param < 0: none).
  struct StateEntry {
    std::string key;
    int64_t param = -1;
    Tensor* tensor = nullptr;
  };
  // The state tensors, created as zeros first if the optimizer has not stepped yet.
  virtual std::vector<StateEntry> StateEntries() { return {}; }
  // Called after a load wrote the state tensors (Adam: its host step count).
  virtual void StateLoaded() {}
  struct Hyperparameter {
    std::string name;
    float* value = nullptr;
  };
  virtual std::vector<Hyperparameter> Hyperparameters() { return {}; }

  std::vector<Tensor*> params_;
};

// p -= lr * v, v = momentum * v + (g + weight_decay * p).
class Sgd : public Optimizer {
 public:
  Sgd(nn::Module& module, float lr, float momentum = 0, float weight_decay = 0)
      : Sgd(module.parameters(), lr, momentum, weight_decay) {}
  Sgd(std::vector<Tensor*> params, float lr, float momentum = 0, float weight_decay = 0);
  void update(const std::vector<Tensor>& grads) override;
  std::vector<const Tensor*> state() const override;
  float lr, momentum, weight_decay;

 protected:
  std::vector<StateEntry> StateEntries() override;
  std::vector<Hyperparameter> Hyperparameters() override;

 private:
  std::vector<Tensor> velocity_;
};

// Adam (Kingma & Ba) with bias correction folded into the step size.
// By default the step count is a host integer and the bias-corrected step size is computed
// on the host, so it is a different program scalar every step: a seam::compile step that
// runs it is traced every call and never replayed. With `capturable` (PyTorch's option of
// that name) the step count is a device tensor (an f32 scalar, returned by state() after
// the moments, so sync and donation treat it like them) and 1 - beta^t is computed in the
// program with pow (in f32, converted to the parameters' type), so every step records the
// same program with the same fixed values and a compiled Adam step replays. The two modes
// agree within float rounding, not bit for bit (docs/frontend.md, Compiled steps).
class Adam : public Optimizer {
 public:
  explicit Adam(nn::Module& module, float lr = 1e-3f, float beta1 = 0.9f, float beta2 = 0.999f,
                float eps = 1e-8f, float weight_decay = 0, bool capturable = false)
      : Adam(module.parameters(), lr, beta1, beta2, eps, weight_decay, capturable) {}
  Adam(std::vector<Tensor*> params, float lr = 1e-3f, float beta1 = 0.9f, float beta2 = 0.999f,
       float eps = 1e-8f, float weight_decay = 0, bool capturable = false);
  void update(const std::vector<Tensor>& grads) override;
  // First moments, second moments, then (capturable only) the step count.
  std::vector<const Tensor*> state() const override;
  float lr, beta1, beta2, eps, weight_decay;
  bool capturable() const { return capturable_; }

 protected:
  std::vector<StateEntry> StateEntries() override;
  void StateLoaded() override;
  std::vector<Hyperparameter> Hyperparameters() override;
  // AdamW: weight decay scales the parameter by (1 - lr * weight_decay) before the update
  // instead of adding weight_decay * p to the gradient.
  bool decoupled_weight_decay_ = false;

 private:
  // The step count of each parameter's state (one value for all), when not capturable.
  std::vector<Tensor> host_steps_;
  bool capturable_;
  int64_t t_ = 0;
  std::vector<Tensor> m_, v_;
  std::vector<Tensor> step_;  // capturable: one f32 scalar, the device step count
};

// AdamW (Loshchilov & Hutter; torch.optim.AdamW): Adam whose weight decay is decoupled from
// the gradient, p <- p * (1 - lr * weight_decay) and then Adam's update of it with the
// plain gradient; PyTorch's defaults (weight_decay 1e-2). Its state dict is Adam's (the
// same names and hyperparameters), and `capturable` means the same.
class AdamW : public Adam {
 public:
  explicit AdamW(nn::Module& module, float lr = 1e-3f, float beta1 = 0.9f, float beta2 = 0.999f,
                 float eps = 1e-8f, float weight_decay = 1e-2f, bool capturable = false)
      : AdamW(module.parameters(), lr, beta1, beta2, eps, weight_decay, capturable) {}
  AdamW(std::vector<Tensor*> params, float lr = 1e-3f, float beta1 = 0.9f, float beta2 = 0.999f,
        float eps = 1e-8f, float weight_decay = 1e-2f, bool capturable = false)
      : Adam(std::move(params), lr, beta1, beta2, eps, weight_decay, capturable) {
    decoupled_weight_decay_ = true;
  }
};

}  // namespace seam::optim

#endif  // SEAM_OPTIM_H_
