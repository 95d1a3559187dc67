#include "src/plugins/common/entry.h"

#include <exception>
#include <new>

#include "absl/strings/str_cat.h"

namespace seam::plugin {

PJRT_Error* ErrorFromCurrentException(const char* function) noexcept {
  try {
    try {
      throw;
    } catch (const std::bad_alloc&) {
      return MakeError(absl::ResourceExhaustedError(
          absl::StrCat(function, ": out of host memory (std::bad_alloc)")));
    } catch (const std::exception& e) {
      return MakeError(absl::InternalError(
          absl::StrCat(function, ": internal error: uncaught C++ exception: ", e.what())));
    } catch (...) {
      return MakeError(absl::InternalError(
          absl::StrCat(function, ": internal error: uncaught C++ exception of unknown type")));
    }
  } catch (...) {
    return OutOfMemoryError();  // building the message ran out of memory too
  }
}

}  // namespace seam::plugin
