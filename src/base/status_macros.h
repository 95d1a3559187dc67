// Status propagation helpers used everywhere below the public API.
#ifndef SEAM_BASE_STATUS_MACROS_H_
#define SEAM_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define SEAM_CONCAT_INNER_(a, b) a##b
#define SEAM_CONCAT_(a, b) SEAM_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define SEAM_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::absl::Status seam_status_ = (expr);        \
    if (!seam_status_.ok()) return seam_status_; \
  } while (0)

// `lhs = value of expr` when `expr` (an absl::StatusOr) is OK, else returns its status.
#define SEAM_ASSIGN_OR_RETURN(lhs, expr) \
  SEAM_ASSIGN_OR_RETURN_IMPL_(SEAM_CONCAT_(seam_statusor_, __LINE__), lhs, expr)

// `lhs` may be a declaration ("T* x") and `tmp` a name: neither can be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define SEAM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // SEAM_BASE_STATUS_MACROS_H_
