// One process of a test job (tests/distributed/distributed_test.cc starts several). Its
// place in the job comes from the environment, as in any seam program; argv[1] says what
// it does. It prints what it sees to stdout as "key=value" words the test reads, and exits
//   0 when all went as the scenario expects,
//   2 when the coordinator could not be created ("error=<code> message=<text>"),
//   3 when it saw the job lost ("lost_at_ms=<wall clock> error=<text>"),
//   4 when a bounded wait ran out, 5 on a wrong result (printed).
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/runtime/distributed/coordinator.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/process/runtime.h"

namespace {

using seam::runtime::Coordinator;
using std::chrono::milliseconds;

int64_t WallMillis() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

void Say(const std::string& line) { std::cout << line << std::endl; }

int Fail(int code, const std::string& line) {
  Say(line);
  return code;
}

// The coordinator from the environment, as client selection would create it.
Coordinator* Start(int* exit_code) {
  const int64_t began = WallMillis();
  auto topology = seam::runtime::ReadJobTopology(seam::runtime::ProcessEnv());
  absl::StatusOr<seam::runtime::CoordinatorOptions> options =
      topology.ok() ? seam::runtime::ReadCoordinatorOptions(seam::runtime::ProcessEnv())
                    : absl::StatusOr<seam::runtime::CoordinatorOptions>(topology.status());
  absl::StatusOr<Coordinator*> coordinator =
      options.ok() ? seam::runtime::InitializeCoordinator(*topology, *options)
                   : absl::StatusOr<Coordinator*>(options.status());
  if (!coordinator.ok()) {
    *exit_code =
        Fail(2, absl::StrCat("error=", absl::StatusCodeToString(coordinator.status().code()),
                             " failed_after_ms=", WallMillis() - began,
                             " message=", coordinator.status().message()));
    return nullptr;
  }
  Say(absl::StrFormat("ready rank=%d incarnation=%016x startup_ms=%d ready_at_ms=%d",
                      (*coordinator)->topology().rank, (*coordinator)->incarnation(),
                      WallMillis() - began, WallMillis()));
  return *coordinator;
}

// Every rank puts its key and reads every other's; then the store's misses.
int KeyValue(Coordinator* coordinator) {
  const int rank = coordinator->topology().rank;
  const int world = coordinator->topology().world_size;
  seam::runtime::JobKeyValueStore job = coordinator->PluginStore();
  seam::runtime::KeyValueStore& store = *job.store;
  const std::string prefix = job.key_prefix;
  if (absl::Status put = store.Put(prefix + "rank/" + std::to_string(rank),
                                   "value of rank " + std::to_string(rank));
      !put.ok()) {
    return Fail(5, absl::StrCat("put failed: ", put.ToString()));
  }
  for (int other = 0; other < world; ++other) {
    absl::StatusOr<std::string> value =
        store.Get(prefix + "rank/" + std::to_string(other), milliseconds(20000));
    if (!value.ok()) return Fail(5, absl::StrCat("get failed: ", value.status().ToString()));
    Say(absl::StrCat("got ", other, " '", *value, "'"));
  }
  Say(absl::StrCat("try_get_missing=",
                   absl::StatusCodeToString(store.TryGet(prefix + "absent").status().code())));
  Say(absl::StrCat(
      "get_missing=",
      absl::StatusCodeToString(store.Get(prefix + "absent", milliseconds(100)).status().code())));
  absl::Status done = coordinator->Barrier("kv done", milliseconds(30000));
  return done.ok() ? 0 : Fail(5, absl::StrCat("barrier failed: ", done.ToString()));
}

// The first job leaves a key behind; the second looks for it.
int Leftover(Coordinator* coordinator, bool write) {
  seam::runtime::JobKeyValueStore job = coordinator->PluginStore();
  if (write && coordinator->topology().rank == 0) {
    if (absl::Status put = job.store->Put(job.key_prefix + "leftover", "first job"); !put.ok()) {
      return Fail(5, put.ToString());
    }
  }
  if (!write) {
    absl::StatusOr<std::string> found = job.store->TryGet(job.key_prefix + "leftover");
    Say(absl::StrCat("leftover=",
                     found.ok() ? *found : absl::StatusCodeToString(found.status().code())));
  }
  absl::Status done = coordinator->Barrier("leftover", milliseconds(30000));
  return done.ok() ? 0 : Fail(5, done.ToString());
}

// Polls the job's health (as the step barrier does) until it fails: exit 3.
int WatchHealth() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline) {
    absl::Status health = seam::runtime::JobHealth();
    if (!health.ok()) {
      return Fail(3, absl::StrCat("lost_at_ms=", WallMillis(), " error=", health.message()));
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
  return Fail(4, "the job was never lost");
}

// Never returns to the framework (a main thread stuck in a collective): only the lost-job
// rule can end it.
int Stuck() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(milliseconds(50));
  return Fail(4, "still running after 90 s");
}

// A plugin registered by name that requires the coordinator; it is told its place through
// its own options.
class KvPlugin : public seam::runtime::PjRtPlugin {
 public:
  explicit KvPlugin(seam::runtime::JobTopology topology) : topology_(topology) {}
  std::string library_path() const override { return SEAM_TEST_PLUGIN_KV; }
  seam::runtime::PluginOptions client_create_options() const override {
    return {{"process_index", int64_t{topology_.rank}},
            {"process_count", int64_t{topology_.world_size}}};
  }
  bool requires_xla_coordinator() const override { return true; }

 private:
  seam::runtime::JobTopology topology_;
};

const PJRT_Api* KvPluginAsInProcessCpu() {
  void* handle = dlopen(SEAM_TEST_PLUGIN_KV, RTLD_NOW);
  if (handle == nullptr) return nullptr;
  auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(handle, "GetPjrtApi"));
  return get == nullptr ? nullptr : get();
}

// Client selection with the test plugin, by name (dynamic) or as PJRT_DEVICE=CPU's plugin.
int PluginClient(bool as_cpu) {
  if (as_cpu) {
    seam::runtime::SetInProcessCpuPjrtApi(&KvPluginAsInProcessCpu);
  } else {
    auto topology = seam::runtime::ReadJobTopology(seam::runtime::ProcessEnv());
    if (!topology.ok()) return Fail(5, topology.status().ToString());
    absl::Status registered =
        seam::runtime::RegisterPlugin("KVTEST", std::make_shared<KvPlugin>(*topology));
    if (!registered.ok()) return Fail(5, registered.ToString());
  }
  seam::runtime::ClientSelection selection;
  auto client = seam::runtime::CreateClientFromEnvironment(&selection);
  if (!client.ok()) {
    return Fail(2, absl::StrCat("error=", absl::StatusCodeToString(client.status().code()),
                                " message=", client.status().message()));
  }
  void* handle = dlopen(SEAM_TEST_PLUGIN_KV, RTLD_NOW | RTLD_NOLOAD);
  auto report = handle == nullptr
                    ? nullptr
                    : reinterpret_cast<const char* (*)()>(dlsym(handle, "SeamTestPluginKvReport"));
  Say(absl::StrCat("branch=", selection.branch, " coordinator=", selection.coordinator,
                   " devices=", (*client)->GetLocalDevices().size()));
  Say(absl::StrCat("report: ", report == nullptr ? "(no report)" : report()));
  absl::StatusOr<Coordinator*> coordinator = seam::runtime::GetCoordinator();
  if (!coordinator.ok()) return Fail(5, coordinator.status().ToString());
  absl::Status done = (*coordinator)->Barrier("plugin done", milliseconds(30000));
  return done.ok() ? 0 : Fail(5, done.ToString());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "plugin-dynamic" || scenario == "plugin-cpu") {
    return PluginClient(scenario == "plugin-cpu");
  }
  if (scenario == "not-initialized") {
    Say(absl::StrCat("message=", seam::runtime::GetCoordinator().status().message()));
    return 0;
  }
  int exit_code = 0;
  Coordinator* coordinator = Start(&exit_code);
  if (coordinator == nullptr) return exit_code;
  if (scenario == "init") return 0;
  if (scenario == "init-twice") {
    auto again =
        seam::runtime::InitializeCoordinator(coordinator->topology(), coordinator->options());
    Say(absl::StrCat("message=", again.status().message()));
    return 0;
  }
  if (scenario == "kv") return KeyValue(coordinator);
  if (scenario == "leftover-write") return Leftover(coordinator, true);
  if (scenario == "leftover-read") return Leftover(coordinator, false);
  if (scenario == "watch") return WatchHealth();
  if (scenario == "stuck") return Stuck();
  if (scenario == "exit") return argc > 2 ? std::atoi(argv[2]) : 0;
  if (scenario == "sleep-exit") {
    std::this_thread::sleep_for(milliseconds(argc > 2 ? std::atoi(argv[2]) : 0));
    Say(absl::StrCat("exiting_at_ms=", WallMillis()));
    return 0;
  }
  return Fail(5, "unknown scenario '" + scenario + "'");
}
