// ErrorOf: the message of the seam::Error a call throws, for tests of the public API's
// messages.
#ifndef SEAM_TESTS_E2E_ERROR_OF_H_
#define SEAM_TESTS_E2E_ERROR_OF_H_

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "seam/tensor.h"

namespace seam {

// The message of the seam::Error `fn` throws, whose code must be `code`; a test failure
// (and "") when it throws none.
inline std::string ErrorOf(const std::function<void()>& fn,
                           ErrorCode code = ErrorCode::kInvalidArgument) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no seam::Error was thrown";
  return "";
}

}  // namespace seam

#endif  // SEAM_TESTS_E2E_ERROR_OF_H_
