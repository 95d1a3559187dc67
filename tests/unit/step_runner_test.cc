// The step runner's typed entry points (src/lazy/step_runner.h) and the client decorators
// (src/runtime/forwarding_client.h, src/runtime/process/client_decorators.h), over the
// counting fake client (tests/unit/fake_client.h), each test with a lazy::Runtime of its
// own, in one process: what each kind of run counts in the metrics, what it tells the
// client (BeginRun), the step-lock token, and the decorators' forwarding, job health and
// fault injection.
#include "src/lazy/step_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "seam/tensor.h"
#include "src/ir/text.h"
#include "src/lazy/runtime.h"
#include "src/runtime/forwarding_client.h"
#include "src/runtime/metrics.h"
#include "src/runtime/process/client_decorators.h"
#include "tests/unit/fake_client.h"

namespace seam {
namespace {

using lazy::StepLock;
using runtime::ComputationClient;
using ::testing::HasSubstr;

// The token: only Runtime::LockSteps makes one, and it cannot be copied or moved, so an
// entry point that takes it cannot be called without holding the step lock.
static_assert(!std::is_default_constructible_v<StepLock>);
static_assert(!std::is_copy_constructible_v<StepLock>);
static_assert(!std::is_move_constructible_v<StepLock>);
static_assert(!std::is_copy_assignable_v<StepLock>);
static_assert(!std::is_constructible_v<StepLock, lazy::Runtime&>);
static_assert(!std::is_convertible_v<std::unique_lock<std::recursive_mutex>, const StepLock&>);
static_assert(std::is_invocable_v<decltype(&lazy::RunBarrier), const StepLock&,
                                  const lazy::BarrierRun&, lazy::StepResult&>);
static_assert(!std::is_invocable_v<decltype(&lazy::RunBarrier), lazy::Runtime&,
                                   const lazy::BarrierRun&, lazy::StepResult&>);

int64_t Counter(const char* name) { return metrics::GetOrCreateCounter(name)->Value(); }
int64_t Samples(metrics::Metric* metric) { return metric->TotalSamples(); }

// The process-wide figures a run may change, read before and after it.
struct Figures {
  int64_t mark_step = Counter("MarkStep");
  int64_t cached = Counter("CachedCompile");
  int64_t uncached = Counter("UncachedCompile");
  int64_t replays = Counter("CompiledStepReplay");
  int64_t to_device = Samples(ComputationClient::TransferToDeviceMetric());
  int64_t from_device = Samples(ComputationClient::TransferFromDeviceMetric());
  int64_t compiles = Samples(ComputationClient::CompileMetric());
  int64_t eager_compiles = Samples(ComputationClient::EagerOpCompileMetric());
  int64_t handles = ComputationClient::CreateDataHandlesCounter()->Value();
};

ir::Program AddOne() {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(R"(program @add_one {
  %0 = parameter(0) : f32[2]
  %1 = constant(1) : f32[]
  %2 = broadcast_in_dim(%1), dims={} : f32[2]
  %3 = add(%0, %2) : f32[2]
  return (%3)
})");
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *std::move(program) : ir::Program();
}

std::shared_ptr<lazy::DeviceValue> HostValue(const std::vector<float>& values) {
  auto value = lazy::NewDeviceValue();
  value->host = ir::Literal::FromF32(values, {static_cast<int64_t>(values.size())});
  value->shape = value->host->shape;
  return value;
}

// Records every RunStart the runner tells, and forwards.
class RecordingClient final : public runtime::ForwardingClient {
 public:
  using ForwardingClient::ForwardingClient;
  absl::Status BeginRun(const RunStart& run) override {
    starts.push_back(run);
    return ForwardingClient::BeginRun(run);
  }
  std::vector<RunStart> starts;
};

class StepRunnerTest : public ::testing::Test {
 protected:
  StepRunnerTest() {
    auto fake = std::make_unique<fake::FakeClient>();
    fake_ = fake.get();
    client_ = std::make_unique<RecordingClient>(std::move(fake));
    runtime_ = std::make_unique<lazy::Runtime>(client_.get());
  }
  const fake::FakeClient::Counts& counts() const { return fake_->counts(); }

  fake::FakeClient* fake_;
  std::unique_ptr<RecordingClient> client_;
  std::unique_ptr<lazy::Runtime> runtime_;
  const ir::Program program_ = AddOne();
};

TEST_F(StepRunnerTest, AnUploadCountsAsAnUploadNotAHostReadOrAStep) {
  const std::vector<float> host = {1.5F, -2.5F};
  const ComputationClient::TensorSource source{ir::Shape{ir::DType::kF32, {2}}, host.data(),
                                               "ignored"};
  const Figures before;
  absl::StatusOr<std::vector<ComputationClient::DataPtr>> uploaded;
  {
    const StepLock lock = runtime_->LockSteps();
    uploaded = lazy::UploadHostBytes(lock, absl::MakeConstSpan(&source, 1));
  }
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  ASSERT_EQ(uploaded->size(), 1u);
  EXPECT_EQ((*uploaded)[0]->device(), "FAKE:0");  // the default device, whatever the source says
  const Figures after;
  EXPECT_EQ(after.to_device - before.to_device, 1);
  EXPECT_EQ(after.handles - before.handles, 1);
  EXPECT_EQ(after.from_device, before.from_device);
  EXPECT_EQ(after.mark_step, before.mark_step);
  EXPECT_EQ(counts().transfers_to, 1);
  EXPECT_EQ(counts().transfers_from, 0);
  EXPECT_EQ(counts().compiles, 0);
  EXPECT_TRUE(client_->starts.empty());  // no program ran

  std::vector<ir::Literal> read;
  ASSERT_TRUE(lazy::ReadDeviceValues(*runtime_, *uploaded, read).ok());
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].bytes, ir::Literal::FromF32(host, {2}).bytes);
  const Figures last;
  EXPECT_EQ(last.from_device - after.from_device, 1);
  EXPECT_EQ(last.to_device, after.to_device);
  EXPECT_EQ(last.mark_step, after.mark_step);
  EXPECT_EQ(counts().transfers_from, 1);
}

TEST_F(StepRunnerTest, ABarrierIsAStepThatDonatesAndTheSyncBeforeAReadIsNot) {
  auto x = HostValue({1.0F, 2.0F});
  std::vector<std::shared_ptr<lazy::DeviceValue>> parameters = {x};
  lazy::BuiltProgram program(program_);
  lazy::StepResult result;
  const Figures before;
  {
    const StepLock lock = runtime_->LockSteps();
    lazy::BarrierRun read_sync;
    read_sync.host_read = true;
    read_sync.parameters = parameters;
    read_sync.program = &program;
    ASSERT_TRUE(lazy::RunBarrier(lock, read_sync, result).ok());
  }
  const Figures middle;
  EXPECT_EQ(middle.mark_step, before.mark_step);
  EXPECT_EQ(middle.uncached - before.uncached, 1);
  EXPECT_EQ(middle.compiles - before.compiles, 1);
  ASSERT_EQ(client_->starts.size(), 1u);
  EXPECT_FALSE(client_->starts[0].step);
  EXPECT_FALSE(client_->starts[0].job_wide);
  EXPECT_FALSE(x->donated);

  const ir::Alias alias{0, 0};
  {
    const StepLock lock = runtime_->LockSteps();
    lazy::BarrierRun step;
    step.parameters = parameters;
    step.program = &program;
    step.donations = absl::MakeConstSpan(&alias, 1);
    ASSERT_TRUE(lazy::RunBarrier(lock, step, result).ok());
  }
  const Figures after;
  EXPECT_EQ(after.mark_step - middle.mark_step, 1);
  EXPECT_EQ(after.cached - middle.cached, 1);    // the same program, found in the cache
  EXPECT_EQ(after.to_device, middle.to_device);  // x is on the device since the first run
  ASSERT_EQ(client_->starts.size(), 2u);
  EXPECT_TRUE(client_->starts[1].step);
  EXPECT_TRUE(x->donated);
  ASSERT_EQ(result.outputs.size(), 1u);
  std::vector<ir::Literal> read;
  ASSERT_TRUE(lazy::ReadDeviceValues(*runtime_, result.outputs[0], read).ok());
  EXPECT_EQ(read[0].bytes, ir::Literal::FromF32({2.0F, 3.0F}, {2}).bytes);

  // x's buffer now belongs to the output: a step that uses it fails naming the caller.
  const StepLock lock = runtime_->LockSteps();
  lazy::BarrierRun again;
  again.parameters = parameters;
  again.program = &program;
  const absl::Status stale = lazy::RunBarrier(lock, again, result);
  EXPECT_EQ(stale.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(stale.message(), HasSubstr("sync: the tensor f32[2]"));
  EXPECT_EQ(client_->starts.size(), 2u);  // refused before any crossing
}

TEST_F(StepRunnerTest, AnEagerOpIsNoStepAndNamesItsOpInErrors) {
  auto x = HostValue({1.0F, 2.0F});
  std::vector<std::shared_ptr<lazy::DeviceValue>> parameters = {x};
  lazy::BuiltProgram program(program_);
  lazy::StepResult result;
  const Figures before;
  const StepLock lock = runtime_->LockSteps();
  lazy::EagerOpRun op;
  op.op = "add";
  op.parameters = parameters;
  op.program = &program;
  ASSERT_TRUE(lazy::RunEagerOp(lock, op, result).ok());
  const Figures after;
  EXPECT_EQ(after.mark_step, before.mark_step);
  EXPECT_EQ(after.eager_compiles - before.eager_compiles, 1);  // timed as an eager op's
  EXPECT_EQ(after.compiles, before.compiles);
  ASSERT_EQ(client_->starts.size(), 1u);
  EXPECT_FALSE(client_->starts[0].step);

  x->donated = true;
  const absl::Status stale = lazy::RunEagerOp(lock, op, result);
  EXPECT_THAT(stale.message(), HasSubstr("add: the tensor f32[2]"));
}

TEST_F(StepRunnerTest, AReplayIsAStepWithItsOwnProgram) {
  auto x = HostValue({1.0F, 2.0F});
  std::vector<std::shared_ptr<lazy::DeviceValue>> parameters = {x};
  lazy::BuiltProgram program(program_);
  lazy::StepResult result;
  const StepLock lock = runtime_->LockSteps();
  lazy::BarrierRun first;
  first.parameters = parameters;
  first.program = &program;
  ASSERT_TRUE(lazy::RunBarrier(lock, first, result).ok());
  const Figures before;
  lazy::ReplayRun replay;
  replay.parameters = parameters;
  replay.computation = result.computation;
  ASSERT_TRUE(lazy::RunReplay(lock, replay, result).ok());
  const Figures after;
  EXPECT_EQ(after.mark_step - before.mark_step, 1);
  EXPECT_EQ(after.replays - before.replays, 1);
  EXPECT_EQ(after.cached - before.cached, 1);
  EXPECT_EQ(after.uncached, before.uncached);
  EXPECT_EQ(counts().compiles, 1);
  EXPECT_EQ(counts().executes, 2);
  ASSERT_EQ(client_->starts.size(), 2u);
  EXPECT_TRUE(client_->starts[1].step);
}

TEST_F(StepRunnerTest, AnEmptyBarrierCountsMarkStepAndCrossesNothing) {
  const Figures before;
  {
    const StepLock lock = runtime_->LockSteps();
    lazy::CountEmptyBarrier(lock);
  }
  EXPECT_EQ(Figures().mark_step - before.mark_step, 1);
  EXPECT_EQ(counts().transfers_to + counts().compiles + counts().executes, 0);
  EXPECT_TRUE(client_->starts.empty());
}

TEST_F(StepRunnerTest, TheStepLockIsRecursiveAndHeldUntilTheTokenGoes) {
  std::atomic<bool> taken{false};
  std::thread other;
  {
    const StepLock outer = runtime_->LockSteps();
    { const StepLock inner = runtime_->LockSteps(); }  // the same thread takes it again
    EXPECT_EQ(&outer.runtime(), runtime_.get());
    other = std::thread([&] {
      const StepLock lock = runtime_->LockSteps();
      taken = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(taken);  // another thread waits while this one holds it
  }
  other.join();
  EXPECT_TRUE(taken);
}

// The decorators over the fake client: each crossing reaches the wrapped client once, and
// the crossing's bookkeeping is recorded once.
TEST(ClientDecoratorTest, AForwardingClientForwardsEveryCrossingAndRecordsItOnce) {
  auto fake = std::make_unique<fake::FakeClient>(2);
  fake::FakeClient* inner = fake.get();
  runtime::ForwardingClient client(std::move(fake));
  EXPECT_EQ(client.GetDefaultDevice(), "FAKE:0");
  EXPECT_EQ(client.GetLocalDevices(), inner->GetLocalDevices());
  EXPECT_EQ(client.GetPlatformName(), "fake");
  EXPECT_EQ(client.GetNumProcesses(), 1);
  const Figures before;
  const int64_t replicated = Samples(ComputationClient::ExecuteReplicatedMetric());
  const ir::Literal x = ir::Literal::FromF32({1.0F, 2.0F}, {2});
  auto data = client.TransferToDevice({{x.shape, x.bytes.data(), "FAKE:0"}});
  ASSERT_TRUE(data.ok()) << data.status();
  std::vector<ComputationClient::CompileInstance> instances;
  instances.push_back({AddOne(), "FAKE:0", false});
  auto compiled = client.Compile(std::move(instances));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_TRUE(client.AwaitRunsInFlightBelow("FAKE:0", 1).ok());
  auto outputs = client.ExecuteComputation(*compiled->front(), *data, "FAKE:0", {});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ir::Program two = AddOne();
  two.replica_count = 2;
  std::vector<ComputationClient::CompileInstance> replicated_instances;
  replicated_instances.push_back({two, "FAKE:0", false});
  auto compiled_two = client.Compile(std::move(replicated_instances));
  ASSERT_TRUE(compiled_two.ok()) << compiled_two.status();
  auto second = client.TransferToDevice({{x.shape, x.bytes.data(), "FAKE:1"}});
  ASSERT_TRUE(second.ok());
  auto both =
      client.ExecuteReplicated(*compiled_two->front(), {*data, *second}, {"FAKE:0", "FAKE:1"});
  ASSERT_TRUE(both.ok()) << both.status();
  auto read = client.TransferFromDevice(*outputs);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->front().bytes, ir::Literal::FromF32({2.0F, 3.0F}, {2}).bytes);
  std::vector<uint8_t> into(x.bytes.size());
  ASSERT_TRUE(client.TransferFromDeviceInto((*both)[1][0], absl::MakeSpan(into)).ok());
  EXPECT_EQ(into, read->front().bytes);
  ASSERT_TRUE(client.BeginRun({}).ok());

  EXPECT_EQ(inner->counts().transfers_to, 2);
  EXPECT_EQ(inner->counts().compiles, 2);
  EXPECT_EQ(inner->counts().executes, 1);
  EXPECT_EQ(inner->counts().executes_replicated, 1);
  EXPECT_EQ(inner->counts().transfers_from, 2);
  const Figures after;
  EXPECT_EQ(after.to_device - before.to_device, 2);  // once per crossing, not twice
  EXPECT_EQ(after.compiles - before.compiles, 2);
  EXPECT_EQ(after.from_device - before.from_device, 2);
  // Handles: two uploads, one output, two replicas' outputs.
  EXPECT_EQ(after.handles - before.handles, 5);
  EXPECT_EQ(Samples(ComputationClient::ExecuteReplicatedMetric()), replicated);  // the fake's
}

// A fake of a job of two processes whose runs fail as a collective with a lost peer does.
class TwoProcessClient final : public runtime::ForwardingClient {
 public:
  using ForwardingClient::ForwardingClient;
  int64_t GetNumProcesses() const override { return 2; }
  absl::Status failure = absl::OkStatus();

 protected:
  absl::StatusOr<std::vector<DataPtr>> DoExecuteComputation(
      const Computation& computation, const std::vector<DataPtr>& arguments,
      const std::string& device, const ExecuteComputationOptions& options) override {
    if (!failure.ok()) return failure;
    return ForwardingClient::DoExecuteComputation(computation, arguments, device, options);
  }
};

struct HealthFixture {
  std::atomic<int> health_calls{0};
  std::atomic<int> lost_after{1 << 30};  // health fails from this call on
  std::atomic<int> job_wide{0};
  TwoProcessClient* job = nullptr;
  std::unique_ptr<runtime::JobHealthClient> client;

  HealthFixture() {
    auto two = std::make_unique<TwoProcessClient>(std::make_unique<fake::FakeClient>());
    job = two.get();
    runtime::JobHealthClient::Probe probe;
    probe.health = [this]() -> absl::Status {
      if (++health_calls >= lost_after) return absl::AbortedError("the job lost process 1");
      return absl::OkStatus();
    };
    probe.begin_job_wide = [this] {
      ++job_wide;
      return absl::OkStatus();
    };
    probe.loss_notice_wait = std::chrono::milliseconds(500);
    client = std::make_unique<runtime::JobHealthClient>(std::move(two), std::move(probe));
  }
};

TEST(ClientDecoratorTest, ALostProcessFailsEveryRunThroughTheHealthDecorator) {
  HealthFixture health;
  lazy::Runtime rt(health.client.get());
  auto x = HostValue({1.0F, 2.0F});
  std::vector<std::shared_ptr<lazy::DeviceValue>> parameters = {x};
  const ir::Program add_one = AddOne();
  lazy::BuiltProgram program(add_one);
  lazy::StepResult result;
  const StepLock lock = rt.LockSteps();
  lazy::BarrierRun step;
  step.parameters = parameters;
  step.program = &program;
  ASSERT_TRUE(lazy::RunBarrier(lock, step, result).ok());
  EXPECT_EQ(health.job_wide, 0);  // not a job-wide run

  health.lost_after = health.health_calls + 1;
  const auto& inner = static_cast<const fake::FakeClient&>(health.job->inner());
  const absl::Status lost = lazy::RunBarrier(lock, step, result);
  EXPECT_EQ(lost.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(lost.message(), "the job lost process 1");
  EXPECT_EQ(inner.counts().executes, 1);  // the failed run was never launched
}

TEST(ClientDecoratorTest, ACollectivesFailureNamesTheLostProcess) {
  HealthFixture health;
  lazy::Runtime rt(health.client.get());
  auto x = HostValue({1.0F, 2.0F});
  std::vector<std::shared_ptr<lazy::DeviceValue>> parameters = {x};
  const ir::Program add_one = AddOne();
  lazy::BuiltProgram program(add_one);
  lazy::StepResult result;
  const StepLock lock = rt.LockSteps();
  lazy::BarrierRun step;
  step.parameters = parameters;
  step.program = &program;

  // Not a collective's failure: passed through as it is, health not asked again.
  health.job->failure = absl::InvalidArgumentError("bad argument");
  absl::Status status = lazy::RunBarrier(lock, step, result);
  EXPECT_EQ(status, absl::InvalidArgumentError("bad argument"));

  // A collective's failure while the job is whole: its own error, after the wait.
  health.job->failure = absl::UnavailableError("peer gone");
  status = lazy::RunBarrier(lock, step, result);
  EXPECT_EQ(status, absl::UnavailableError("peer gone"));

  // The coordinator reports the loss after the run began: the error names it.
  health.lost_after = health.health_calls + 2;  // BeginRun's check passes, the next fails
  status = lazy::RunBarrier(lock, step, result);
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(status.message(), "the job lost process 1 (the step failed: peer gone)");
  EXPECT_FALSE(x->donated);
}

TEST(ClientDecoratorTest, AJobWideRunBeginsAJobWideStep) {
  HealthFixture health;
  ComputationClient::RunStart run;
  ASSERT_TRUE(health.client->BeginRun(run).ok());
  EXPECT_EQ(health.job_wide, 0);
  run.job_wide = true;
  ASSERT_TRUE(health.client->BeginRun(run).ok());
  EXPECT_EQ(health.job_wide, 1);
  EXPECT_EQ(health.health_calls, 2);
}

// The fault-injection decorator counts steps only (not eager ops, not the sync before a
// host read) and sends its signals through the plan's sender here instead of kill(2).
TEST(ClientDecoratorTest, FaultInjectionSignalsAtItsStep) {
  std::vector<std::pair<pid_t, int>> sent;
  runtime::FaultInjectionClient::Plan plan;
  plan.kill_at_step = 3;
  plan.sigterm_at_step = 2;
  plan.sigterm_pid = 4242;
  plan.send = [&](pid_t pid, int signal) { sent.emplace_back(pid, signal); };
  ASSERT_TRUE(runtime::FaultInjectionClient::Acts(plan));
  auto fake = std::make_unique<fake::FakeClient>();
  fake::FakeClient* inner = fake.get();
  runtime::FaultInjectionClient client(std::move(fake), std::move(plan));
  lazy::Runtime rt(&client);
  lazy::ScopedRuntime scoped(rt);

  Tensor x = Tensor::from_vector({1.0F, 2.0F}, {2});
  Tensor y = x + 1.0F;
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2.0F, 3.0F}));  // a read's sync: no step
  EXPECT_TRUE(sent.empty());
  Tensor z = y * 2.0F;
  sync();  // step 1
  EXPECT_TRUE(sent.empty());
  z = z + 1.0F;
  sync();  // step 2
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0], std::make_pair(pid_t{4242}, SIGTERM));
  set_eager(true);
  Tensor e = z * 3.0F;  // eager ops: no steps
  set_eager(false);
  EXPECT_EQ(sent.size(), 1u);
  e = e + 1.0F;
  sync();  // step 3
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1], std::make_pair(getpid(), SIGKILL));
  EXPECT_GE(inner->counts().executes, 4);
}

TEST(ClientDecoratorTest, AnUnreadableFaultSettingFailsEveryStep) {
  runtime::FaultInjectionClient::Plan plan;
  plan.kill_at_step = absl::InvalidArgumentError("SEAM_TEST_KILL_AT_STEP is not an integer: x");
  plan.send = [](pid_t, int) { ADD_FAILURE() << "no signal expected"; };
  ASSERT_TRUE(runtime::FaultInjectionClient::Acts(plan));
  EXPECT_FALSE(runtime::FaultInjectionClient::Acts(runtime::FaultInjectionClient::Plan{}));
  runtime::FaultInjectionClient client(std::make_unique<fake::FakeClient>(), std::move(plan));
  ComputationClient::RunStart run;
  EXPECT_TRUE(client.BeginRun(run).ok());  // not a step
  run.step = true;
  EXPECT_EQ(client.BeginRun(run),
            absl::InvalidArgumentError("SEAM_TEST_KILL_AT_STEP is not an integer: x"));
}

}  // namespace
}  // namespace seam
