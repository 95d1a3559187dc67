#include "src/runtime/distributed/grpc_logging.h"

#include <grpc/support/log.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

#include "src/base/env.h"

namespace seam::runtime {
namespace {

std::atomic<bool> g_quieted{false};

void DropLine(gpr_log_func_args* /*args*/) {}

bool Set(const char* name) {
  std::optional<std::string> value = base::GetEnv(name);
  return value.has_value() && !value->empty();
}

}  // namespace

void QuietGrpcLogging() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (Set("GRPC_VERBOSITY") || Set("GRPC_TRACE")) return;
    gpr_set_log_function(&DropLine);
    g_quieted.store(true);
  });
}

bool GrpcLoggingQuieted() { return g_quieted.load(); }

}  // namespace seam::runtime
