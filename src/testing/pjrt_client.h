// A thin C++ view of a plugin's C function table, for the multi-process tests and the
// cross-process benchmark: every call returns an absl::Status (an error's code and
// message as the plugin gave them) and frees what the plugin allocated.
#ifndef SEAM_TESTING_PJRT_CLIENT_H_
#define SEAM_TESTING_PJRT_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "seam/c/pjrt_c_api.h"
#include "src/testing/file_kv_store.h"

namespace seam::testing {

// An int64 create option.
struct IntOption {
  std::string name;
  int64_t value;
};

class PjrtClient {
 public:
  // A client of `api` with `options`, given `store` (null: none) as its key-value store.
  static absl::StatusOr<std::unique_ptr<PjrtClient>> Create(const PJRT_Api* api,
                                                            const std::vector<IntOption>& options,
                                                            FileKvStore* store);
  // The same with options of any type (their names and values must outlive the call).
  static absl::StatusOr<std::unique_ptr<PjrtClient>> CreateWithValues(
      const PJRT_Api* api, const std::vector<PJRT_NamedValue>& values, FileKvStore* store);
  ~PjrtClient();
  PjrtClient(const PjrtClient&) = delete;
  PjrtClient& operator=(const PjrtClient&) = delete;

  const PJRT_Api* api() const { return api_; }
  PJRT_Client* client() const { return client_; }
  const std::vector<PJRT_Device*>& devices() const { return devices_; }

  absl::StatusOr<int> ProcessIndex() const;
  absl::StatusOr<int> DeviceProcessIndex(size_t device) const;

  absl::StatusOr<PJRT_LoadedExecutable*> Compile(const std::string& program_text);
  absl::StatusOr<PJRT_Buffer*> Upload(const void* data, PJRT_Buffer_Type type,
                                      const std::vector<int64_t>& dims, size_t device);

  // One launch: arguments[d] is device d's one argument (a program of one parameter and
  // one result). The call itself returns at once; outputs[d] and done[d] belong to the
  // caller (Destroy them).
  struct Launch {
    std::vector<PJRT_Buffer*> outputs;
    std::vector<PJRT_Event*> done;
  };
  absl::StatusOr<Launch> Execute(PJRT_LoadedExecutable* executable,
                                 const std::vector<PJRT_Buffer*>& arguments);

  absl::Status Await(PJRT_Event* event) const;          // the event's status once ready
  absl::Status ReadyStatus(PJRT_Buffer* buffer) const;  // awaits the buffer's ready event
  absl::Status Download(PJRT_Buffer* buffer, void* destination, size_t bytes) const;

  void Destroy(PJRT_Buffer* buffer) const;
  void Destroy(PJRT_Event* event) const;
  void Destroy(PJRT_LoadedExecutable* executable) const;
  void Destroy(const Launch& launch) const;

  // Reads and frees a plugin error (OK for null).
  absl::Status Take(PJRT_Error* error) const;

 private:
  PjrtClient(const PJRT_Api* api, PJRT_Client* client) : api_(api), client_(client) {}

  const PJRT_Api* api_;
  PJRT_Client* client_;
  std::vector<PJRT_Device*> devices_;
};

}  // namespace seam::testing

#endif  // SEAM_TESTING_PJRT_CLIENT_H_
