// The Chrome-trace JSON writer (src/runtime/trace_writer.h): any name survives the JSON,
// events come out ordered parent first, times are exact, and the metadata carries drops.
#include "src/runtime/trace_writer.h"

#include <gtest/gtest.h>

#include "nlohmann/json.hpp"

namespace seam::trace {
namespace {

TEST(TraceWriterTest, AnyNameSurvivesTheJson) {
  const std::string name = std::string("q\"b\\s/n\nt\tc\x01 \xc3\xa9 ") + '\0' + "end";
  for (const std::string& text : {name, std::string(), std::string("plain")}) {
    EXPECT_EQ(nlohmann::json::parse(JsonString(text)).get<std::string>(), text);
  }
}

TEST(TraceWriterTest, EventsTracksAndMetadata) {
  TraceData data;
  data.start_ns = 1000000;
  data.stop_ns = 9000000;
  data.framework_tracks[1] = "host thread 1";
  data.framework_tracks[1000] = "CPU:0 runs";
  // Child first, parent after: the file puts the parent (longer, same start) first.
  data.framework.push_back({"child \"x\"", "crossing", 1, 2000001, 2000500});
  data.framework.push_back({"parent", "step", 1, 2000001, 3000000});
  data.framework.push_back({"run", "device", 1000, 2500000, 2600000});
  data.framework_dropped = 4;
  PluginTrace plugin;
  plugin.name = "cpu";
  plugin.events.push_back({"fused loop #1", "kernel", 0, 2, 2500100, 2500200});
  plugin.events.push_back({"simplify", "compile", -1, 0, 2000100, 2000200});
  plugin.dropped = 11;
  data.plugins.push_back(plugin);
  PluginTrace broken;
  broken.name = "other";
  broken.error = "collect failed";
  data.plugins.push_back(broken);

  nlohmann::json trace = nlohmann::json::parse(ToChromeTraceJson(data));
  std::vector<nlohmann::json> complete, threads;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") complete.push_back(e);
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.push_back(e);
  }
  ASSERT_EQ(complete.size(), 5u);
  EXPECT_EQ(complete[0]["name"], "parent");
  EXPECT_EQ(complete[1]["name"], "child \"x\"");
  // Microseconds from the start, to the nanosecond.
  EXPECT_DOUBLE_EQ(complete[1]["ts"].get<double>(), 1000.001);
  EXPECT_DOUBLE_EQ(complete[1]["dur"].get<double>(), 0.499);
  EXPECT_EQ(complete[1]["pid"], kFrameworkPid);
  EXPECT_EQ(complete[1]["tid"], 1);
  EXPECT_EQ(complete[2]["name"], "run");
  EXPECT_EQ(complete[2]["tid"], 1000);
  // The plugin: compile pass on its host thread's track, the kernel on device 0's.
  EXPECT_EQ(complete[3]["name"], "simplify");
  EXPECT_EQ(complete[3]["pid"], kFirstPluginPid);
  EXPECT_EQ(complete[4]["name"], "fused loop #1");
  EXPECT_NE(complete[3]["tid"], complete[4]["tid"]);
  std::vector<std::string> names;
  for (const auto& t : threads) names.push_back(t["args"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"host thread 1", "CPU:0 runs", "plugin thread 0",
                                             "device 0 (plugin thread 2)"}));
  const auto& other = trace["otherData"];
  EXPECT_EQ(other["clock"], "CLOCK_MONOTONIC");
  EXPECT_EQ(other["framework_events_dropped"], 4);
  EXPECT_EQ(other["plugin_events_dropped"]["cpu"], 11);
  EXPECT_EQ(other["plugin_errors"]["other"], "collect failed");
  EXPECT_FALSE(other["plugin_errors"].contains("cpu"));
}

TEST(TraceWriterTest, ATimeBeforeTheStartIsNegative) {
  TraceData data;
  data.start_ns = 5000;
  data.framework_tracks[1] = "host thread 1";
  data.framework.push_back({"early", "step", 1, 3500, 6000});
  nlohmann::json trace = nlohmann::json::parse(ToChromeTraceJson(data));
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_DOUBLE_EQ(e["ts"].get<double>(), -1.5);
    EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 2.5);
  }
}

}  // namespace
}  // namespace seam::trace
