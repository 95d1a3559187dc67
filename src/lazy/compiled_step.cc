// seam::compile: trace calls until two consecutive captures agree, then replay.
#include <optional>

#include "absl/strings/str_cat.h"
#include "seam/compile.h"
#include "src/base/env.h"
#include "src/base/logging.h"
#include "src/base/settings.h"
#include "src/lazy/eager.h"
#include "src/lazy/graph_executor.h"
#include "src/lazy/step_capture.h"
#include "src/lazy/step_replay.h"
#include "src/lazy/tensor_internal.h"
#include "src/runtime/metrics.h"

namespace seam {
namespace lazy {

struct CompiledStepState {
  StepFunction fn;
  bool check = false;           // SEAM_COMPILE_CHECK=1
  bool debug = false;           // SEAM_DEBUG=1
  std::optional<Capture> last;  // the latest traced call's capture (when replayable)
  std::optional<Capture> plan;  // set once two consecutive captures agreed
  StepResults results;          // of the latest call, traced or replayed
  bool never = false;
  int64_t traced = 0, replayed = 0, fallbacks = 0;
  std::string reason;

  void Note(std::string why) {
    reason = std::move(why);
    if (debug) base::Log(base::LogSeverity::kInfo, absl::StrCat("compiled step: ", reason));
  }
};

namespace {

bool EnvFlag(base::Setting setting) {
  const char* name = base::SettingName(setting);
  std::optional<std::string> value = base::ReadSetting(setting);
  if (!value || value->empty() || *value == "0") return false;
  if (*value == "1") return true;
  throw Error(ErrorCode::kInvalidArgument,
              absl::StrCat("Environment variable ", name, " must be 0 or 1, got '", *value, "'"));
}

std::vector<std::shared_ptr<TensorImpl>> Impls(const std::vector<Tensor>& tensors,
                                               const char* what) {
  std::vector<std::shared_ptr<TensorImpl>> impls;
  impls.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].defined()) {
      throw Error(ErrorCode::kInvalidArgument,
                  absl::StrCat("compiled step: ", what, " ", i, " is undefined"));
    }
    impls.push_back(TensorAccess::Impl(tensors[i], what));
  }
  return impls;
}

// A call that runs fn and the step barrier, and captures it.
std::vector<Tensor> Trace(CompiledStepState& s, const std::vector<Tensor>& inputs,
                          const std::vector<std::shared_ptr<TensorImpl>>& input_impls,
                          const SourceLocation& site) {
  static metrics::Counter* traces = metrics::GetOrCreateCounter("CompiledStepTrace");
  traces->Add(1);
  ++s.traced;
  std::optional<Capture> capture;
  std::vector<Tensor> outputs;
  {
    absl::StatusOr<bool> eager = EagerEnabled();
    if (!eager.ok()) Throw(eager.status());
    StepRecorder recorder(input_impls, s.results);
    outputs = s.fn(inputs);
    std::vector<std::shared_ptr<TensorImpl>> output_impls = Impls(outputs, "output");
    recorder.EnterBarrier();
    sync(site);
    capture = recorder.Finish(output_impls);
    if (*eager) capture->Reject("eager mode is on");
  }
  s.results = capture->results;
  if (!capture->replayable) {
    s.Note(capture->why_not);
    if (capture->graph_break && !s.never) {
      s.never = true;
      s.Note(absl::StrCat(capture->why_not, ": this step is never replayed"));
    }
    s.last.reset();
    s.plan.reset();
    return outputs;
  }
  if (s.check && s.plan) {
    // Differences a replay's guards would see make it fall back; the others it would not
    // see, so they would give another result than fn.
    bool guarded = false;
    std::string change = DescribeChange(*s.plan, *capture, &guarded);
    if (!change.empty() && !guarded) {
      throw Error(ErrorCode::kFailedPrecondition,
                  absl::StrCat("SEAM_COMPILE_CHECK: the compiled step changed since it was "
                               "captured: ",
                               change));
    }
  }
  if (s.last) {
    std::string change = DescribeChange(*s.last, *capture);
    if (change.empty()) {
      if (!s.plan) s.Note("two calls captured the same plan: replaying from the next call");
      s.plan = *capture;
    } else {
      s.Note(absl::StrCat("not replayed yet: ", change));
      s.plan.reset();
    }
  }
  s.last = std::move(capture);
  return outputs;
}

}  // namespace
}  // namespace lazy

CompiledStep::CompiledStep(StepFunction fn) : state_(std::make_unique<lazy::CompiledStepState>()) {
  if (!fn) throw Error(ErrorCode::kInvalidArgument, "compile: the step function is empty");
  state_->fn = std::move(fn);
  state_->check = lazy::EnvFlag(base::Setting::kSeamCompileCheck);
  state_->debug = lazy::EnvFlag(base::Setting::kSeamDebug);
}

CompiledStep::~CompiledStep() = default;
CompiledStep::CompiledStep(CompiledStep&&) noexcept = default;
CompiledStep& CompiledStep::operator=(CompiledStep&&) noexcept = default;

std::vector<Tensor> CompiledStep::operator()(const std::vector<Tensor>& inputs,
                                             SourceLocation site) {
  if (!state_)
    throw Error(ErrorCode::kFailedPrecondition, "compiled step: used after it was moved from");
  lazy::CompiledStepState& s = *state_;
  std::vector<std::shared_ptr<lazy::TensorImpl>> impls = lazy::Impls(inputs, "input");
  // Inside another compiled step's function a call is always traced, so that the enclosing
  // capture sees its barrier (and treats it as a graph break).
  lazy::BarrierObserver* observer = lazy::SetBarrierObserver(nullptr);
  lazy::SetBarrierObserver(observer);
  if (s.plan && !s.check && !s.never && observer == nullptr) {
    std::string why;
    absl::StatusOr<std::vector<lazy::NodePtr>> leaves =
        lazy::ReplayStep(*s.plan, impls, s.results, &why);
    if (!leaves.ok()) lazy::Throw(leaves.status());
    if (why.empty()) {
      ++s.replayed;
      std::vector<Tensor> outputs;
      outputs.reserve(s.plan->output_result.size());
      for (int64_t r : s.plan->output_result) {
        outputs.push_back(lazy::Wrap((*leaves)[static_cast<size_t>(r)]));
      }
      return outputs;
    }
    static metrics::Counter* fallbacks = metrics::GetOrCreateCounter("CompiledStepFallback");
    fallbacks->Add(1);
    ++s.fallbacks;
    s.Note(absl::StrCat("traced instead of replayed: ", why));
    // Stability detection restarts: the next capture is compared with the plan.
    s.last = std::move(s.plan);
    s.plan.reset();
  }
  return lazy::Trace(s, inputs, impls, site);
}

int64_t CompiledStep::traced_calls() const { return state_->traced; }
int64_t CompiledStep::replayed_calls() const { return state_->replayed; }
int64_t CompiledStep::fallbacks() const { return state_->fallbacks; }
bool CompiledStep::never_replayed() const { return state_->never; }
std::string CompiledStep::last_reason() const { return state_->reason; }

CompiledStep compile(StepFunction fn) { return CompiledStep(std::move(fn)); }

}  // namespace seam
