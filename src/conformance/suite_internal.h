// Shared by the files that implement the conformance checks.
#ifndef SEAM_CONFORMANCE_SUITE_INTERNAL_H_
#define SEAM_CONFORMANCE_SUITE_INTERNAL_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/conformance/check_result.h"
#include "src/runtime/pjrt_api.h"

namespace seam::conformance {

// A check returns OK (pass), an UNIMPLEMENTED status from the plugin (unimplemented), or
// any other error (fail, with the message).
using CheckFn = std::function<absl::Status()>;

class Suite {
 public:
  explicit Suite(const PJRT_Api* api) : api_(api) {}

  const PJRT_Api* api() const { return api_; }
  PJRT_Client* client() const { return client_; }
  const std::vector<PJRT_Device*>& devices() const { return devices_; }
  std::vector<CheckResult>& results() { return results_; }

  // Runs one check of the current section (contract until StartCapabilities).
  void Check(const std::string& area, const std::string& name, const CheckFn& fn);
  void StartCapabilities() { section_ = Section::kCapability; }

  // Takes ownership of a plugin error and converts it.
  absl::Status Call(PJRT_Error* error) const { return runtime::TakePjrtError(api_, error); }

  // The client every check shares; null (with the reason) when it could not be created.
  void CreateClient();
  void DestroyClient();
  absl::Status client_status() const { return client_status_; }

  // The plugin's reported version as "<major>.<minor>", as its messages print it.
  std::string PluginVersion() const {
    return absl::StrCat(api_->pjrt_api_version.major_version, ".",
                        api_->pjrt_api_version.minor_version);
  }

 private:
  const PJRT_Api* api_;
  PJRT_Client* client_ = nullptr;
  absl::Status client_status_;
  std::vector<PJRT_Device*> devices_;  // addressable devices of client_
  std::vector<CheckResult> results_;
  Section section_ = Section::kContract;
};

// Calls a table function through `suite`, refusing a null slot instead of crashing.
#define SEAM_CALL(suite, Name, args)                                                 \
  ((suite).api()->Name == nullptr                                                    \
       ? absl::InternalError(#Name " is a null slot (it must return UNIMPLEMENTED)") \
       : (suite).Call((suite).api()->Name(args)))

// Each returns a failure status saying what was expected and what was found; ExpectError
// passes an UNIMPLEMENTED status through unchanged (the function is not there).
absl::Status Expect(bool condition, const std::string& what);
absl::Status ExpectError(const absl::Status& status, absl::StatusCode code,
                         const std::string& call);
// The struct-size refusal "Unexpected <struct_name> size: expected <expected>, got <got>.
// Check installed software versions. The framework PJRT API version is <major>.<minor>."
absl::Status ExpectSizeMessage(const absl::Status& status, const std::string& struct_name,
                               size_t expected, size_t got);

void CheckTable(Suite& suite);
void CheckStructSizes(Suite& suite);
void CheckClient(Suite& suite);            // suite_client.cc
void CheckDevices(Suite& suite);           // suite_client.cc
void CheckBuffersAndEvents(Suite& suite);  // suite_buffers.cc, like the two below
void CheckCompile(Suite& suite);
void CheckExecute(Suite& suite);
void CheckMemory(Suite& suite);  // suite_memory.cc
// UNIMPLEMENTED, saying why, when the plugin's version or table has no
// PJRT_Device_MemoryStats (ABI 1.3): its slot is then never read.
absl::Status HasMemoryQuery(const Suite& suite);  // suite_memory.cc
void CheckOps(Suite& suite, uint64_t seed);       // op_checks.cc
void CheckProfiler(Suite& suite);                 // suite_profiler.cc
void CheckTransfers(Suite& suite);                // suite_transfers.cc (ABI 1.5)

// A buffer of `dims` on the first device from host `data` (ImmutableOnlyDuringCall: the
// host memory may be reused once it returns); the caller destroys it (suite_buffers.cc).
absl::StatusOr<PJRT_Buffer*> Upload(Suite& suite, const void* data, PJRT_Buffer_Type type,
                                    const std::vector<int64_t>& dims);

// Compiles a small program, runs it once on the first device and reads the result back
// (suite_buffers.cc): work for the checks that watch what a plugin does.
absl::Status CompileRunAndReadBack(Suite& suite);

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_SUITE_INTERNAL_H_
