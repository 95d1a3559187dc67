// Runs IR programs on a plugin through its C function table only: one client, one device,
// and for each run the four crossings (buffers down, compile, execute, buffers up).
#ifndef SEAM_CONFORMANCE_PLUGIN_RUNNER_H_
#define SEAM_CONFORMANCE_PLUGIN_RUNNER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "seam/c/pjrt_c_api.h"
#include "src/ir/program.h"

namespace seam::conformance {

// The program format Run sends: seam's IR as it is (PJRT format "seam-ir"), or the
// program lowered by the StableHLO emitter (src/stablehlo/emit.h; format "mlir").
enum class CaseFormat { kSeamIr, kStableHlo };

class PluginRunner {
 public:
  // `api` is borrowed and must outlive the runner. Check status() before running.
  explicit PluginRunner(const PJRT_Api* api, CaseFormat format = CaseFormat::kSeamIr);
  ~PluginRunner();
  PluginRunner(const PluginRunner&) = delete;
  PluginRunner& operator=(const PluginRunner&) = delete;

  const absl::Status& status() const { return status_; }
  CaseFormat format() const { return format_; }

  // The compile error (with the plugin's code and message), or the results. In format
  // kStableHlo a program the emitter refuses is that error (the emitter verifies first).
  absl::StatusOr<std::vector<ir::Literal>> Run(const ir::Program& program,
                                               const std::vector<ir::Literal>& arguments);

  // Sends `value` to the device and reads it back; *element_type is what the buffer reports.
  absl::StatusOr<ir::Literal> RoundTrip(const ir::Literal& value, PJRT_Buffer_Type* element_type);

 private:
  absl::Status Take(PJRT_Error* error) const;
  absl::Status Await(PJRT_Event* event) const;
  void Destroy(PJRT_Buffer* buffer) const;
  absl::StatusOr<PJRT_Buffer*> Upload(const ir::Literal& value) const;
  absl::Status Download(PJRT_Buffer* buffer, ir::Literal* value) const;

  const PJRT_Api* api_;
  CaseFormat format_;
  absl::Status status_;
  PJRT_Client* client_ = nullptr;
  PJRT_Device* device_ = nullptr;
};

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_PLUGIN_RUNNER_H_
