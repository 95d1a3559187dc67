// Shared by the files that implement the conformance checks.
#ifndef SEAM_CONFORMANCE_SUITE_INTERNAL_H_
#define SEAM_CONFORMANCE_SUITE_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/abi/args.h"
#include "src/conformance/check_result.h"

namespace seam::conformance {

// An Args struct with its header filled in: SEAM_PJRT_ARGS(PJRT_Client_Create_Args).
#define SEAM_PJRT_ARGS(type) SEAM_ABI_ARGS(type)

// A check returns OK (pass), an UNIMPLEMENTED status (not implemented where the check is
// optional, a failure where it is required), Skip(reason), or any other error (fail).
using CheckFn = std::function<absl::Status()>;

// A status that lists the check as skipped, with `reason`.
absl::Status Skip(const std::string& reason);
bool IsSkip(const absl::Status& status);

// Takes ownership of a plugin error (null = success) and returns a Status with its code and
// message.
absl::Status TakeError(const PJRT_Api* api, PJRT_Error* error);

// One PJRT_NamedValue read back (attributes), after checking that it is well formed.
struct NamedValue {
  std::string name;
  PJRT_NamedValue_Type type = PJRT_NamedValue_kString;
  std::string string_value;
  int64_t int64_value = 0;
  std::vector<int64_t> int64_list;
  float float_value = 0;
  bool bool_value = false;
};
// Reads `n` values; an error names the first malformed one (a struct_size below
// PJRT_NamedValue_STRUCT_SIZE, an unknown type, a null pointer with a size, a scalar whose
// value_size is not 1). `what` names the list in messages.
absl::StatusOr<std::vector<NamedValue>> ReadNamedValues(const PJRT_NamedValue* values, size_t n,
                                                        const std::string& what);

// A program the plugin can compile, in a format it announces: seam IR where it announces
// seam_ir_version, else StableHLO (MLIR text, format "mlir") where it announces
// stablehlo_current_version.
struct ProbeProgram {
  std::string format;
  std::string code;
};

class Suite {
 public:
  explicit Suite(const PJRT_Api* api) : api_(api) {}

  const PJRT_Api* api() const { return api_; }
  PJRT_Client* client() const { return client_; }
  const std::vector<PJRT_Device*>& devices() const { return devices_; }  // addressable
  std::vector<CheckResult>& results() { return results_; }

  // A check of the current group. Required: UNIMPLEMENTED fails it. Optional: UNIMPLEMENTED
  // lists it as not implemented.
  void Required(const std::string& area, const std::string& name, const CheckFn& fn) {
    Run(area, name, fn, true);
  }
  void Optional(const std::string& area, const std::string& name, const CheckFn& fn) {
    Run(area, name, fn, false);
  }
  void StartGroup(Group group) { group_ = group; }

  // Takes ownership of a plugin error and converts it.
  absl::Status Call(PJRT_Error* error) const { return TakeError(api_, error); }

  // Whether the plugin's table reaches the slot at `offset`, and the refusal when not.
  bool Provides(size_t slot_offset) const {
    return api_->struct_size >= slot_offset + sizeof(void*);
  }
  absl::Status NotProvided(const char* name) const;

  // The client every check shares; null (with the reason) when it could not be created.
  void CreateClient();
  void DestroyClient();
  absl::Status client_status() const { return client_status_; }
  // OK when client() is there, else why not.
  absl::Status NeedClient() const { return client_ != nullptr ? absl::OkStatus() : client_status_; }

  // The plugin's reported version as "<major>.<minor>", as its messages print it.
  std::string PluginVersion() const {
    return absl::StrCat(api_->pjrt_api_version.major_version, ".",
                        api_->pjrt_api_version.minor_version);
  }

  // The plugin's attributes, read once (empty when they cannot be read).
  const std::vector<NamedValue>& attributes() const { return attributes_; }
  const NamedValue* Attribute(const std::string& name) const;
  // OK when the plugin announces seam_ir_version (it compiles seam IR), else a Skip.
  absl::Status NeedSeamIr() const;
  // A doubling program f32[4] -> f32[4] (with `donate`, its parameter is donated to its
  // output) in a format the plugin announces, or a Skip saying there is none.
  absl::StatusOr<ProbeProgram> DoubleProgram(bool donate) const;

 private:
  void Run(const std::string& area, const std::string& name, const CheckFn& fn, bool required);

  const PJRT_Api* api_;
  PJRT_Client* client_ = nullptr;
  absl::Status client_status_;
  std::vector<PJRT_Device*> devices_;  // addressable devices of client_
  std::vector<NamedValue> attributes_;
  std::vector<CheckResult> results_;
  Group group_ = Group::kUpstream;
};

// Calls a table function through `suite`: a slot past the plugin's table is UNIMPLEMENTED
// `<Name> is not provided by this plugin (PJRT API version <major>.<minor>)` and a null
// slot INTERNAL, and neither is called.
#define SEAM_CALL(suite, Name, args)                                                 \
  (!(suite).Provides(offsetof(PJRT_Api, Name)) ? (suite).NotProvided(#Name)          \
   : (suite).api()->Name == nullptr                                                  \
       ? absl::InternalError(#Name " is a null slot (it must return UNIMPLEMENTED)") \
       : (suite).Call((suite).api()->Name(args)))

// Each returns a failure status saying what was expected and what was found; ExpectError
// passes an UNIMPLEMENTED status through unchanged (the function is not there).
absl::Status Expect(bool condition, const std::string& what);
absl::Status ExpectError(const absl::Status& status, absl::StatusCode code,
                         const std::string& call);
// Any error but UNIMPLEMENTED (passed through) will do.
absl::Status ExpectSomeError(const absl::Status& status, const std::string& call);
// Upstream's struct-size refusal: INVALID_ARGUMENT "Unexpected <struct_name> size: expected
// <E>, got <got>. Check installed software versions. The framework PJRT API version is
// <major>.<minor>." with got < E <= `header_size` (`exact`: E == header_size).
absl::Status ExpectSizeMessage(const absl::Status& status, const std::string& struct_name,
                               size_t header_size, size_t got, bool exact);

// The serialized xla.CompileOptionsProto the framework passes (decision 3 of the move to
// PJRT): device_ordinal -1, num_replicas, one partition, process 0 of 1.
std::string CompileOptionsBytes(int64_t num_replicas);

// The checks, by file.
void CheckTable(Suite& suite);             // suite_api.cc: version, table, attributes, errors
void CheckSeamAttributes(Suite& suite);    // suite_api.cc
void CheckStructSizes(Suite& suite);       // suite_struct_sizes.cc
void CheckClient(Suite& suite);            // suite_client.cc
void CheckDevices(Suite& suite);           // suite_client.cc
void CheckMemories(Suite& suite);          // suite_client.cc (PJRT_Memory_*)
void CheckBuffersAndEvents(Suite& suite);  // suite_buffers.cc, like the three below
void CheckSeamBuffers(Suite& suite);
void CheckCompile(Suite& suite);
void CheckSeamCompile(Suite& suite);
void CheckExecute(Suite& suite);                           // suite_execute.cc
void CheckMemoryStats(Suite& suite);                       // suite_memory.cc
void CheckProfiler(Suite& suite);                          // suite_profiler.cc
void CheckTransfers(Suite& suite);                         // suite_transfers.cc
void CheckOps(Suite& suite, const SuiteOptions& options);  // op_checks.cc

// ---- Helpers on the shared client (suite_buffers.cc).

// Owns a buffer.
class Buffer {
 public:
  Buffer(Suite& suite, PJRT_Buffer* buffer) : suite_(suite), buffer_(buffer) {}
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  PJRT_Buffer* get() const { return buffer_; }

 private:
  Suite& suite_;
  PJRT_Buffer* buffer_;
};

// A buffer of `dims` on the first device from host `data`, as the framework makes one:
// ImmutableOnlyDuringCall, dense (byte_strides NULL, device_layout NULL), device set; the
// done_with_host_buffer event is destroyed if returned. The caller destroys the buffer.
absl::StatusOr<PJRT_Buffer*> Upload(Suite& suite, const void* data, PJRT_Buffer_Type type,
                                    const std::vector<int64_t>& dims);
// Reads a buffer as the framework does: asks the size with dst = NULL (which must return no
// event), then reads into a host buffer of that size with a dense host layout.
absl::Status Download(Suite& suite, PJRT_Buffer* buffer, std::vector<uint8_t>& out);
// Awaits an event (the status it carries) and destroys it.
absl::Status AwaitAndDestroy(Suite& suite, PJRT_Event* event);

// Compiles `program` with CompileOptionsBytes(num_replicas).
absl::StatusOr<PJRT_LoadedExecutable*> Compile(Suite& suite, const ProbeProgram& program,
                                               int64_t num_replicas = 1);
void DestroyExecutable(Suite& suite, PJRT_LoadedExecutable* executable);

// Compiles the doubling program, runs it once on the first device and reads the result
// back (suite_execute.cc): work for the checks that watch what a plugin does.
absl::Status CompileRunAndReadBack(Suite& suite);

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_SUITE_INTERNAL_H_
