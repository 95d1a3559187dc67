// The IR text format (see docs/ir.md): printing and parsing, exact round trip.
#ifndef SEAM_IR_TEXT_H_
#define SEAM_IR_TEXT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "src/ir/program.h"

namespace seam::ir {

// Canonical text: instructions named %0, %1, ... by position.
std::string PrintProgram(const Program& program);

// Parses and verifies. Errors are InvalidArgument and start with "line <n>: ".
absl::StatusOr<Program> ParseProgram(std::string_view text);

}  // namespace seam::ir

#endif  // SEAM_IR_TEXT_H_
