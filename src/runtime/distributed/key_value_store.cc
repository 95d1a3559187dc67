#include "src/runtime/distributed/key_value_store.h"

#include "absl/strings/str_format.h"

namespace seam::runtime {

std::string PluginKeyPrefix(uint64_t incarnation) {
  return absl::StrFormat("pjrt:%016x/", incarnation);
}

}  // namespace seam::runtime
