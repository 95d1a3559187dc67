// The plugin kit's side of the profiler extension (src/plugins/common/profiler.h): events
// are kept only while a collection is on, the buffer is bounded (drops are counted), and
// Collect hands each event over once, with names the plugin owns.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"
#include "src/plugins/common/profiler.h"

namespace seam::plugin::profiler {
namespace {

const SEAM_Profiler_Extension& Ext() {
  PJRT_Extension_Base* base = Extension();
  EXPECT_EQ(SEAM_ExtensionTypeOf(base), SEAM_Extension_Type_Profiler);
  EXPECT_EQ(base->struct_size, SEAM_Profiler_Extension_STRUCT_SIZE);
  return *reinterpret_cast<const SEAM_Profiler_Extension*>(base);
}

void StartCollecting(size_t max_events) {
  SEAM_Profiler_Start_Args args{};
  args.struct_size = SEAM_Profiler_Start_Args_STRUCT_SIZE;
  args.max_events = max_events;
  ASSERT_EQ(Ext().start(&args), nullptr);
}

void StopCollecting() {
  SEAM_Profiler_Stop_Args args{};
  args.struct_size = SEAM_Profiler_Stop_Args_STRUCT_SIZE;
  ASSERT_EQ(Ext().stop(&args), nullptr);
}

struct Collected {
  std::vector<std::string> names;
  std::vector<const SEAM_Profiler_Event*> events;
  uint64_t dropped = 0;
};

Collected Collect() {
  SEAM_Profiler_Collect_Args args{};
  args.struct_size = SEAM_Profiler_Collect_Args_STRUCT_SIZE;
  EXPECT_EQ(Ext().collect(&args), nullptr);
  Collected out;
  out.dropped = args.num_dropped;
  for (size_t i = 0; i < args.num_events; ++i) {
    out.events.push_back(args.events[i]);
    out.names.emplace_back(args.events[i]->name);
  }
  return out;
}

TEST(PluginProfilerTest, KeepsEventsOnlyWhileCollecting) {
  Record("before", -1, "kernel", 0, 1, 2);
  EXPECT_FALSE(On());
  StartCollecting(0);
  EXPECT_TRUE(On());
  Record("during", 3, "kernel", 1, 10, 20);
  { const Scope scope("scoped", "compile"); }
  StopCollecting();
  EXPECT_FALSE(On());
  Record("after", -1, "kernel", 0, 30, 40);
  Collected got = Collect();
  ASSERT_EQ(got.names, (std::vector<std::string>{"during #3", "scoped"}));
  const SEAM_Profiler_Event& during = *got.events[0];
  EXPECT_EQ(during.struct_size, SEAM_Profiler_Event_STRUCT_SIZE);
  EXPECT_STREQ(during.category, "kernel");
  EXPECT_EQ(during.device_id, 1);
  EXPECT_EQ(during.begin_ns, 10);
  EXPECT_EQ(during.end_ns, 20);
  const SEAM_Profiler_Event& scoped = *got.events[1];
  EXPECT_STREQ(scoped.category, "compile");
  EXPECT_EQ(scoped.device_id, -1);
  EXPECT_LE(scoped.begin_ns, scoped.end_ns);
  EXPECT_EQ(scoped.thread_id, during.thread_id);  // the same thread
  EXPECT_TRUE(Collect().events.empty());          // handed over once
}

TEST(PluginProfilerTest, AFullBufferDropsAndCountsUntilTheNextStart) {
  StartCollecting(3);
  for (int i = 0; i < 10; ++i) Record("k", i, "kernel", 0, i, i + 1);
  Collected first = Collect();
  EXPECT_EQ(first.names, (std::vector<std::string>{"k #0", "k #1", "k #2"}));
  EXPECT_EQ(first.dropped, 7u);
  // Collect makes room; the drop count lasts for the whole collection.
  Record("k", 10, "kernel", 0, 10, 11);
  Collected second = Collect();
  EXPECT_EQ(second.names, std::vector<std::string>{"k #10"});
  EXPECT_EQ(second.dropped, 7u);
  StopCollecting();
  StartCollecting(3);
  EXPECT_EQ(Collect().dropped, 0u);
  StopCollecting();
}

TEST(PluginProfilerTest, ThreadsAndDevicesAreTold) {
  StartCollecting(0);
  std::thread worker([] {
    const DeviceScope device(5);
    EXPECT_EQ(CurrentDevice(), 5);
    Record("run", -1, "run", CurrentDevice(), 1, 2);
  });
  worker.join();
  EXPECT_EQ(CurrentDevice(), -1);
  Record("compile", -1, "compile", CurrentDevice(), 3, 4);
  StopCollecting();
  Collected got = Collect();
  ASSERT_EQ(got.events.size(), 2u);
  EXPECT_EQ(got.events[0]->device_id, 5);
  EXPECT_EQ(got.events[1]->device_id, -1);
  EXPECT_NE(got.events[0]->thread_id, got.events[1]->thread_id);
}

TEST(PluginProfilerTest, TheClockIsMonotonic) {
  const int64_t a = NowNs();
  const int64_t b = NowNs();
  EXPECT_GT(a, 0);
  EXPECT_LE(a, b);
}

}  // namespace
}  // namespace seam::plugin::profiler
