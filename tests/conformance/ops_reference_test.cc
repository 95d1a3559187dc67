// Every op x every dtype it accepts, on seeded random shapes (scalars and 0-sized
// dimensions included), run by the plugin through its C function table and compared with
// the reference evaluator (the checks are src/conformance/op_checks.h, which `seam plugin
// check --ops` runs too).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "src/conformance/op_checks.h"
#include "src/conformance/plugin_runner.h"
#include "src/ir/program.h"
#include "src/plugins/cpu/api/cpu_plugin.h"

namespace seam::conformance {
namespace {

using ir::Op;

// The in-process CPU plugin, or the .so named by SEAM_PLUGIN_UNDER_TEST (ctest runs this
// suite both ways; any plugin can be checked the same way). Never null: a library that
// cannot be used fails the test that asks for it.
const PJRT_Api* PluginUnderTest() {
  static const PJRT_Api* api = []() -> const PJRT_Api* {
    const char* path = std::getenv("SEAM_PLUGIN_UNDER_TEST");
    if (path == nullptr || *path == '\0') return cpu::GetCpuPjrtApi();
    void* library = dlopen(path, RTLD_LAZY);
    auto get = library == nullptr
                   ? nullptr
                   : reinterpret_cast<const PJRT_Api* (*)()>(dlsym(library, "GetPjrtApi"));
    const PJRT_Api* loaded = get == nullptr ? nullptr : get();
    if (loaded == nullptr) return nullptr;
    PJRT_Plugin_Initialize_Args initialize{};
    initialize.struct_size = PJRT_Plugin_Initialize_Args_STRUCT_SIZE;
    return loaded->PJRT_Plugin_Initialize(&initialize) == nullptr ? loaded : nullptr;
  }();
  if (api == nullptr) {
    ADD_FAILURE() << "cannot load the plugin named by SEAM_PLUGIN_UNDER_TEST";
    return cpu::GetCpuPjrtApi();
  }
  return api;
}

class OpsReferenceTest : public ::testing::TestWithParam<Op> {};

TEST_P(OpsReferenceTest, MatchesTheReferenceForEveryDTypeItAccepts) {
  PluginRunner runner(PluginUnderTest());
  ASSERT_TRUE(runner.status().ok()) << runner.status();
  absl::Status status = CheckOpMatchesReference(runner, GetParam(), DefaultOpSeed());
  EXPECT_TRUE(status.ok()) << status;
}

INSTANTIATE_TEST_SUITE_P(EveryOp, OpsReferenceTest, ::testing::ValuesIn(EveryOp()),
                         [](const ::testing::TestParamInfo<Op>& info) {
                           return std::string(ir::OpName(info.param));
                         });

// The same programs with a dtype outside the op's row of ops.def are refused at compile
// time, naming the element type.
TEST(OpsConformanceTest, RefusesEveryDTypeAnOpDoesNotAccept) {
  PluginRunner runner(PluginUnderTest());
  ASSERT_TRUE(runner.status().ok()) << runner.status();
  absl::Status status = CheckUnacceptedDTypesAreRefused(runner, DefaultOpSeed());
  EXPECT_TRUE(status.ok()) << status;
}

// Every reduction row folds {3, -2, 5, 1} with its own combiner (sum, product, maximum,
// minimum all differ), in the reference evaluator and in the plugin: a row whose fold fell to
// another combiner in both would pass the random cases above, not this one.
TEST(OpsConformanceTest, EveryReductionFoldsWithItsOwnCombiner) {
  PluginRunner runner(PluginUnderTest());
  ASSERT_TRUE(runner.status().ok()) << runner.status();
  absl::Status status = CheckReductionsFoldWithTheirCombiner(&runner);
  EXPECT_TRUE(status.ok()) << status;
}

// Several ops in one program (a numerically careful softmax, a mask and a cast), so that
// values flow between kernels and intermediates are released on the way.
TEST(OpsConformanceTest, ChainedOpsMatchTheReference) {
  PluginRunner runner(PluginUnderTest());
  absl::Status status = CheckChainedOps(runner);
  EXPECT_TRUE(status.ok()) << status;
}

TEST(OpsConformanceTest, BuffersOfEveryDTypeRoundTrip) {
  PluginRunner runner(PluginUnderTest());
  ASSERT_TRUE(runner.status().ok()) << runner.status();
  absl::Status status = CheckBuffersOfEveryDTypeRoundTrip(runner);
  EXPECT_TRUE(status.ok()) << status;
}

// Several replicas run one per device (tests/e2e/replicated_test.cc); the runner uses one
// device, so a two-replica program is refused when run, naming both counts.
TEST(OpsConformanceTest, AllReduceOverSeveralReplicasNeedsAsManyDevices) {
  PluginRunner runner(PluginUnderTest());
  absl::Status status = CheckAllReduceNeedsAsManyDevices(runner);
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace seam::conformance
