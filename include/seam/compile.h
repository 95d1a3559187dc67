// Compiled steps: trace a step function once, then run its cached program directly (the
// reference's dynamo bridge: torch.compile with the openxla backend, run_cached_graph).
//
//   seam::CompiledStep step = seam::compile([&](const std::vector<seam::Tensor>& in) {
//     seam::Tensor loss = seam::nn::cross_entropy(model.forward(in[0]), in[1]);
//     optimizer.step(loss);
//     return std::vector<seam::Tensor>{loss};
//   });
//   for (...) float loss = step({x, y})[0].item<float>();
//
// A call runs fn and then the step barrier (as seam::sync: every live tensor with pending
// operations is synced, donation as usual) and captures what the barrier ran. Once two
// consecutive calls captured the same plan, later calls skip fn: they check guards, run
// the cached program on the inputs and the current state (parameters, optimizer states),
// point the state tensors at their new values and return new output tensors. Like jax.jit
// and torch.compile, host values fn uses (a learning rate in an optimizer, a tensor fn
// reads but does not overwrite) are frozen at capture: values that change go in as inputs.
// A guard that fails (another input shape, a copy of a parameter held, eager mode, data
// parallel, ...) makes that call a normal traced one. A step function that syncs or reads
// a tensor on the host is never replayed. docs/frontend.md ("Compiled steps") has the
// rules; SEAM_COMPILE_CHECK=1 runs fn on every call and throws when the plan changed.
#ifndef SEAM_COMPILE_H_
#define SEAM_COMPILE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "seam/source_location.h"
#include "seam/tensor.h"

namespace seam {

using StepFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs)>;

namespace lazy {
struct CompiledStepState;
}

// Not thread-safe: call one CompiledStep from one thread at a time.
class CompiledStep {
 public:
  // An empty `fn` is an Error (code 3). Reads SEAM_COMPILE_CHECK ("0"/unset or "1"; any
  // other value is an Error naming the variable).
  explicit CompiledStep(StepFunction fn);
  ~CompiledStep();
  CompiledStep(CompiledStep&&) noexcept;
  CompiledStep& operator=(CompiledStep&&) noexcept;

  // One step. Every input must be defined; fn's outputs must be defined tensors.
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs,
                                 SourceLocation site = SourceLocation::current());

  // How the calls so far ran: traced (fn called), replayed (fn not called), and the traced
  // calls that were meant to replay but a guard failed.
  int64_t traced_calls() const;
  int64_t replayed_calls() const;
  int64_t fallbacks() const;
  // Whether the step is never replayed (fn syncs or reads the host), and the latest reason
  // a call was not replayed ("" if none).
  bool never_replayed() const;
  std::string last_reason() const;

 private:
  std::unique_ptr<lazy::CompiledStepState> state_;
};

CompiledStep compile(StepFunction fn);

}  // namespace seam

#endif  // SEAM_COMPILE_H_
