// The step timeline at the runtime level: the crossings of a client are spans of the
// trace; a plugin with the profiler extension adds its compile passes and kernel runs, a
// plugin that reports an older minor adds nothing (even with an extension chain: the
// framework does not read it); the errors of start and stop name what was wrong.
#include "src/runtime/trace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"
#include "src/ir/text.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"

namespace seam::runtime {
namespace {

std::string TracePath(const std::string& name) {
  return ::testing::TempDir() + "/seam_trace_test_" + name + ".json";
}

nlohmann::json ReadTrace(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());  // throws (fails the test) on invalid JSON
}

void RunAProgram(PjrtComputationClient& client) {
  auto program = ir::ParseProgram(
      "program @p {\n  %0 = parameter(0) : s32[3]\n  %1 = add(%0, %0) : s32[3]\n  return "
      "(%1)\n}\n");
  ASSERT_TRUE(program.ok()) << program.status();
  ir::Literal input = ir::Literal::FromS32({1, -2, 40}, {3});
  auto data = client.TransferToDevice({{input.shape, input.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(data.ok()) << data.status();
  auto computation = client.Compile({{*program, "CPU:0"}});
  ASSERT_TRUE(computation.ok()) << computation.status();
  auto outputs = client.ExecuteComputation(*computation->front(), *data, "CPU:0", {});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  auto host = client.TransferFromDevice(*outputs);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ(*host, std::vector<ir::Literal>{ir::Literal::FromS32({2, -4, 80}, {3})});
}

// The trace of one program run on the plugin at `path`, loaded as `type`.
nlohmann::json TraceOfARun(const std::string& type, const char* path) {
  EXPECT_TRUE(LoadPjrtPlugin(type, path).ok());
  EXPECT_TRUE(InitializePjrtPlugin(type).ok());
  auto client = PjrtComputationClient::Create(*PjrtApi(type));
  EXPECT_TRUE(client.ok()) << client.status();
  const std::string trace = TracePath(type);
  EXPECT_TRUE(trace::Start(trace).ok());
  RunAProgram(**client);
  EXPECT_TRUE(trace::Stop().ok());
  return ReadTrace(trace);
}

std::multiset<std::string> Names(const nlohmann::json& trace, int pid, const std::string& cat) {
  std::multiset<std::string> names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == pid && (cat.empty() || e["cat"] == cat)) {
      names.insert(e["name"].get<std::string>());
    }
  }
  return names;
}

std::set<std::string> ProcessNames(const nlohmann::json& trace) {
  std::set<std::string> names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") names.insert(e["args"]["name"]);
  }
  return names;
}

TEST(TraceTest, CrossingsAndThePluginsCompilePassesAndKernelsAreInTheTrace) {
  nlohmann::json trace = TraceOfARun("current", SEAM_PLUGIN_CURRENT);
  EXPECT_EQ(ProcessNames(trace), (std::set<std::string>{"seam framework", "plugin cpu"}));
  std::multiset<std::string> crossings = Names(trace, 1, "crossing");
  for (const char* crossing :
       {"TransferToDevice", "Compile", "ExecuteComputation", "TransferFromDevice"}) {
    EXPECT_EQ(crossings.count(crossing), 1u) << crossing;
  }
  EXPECT_EQ(Names(trace, 1, "device").count("run"), 1u);
  std::multiset<std::string> passes = Names(trace, 2, "compile");
  EXPECT_EQ(passes.count("simplify"), 1u);
  EXPECT_EQ(passes.count("fusion"), 1u);
  EXPECT_EQ(Names(trace, 2, "run").count("run"), 1u);
  EXPECT_GE(Names(trace, 2, "kernel").size(), 1u);
  EXPECT_EQ(trace["otherData"]["plugin_events_dropped"]["cpu"], 0);
}

TEST(TraceTest, AnOlderPluginContributesNoEvents) {
  // It copies the CPU plugin's table, extension chain included, but reports minor 2.
  nlohmann::json trace = TraceOfARun("previous", SEAM_PLUGIN_MINOR_1_2);
  EXPECT_EQ(FindProfilerExtension(*PjrtApi("previous")), nullptr);
  EXPECT_EQ(ProcessNames(trace), std::set<std::string>{"seam framework"});
  EXPECT_EQ(Names(trace, 1, "crossing").count("ExecuteComputation"), 1u);
  EXPECT_TRUE(Names(trace, 2, "").empty());
}

TEST(TraceTest, NothingIsRecordedOutsideATrace) {
  ASSERT_TRUE(LoadPjrtPlugin("cpu", SEAM_PLUGIN_CURRENT).ok());
  ASSERT_TRUE(InitializePjrtPlugin("cpu").ok());
  auto client = PjrtComputationClient::Create(*PjrtApi("cpu"));
  ASSERT_TRUE(client.ok()) << client.status();
  RunAProgram(**client);  // before the trace
  const std::string path = TracePath("outside");
  ASSERT_TRUE(trace::Start(path).ok());
  ASSERT_TRUE(trace::Stop().ok());
  RunAProgram(**client);  // after it
  nlohmann::json trace = ReadTrace(path);
  EXPECT_TRUE(Names(trace, 1, "").empty());
  EXPECT_TRUE(Names(trace, 2, "").empty());
}

TEST(TraceTest, StartAndStopErrorsNameWhatWasWrong) {
  absl::Status unwritable = trace::Start("/nonexistent/dir/t.json");
  EXPECT_EQ(unwritable.message(),
            "trace: cannot open '/nonexistent/dir/t.json' for writing: No such file or directory");
  EXPECT_FALSE(trace::On());
  EXPECT_EQ(trace::Stop().message(), "trace: no trace is being recorded (start one first)");
  const std::string path = TracePath("twice");
  ASSERT_TRUE(trace::Start(path).ok());
  EXPECT_EQ(trace::Start("/tmp/other.json").message(),
            "trace: cannot start a trace to '/tmp/other.json': a trace to '" + path +
                "' is being recorded (stop it first)");
  EXPECT_TRUE(trace::Stop().ok());
  EXPECT_EQ(trace::Start("").message(), "trace: the trace file's path is empty");
}

}  // namespace
}  // namespace seam::runtime
