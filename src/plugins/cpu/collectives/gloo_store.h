// Gloo's rendezvous store over the job's key-value store (the ABI's callbacks, wrapped by
// the kit's KvStore): how the processes of a Gloo context exchange their addresses.
#ifndef SEAM_PLUGINS_CPU_GLOO_STORE_H_
#define SEAM_PLUGINS_CPU_GLOO_STORE_H_

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gloo/rendezvous/store.h"
#include "src/plugins/common/kv_store.h"

namespace seam::cpu {

// What the store throws into Gloo (Gloo's rendezvous knows no other way to fail); the
// code that called into Gloo catches it and returns `status`.
class GlooStoreError : public std::runtime_error {
 public:
  explicit GlooStoreError(absl::Status status)
      : std::runtime_error(std::string(status.message())), status_(std::move(status)) {}
  const absl::Status& status() const { return status_; }

 private:
  absl::Status status_;
};

// Every key Gloo uses is put under `prefix` (one per context and generation: keys are
// written once per job and never deleted). Each read waits at most `timeout` (Gloo's
// base Store ignores the timeout it is given; this one enforces it, and uses `timeout`
// where Gloo passes none).
class GlooStore : public gloo::rendezvous::Store {
 public:
  GlooStore(const plugin::KvStore& store, std::string prefix, std::chrono::milliseconds timeout)
      : store_(store), prefix_(std::move(prefix)), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  // Waits up to the store's timeout for the key.
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  const plugin::KvStore& store_;
  const std::string prefix_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_GLOO_STORE_H_
