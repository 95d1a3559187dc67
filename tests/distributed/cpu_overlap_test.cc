// Overlapped all_reduce in the CPU plugin (collective_schedule.h, Rendezvous's Start and
// Finish): the schedule a client of a job of several processes compiles, and two clients of
// one job in this process (process 0 and 1, each on its own thread, over Gloo on
// 127.0.0.1) running a program of three all_reduces whose results are read at different
// points, round after round. Also under ThreadSanitizer (label tsan): the communication
// thread writes the run's memory that the device's thread reads after the finish.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/compile/collective_schedule.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/compile/fusion.h"
#include "src/testing/file_kv_store.h"
#include "src/testing/pjrt_client.h"
#include "src/testing/worker_process.h"

namespace seam::testing {
namespace {

constexpr int64_t kElements = 40000;

// %2 and %4 are sums of values computed early; %6 a max of one computed later; the result
// reads all three (%7 only two of them, before %6 is needed).
std::string Program() {
  const std::string shape = "f32[" + std::to_string(kElements) + "]";
  const std::string all = ", group_size={2}, replica_groups={0,1} : " + shape;
  return "program @overlap replicas=2 {\n"
         "  %0 = parameter(0) : " +
         shape +
         "\n"
         "  %1 = multiply(%0, %0) : " +
         shape +
         "\n"
         "  %2 = all_reduce_sum(%1)" +
         all +
         "\n"
         "  %3 = add(%0, %0) : " +
         shape +
         "\n"
         "  %4 = all_reduce_sum(%3)" +
         all +
         "\n"
         "  %5 = multiply(%3, %3) : " +
         shape +
         "\n"
         "  %6 = all_reduce_max(%5)" +
         all +
         "\n"
         "  %7 = add(%2, %4) : " +
         shape +
         "\n"
         "  %8 = add(%7, %6) : " +
         shape +
         "\n"
         "  return (%8)\n}\n";
}

float Input(int replica, int64_t e) {
  return static_cast<float>(replica + 1) + static_cast<float>(e % 7) * 0.25F;
}

// The host's value of element e: the replicas' squares summed, plus twice their sum, plus
// the larger doubled square.
float Want(int64_t e) {
  const float x0 = Input(0, e), x1 = Input(1, e);
  const float sum = x0 * x0 + x1 * x1;
  const float twice = (x0 + x0) + (x1 + x1);
  const float max = std::max((x0 + x0) * (x0 + x0), (x1 + x1) * (x1 + x1));
  return (sum + twice) + max;
}

// Every step that reads an all_reduce's result, or a value computed from one, comes after
// every step that does not; each all_reduce finishes before its first reader.
TEST(CpuOverlapTest, ReadersOfAllReducesComeAfterTheRest) {
  absl::StatusOr<std::shared_ptr<const cpu::Executable>> compiled =
      cpu::Executable::Compile(Program(), /*fuse=*/true, /*overlap_collectives=*/true);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const cpu::Executable& executable = **compiled;
  const ir::Program& program = executable.program();
  const cpu::FusionPlan& plan = executable.fusion();
  const int steps = static_cast<int>(plan.steps.size());
  std::vector<bool> dependent(steps, false);
  int first_dependent = steps;
  for (int s = 0; s < steps; ++s) {
    for (int v : cpu::StepReads(program, plan, plan.steps[s])) {
      const int producer = plan.step_of[v];
      if (ir::IsAllReduce(program.instructions[v].op) || (producer >= 0 && dependent[producer])) {
        dependent[s] = true;
      }
    }
    if (dependent[s]) {
      first_dependent = std::min(first_dependent, s);
    } else {
      EXPECT_LT(s, first_dependent) << "step " << s << " reads no all_reduce but comes late";
    }
  }
  EXPECT_LT(first_dependent, steps);
  const std::vector<int> finish = cpu::AllReduceFinishSteps(program, plan);
  int all_reduces = 0;
  for (int i = 0; i < static_cast<int>(program.instructions.size()); ++i) {
    if (!ir::IsAllReduce(program.instructions[i].op)) continue;
    ++all_reduces;
    EXPECT_GT(finish[i], plan.step_of[i]) << "%" << i;
    EXPECT_GE(finish[i], first_dependent) << "%" << i;
  }
  EXPECT_EQ(all_reduces, 3);
}

// Process `index` of the job: `rounds` launches, each checked against the host. The
// device's thread polls for `spin_us` before it sleeps on an all_reduce's finish.
void RunProcess(int index, const std::string& store_dir, int rounds, int64_t spin_us,
                std::string* failure) {
  FileKvStore store(store_dir);
  absl::StatusOr<std::unique_ptr<PjrtClient>> client =
      PjrtClient::Create(cpu::GetCpuPjrtApi(),
                         {{"process_index", index},
                          {"process_count", 2},
                          {"collective_timeout_ms", 60000},
                          {"collective_spin_us", spin_us}},
                         &store);
  if (!client.ok()) {
    *failure = "client: " + client.status().ToString();
    return;
  }
  absl::StatusOr<PJRT_LoadedExecutable*> executable = (*client)->Compile(Program());
  if (!executable.ok()) {
    *failure = "compile: " + executable.status().ToString();
    return;
  }
  std::vector<float> input(kElements), output(kElements);
  for (int64_t e = 0; e < kElements; ++e) input[e] = Input(index, e);
  for (int round = 0; round < rounds && failure->empty(); ++round) {
    absl::StatusOr<PJRT_Buffer*> argument =
        (*client)->Upload(input.data(), PJRT_Buffer_Type_F32, {kElements}, 0);
    if (!argument.ok()) {
      *failure = "upload: " + argument.status().ToString();
      break;
    }
    absl::StatusOr<PjrtClient::Launch> launch = (*client)->Execute(*executable, {*argument});
    (*client)->Destroy(*argument);
    if (!launch.ok()) {
      *failure = "execute: " + launch.status().ToString();
      break;
    }
    absl::Status status =
        (*client)->Download(launch->outputs[0], output.data(), output.size() * sizeof(float));
    (*client)->Destroy(*launch);
    if (!status.ok()) {
      *failure = "round " + std::to_string(round) + ": " + status.ToString();
      break;
    }
    for (int64_t e = 0; e < kElements; ++e) {
      if (output[e] != Want(e)) {
        *failure = "round " + std::to_string(round) + " element " + std::to_string(e) + ": got " +
                   std::to_string(output[e]) + ", want " + std::to_string(Want(e));
        break;
      }
    }
  }
  (*client)->Destroy(*executable);
}

// Both ways of waiting for a finish: sleeping at once, and polling first (for longer than
// any of these all_reduces takes, so that the poll, not the sleep, sees them end).
TEST(CpuOverlapTest, TwoProcessesInOneGetEveryRoundRight) {
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  for (int64_t spin_us : {int64_t{0}, int64_t{200000}}) {
    SCOPED_TRACE("collective_spin_us " + std::to_string(spin_us));
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    std::string failures[2];
    std::thread other([&] { RunProcess(1, dir.path(), 20, spin_us, &failures[1]); });
    RunProcess(0, dir.path(), 20, spin_us, &failures[0]);
    other.join();
    EXPECT_EQ(failures[0], "");
    EXPECT_EQ(failures[1], "");
  }
}

}  // namespace
}  // namespace seam::testing
