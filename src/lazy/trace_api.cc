// The public step-timeline API (include/seam/trace.h) over the runtime's recorder.
#include "seam/tensor.h"
#include "seam/trace.h"
#include "src/runtime/trace.h"

namespace seam::trace {
namespace {

void ThrowIfError(const absl::Status& status) {
  if (!status.ok())
    throw Error(static_cast<ErrorCode>(status.code()), std::string(status.message()));
}

}  // namespace

void start(const std::string& path) { ThrowIfError(Start(path)); }

void stop() { ThrowIfError(Stop()); }

bool active() { return On(); }

}  // namespace seam::trace
