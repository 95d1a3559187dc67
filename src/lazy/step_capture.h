// seam::compile's capture of one traced call of a step function: which program its step
// barrier ran, where each program parameter came from, where each result went, and the
// donations. Two consecutive equal captures make a plan that src/lazy/step_replay.h runs
// without calling the function. docs/frontend.md ("Compiled steps") gives the rules.
#ifndef SEAM_LAZY_STEP_CAPTURE_H_
#define SEAM_LAZY_STEP_CAPTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "src/ir/program.h"
#include "src/lazy/graph_executor.h"
#include "src/lazy/lazy_tensor.h"
#include "src/runtime/computation_client.h"

namespace seam::lazy {

// Where a program parameter's value comes from in a call.
struct ParameterSource {
  enum class Kind {
    kInput,     // the value of input `index`
    kCarried,   // the value the previous call gave result `index` (state fn overwrites)
    kFixed,     // a value fn created from host data (a hyperparameter scalar): frozen
    kExternal,  // a tensor fn reads from outside that fn does not overwrite: frozen
  };
  Kind kind = Kind::kInput;
  int64_t index = -1;
  ir::Shape shape;
  std::shared_ptr<DeviceValue> fixed;   // kFixed: kept and reused by replays
  std::weak_ptr<DeviceValue> external;  // kExternal
};

// A tensor handle (other than fn's outputs) that a result was assigned to, e.g. a
// parameter or an optimizer state overwritten by `assign`.
struct Destination {
  std::weak_ptr<TensorImpl> handle;
  long holders = 0;  // Tensor objects sharing the handle after the call
};

// The results of the last run of a compiled step (traced or replayed): a later call's
// parameters are matched against them.
struct StepResults {
  std::vector<std::weak_ptr<DeviceValue>> values;
  std::vector<bool> carried;  // whether result r was assigned to some handle
};

struct Capture {
  bool replayable = true;
  bool graph_break = false;  // fn synced or read the host: never replayed
  std::string why_not;       // when not replayable
  runtime::ComputationClient::ComputationPtr computation;
  std::vector<ir::Shape> inputs;
  std::vector<ParameterSource> sources;  // per program parameter
  std::vector<ir::Alias> aliases;
  std::vector<ir::Shape> result_shapes;
  std::vector<std::vector<Destination>> destinations;  // per result
  std::vector<int64_t> output_result;                  // per output of fn
  StepResults results;

  void Reject(std::string why);
};

// Watches one traced call: construct before fn runs (it installs itself as this thread's
// BarrierObserver), call EnterBarrier after fn returned and before the step barrier, and
// Finish after the barrier. Restores the previous observer when destroyed.
class StepRecorder : public BarrierObserver {
 public:
  StepRecorder(const std::vector<std::shared_ptr<TensorImpl>>& inputs, const StepResults& previous);
  ~StepRecorder() override;
  StepRecorder(const StepRecorder&) = delete;
  StepRecorder& operator=(const StepRecorder&) = delete;

  void EnterBarrier() { in_barrier_ = true; }
  Capture Finish(const std::vector<std::shared_ptr<TensorImpl>>& outputs);

  void OnBarrier(const BarrierRecord& record) override;
  void OnHostRead() override;

 private:
  void Classify(const BarrierRecord& record);

  BarrierObserver* previous_observer_;
  const StepResults& previous_;
  std::vector<const DeviceValue*> input_values_;
  absl::flat_hash_set<const DeviceValue*> preexisting_;
  bool in_barrier_ = false;
  bool saw_barrier_ = false;
  std::vector<std::vector<std::shared_ptr<TensorImpl>>> destination_handles_;
  Capture capture_;
};

// The first difference between two captures of the same step ("" when they are the same
// plan): the words name the parameter, input or result that changed. *guarded (when
// given) tells whether a replay's guards would see it (inputs, donations, handles), as
// opposed to something frozen at capture (the program, a fixed value, an outside tensor).
std::string DescribeChange(const Capture& before, const Capture& after, bool* guarded = nullptr);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_STEP_CAPTURE_H_
