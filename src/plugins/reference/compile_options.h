// The two facts the reference plugin needs from PJRT_Client_Compile's compile options, a
// serialized xla.CompileOptionsProto (docs/abi.md, "Compile options"), read from the
// protobuf wire format by hand: linking protobuf's generated code for one message would
// pull seam's proto library (and gRPC) into a plugin that otherwise needs only the kit and
// the IR.
#ifndef SEAM_PLUGINS_REFERENCE_COMPILE_OPTIONS_H_
#define SEAM_PLUGINS_REFERENCE_COMPILE_OPTIONS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace seam::reference {

struct BuildOptions {
  int64_t num_replicas = 0;    // executable_build_options.num_replicas (4); 0: not set
  int64_t num_partitions = 0;  // executable_build_options.num_partitions (5); 0: not set
};

// Reads executable_build_options (field 3) and in it fields 4 and 5, and checks the wire
// format of the message and of that field as protobuf's parser does (every tag, length and
// varint in bounds; a field of a wire type other than its own is skipped as unknown), except
// that a group (wire types 3 and 4, which proto3 never writes) is refused. INVALID_ARGUMENT
// "failed to deserialize CompileOptionsProto (<what>)" otherwise, as the CPU plugin's parse
// words it.
absl::StatusOr<BuildOptions> ReadBuildOptions(absl::string_view bytes);

}  // namespace seam::reference

#endif  // SEAM_PLUGINS_REFERENCE_COMPILE_OPTIONS_H_
