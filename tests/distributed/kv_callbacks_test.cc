// The job's store as a plugin receives it (PJRT_Client_Create_Args' three callbacks): the test
// plugin that requires the store, given an in-memory store in place of the coordinator's.
// The callbacks add the job's prefix to every key and hand back the store's errors through
// the plugin's own error factory, with their codes.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/runtime/distributed/key_value_store.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"

namespace seam::runtime {
namespace {

using ::testing::ElementsAre;

class MemoryStore : public KeyValueStore {
 public:
  absl::StatusOr<std::string> Get(std::string_view key,
                                  std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(mu_);
    keys_.emplace_back(key);
    auto it = values_.find(std::string(key));
    if (it != values_.end()) return it->second;
    return absl::DeadlineExceededError(
        absl::StrCat("memory store: no '", std::string(key), "' after ", timeout.count(), " ms"));
  }
  absl::StatusOr<std::string> TryGet(std::string_view key) override {
    std::lock_guard<std::mutex> lock(mu_);
    keys_.emplace_back(key);
    auto it = values_.find(std::string(key));
    if (it != values_.end()) return it->second;
    return absl::NotFoundError(absl::StrCat("memory store: no '", std::string(key), "'"));
  }
  absl::Status Put(std::string_view key, std::string_view value) override {
    std::lock_guard<std::mutex> lock(mu_);
    keys_.emplace_back(key);
    if (!values_.emplace(std::string(key), std::string(value)).second) {
      return absl::AlreadyExistsError(
          absl::StrCat("memory store: '", std::string(key), "' is set"));
    }
    return absl::OkStatus();
  }
  std::vector<std::string> keys() {
    std::lock_guard<std::mutex> lock(mu_);
    return keys_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> keys_;
};

const PJRT_Api* KvPlugin() {
  auto api = LoadPjrtPlugin("kvtest", SEAM_TEST_PLUGIN_KV);
  EXPECT_TRUE(api.ok()) << api.status();
  EXPECT_TRUE(InitializePjrtPlugin("kvtest").ok());
  return api.value_or(nullptr);
}

std::string Report() {
  void* handle = dlopen(SEAM_TEST_PLUGIN_KV, RTLD_NOW | RTLD_NOLOAD);
  auto report = reinterpret_cast<const char* (*)()>(dlsym(handle, "SeamTestPluginKvReport"));
  std::string text = report == nullptr ? "(no report)" : report();
  dlclose(handle);
  return text;
}

const PluginOptions kOneProcess = {{"process_index", int64_t{0}}, {"process_count", int64_t{1}}};

TEST(KeyValueCallbacks, EveryKeyGetsTheJobsPrefixAndErrorsKeepTheirCodes) {
  const PJRT_Api* api = KvPlugin();
  ASSERT_NE(api, nullptr);
  auto store = std::make_shared<MemoryStore>();
  auto client =
      PjrtComputationClient::Create(api, kOneProcess, JobKeyValueStore{store, "pjrt:0123/"});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(Report(),
            "process 0 of 1 read 'from process 0'; try-get miss: NOT_FOUND (memory store: no "
            "'pjrt:0123/never-set'); get timeout: DEADLINE_EXCEEDED; second put: "
            "ALREADY_EXISTS");
  EXPECT_THAT(store->keys(),
              ElementsAre("pjrt:0123/hello/0", "pjrt:0123/hello/0", "pjrt:0123/never-set",
                          "pjrt:0123/never-set", "pjrt:0123/hello/0"));
  EXPECT_EQ((*client)->GetLocalDevices().size(), 1u);
}

TEST(KeyValueCallbacks, WithoutAStoreThePluginGetsNone) {
  const PJRT_Api* api = KvPlugin();
  ASSERT_NE(api, nullptr);
  auto client = PjrtComputationClient::Create(api, kOneProcess);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            "test plugin (kv): PJRT_Client_Create was given no key-value store");
}

}  // namespace
}  // namespace seam::runtime
