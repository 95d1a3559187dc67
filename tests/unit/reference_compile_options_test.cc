// The reference plugin's hand-written reader of the compile options
// (src/plugins/reference/compile_options.h), held to protobuf's own code: what protobuf
// writes, it reads; what protobuf refuses to parse, it refuses.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/compile_options.pb.h"
#include "src/plugins/reference/compile_options.h"

namespace seam::reference {
namespace {

using ::testing::HasSubstr;

std::string Bytes(const xla::CompileOptionsProto& options) {
  std::string bytes;
  EXPECT_TRUE(options.SerializeToString(&bytes));
  return bytes;
}

TEST(ReferenceCompileOptionsTest, ReadsWhatProtobufWrites) {
  xla::CompileOptionsProto options;
  xla::ExecutableBuildOptionsProto& build = *options.mutable_executable_build_options();
  build.set_device_ordinal(-1);  // a ten-byte varint before the fields read
  build.set_num_replicas(8);
  build.set_num_partitions(1);
  build.set_process_index(3);
  build.set_process_count(4);
  xla::DeviceAssignmentProto& assignment = *build.mutable_device_assignment();
  assignment.set_replica_count(8);
  assignment.set_computation_count(1);
  for (int64_t id = 0; id < 8; ++id) {
    assignment.add_computation_devices()->add_replica_device_ids(id);
  }
  absl::StatusOr<BuildOptions> read = ReadBuildOptions(Bytes(options));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->num_replicas, 8);
  EXPECT_EQ(read->num_partitions, 1);
}

TEST(ReferenceCompileOptionsTest, AbsentFieldsReadAsZero) {
  for (const std::string& bytes :
       {std::string(), Bytes(xla::CompileOptionsProto()), std::string("\x1a\x00", 2)}) {
    absl::StatusOr<BuildOptions> read = ReadBuildOptions(bytes);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->num_replicas, 0);
    EXPECT_EQ(read->num_partitions, 0);
  }
}

TEST(ReferenceCompileOptionsTest, SkipsFieldsOfEveryWireTypeAndTakesTheLastValue) {
  // Field 1 varint, field 2 fixed64, field 6 fixed32, field 7 bytes, then field 3 twice:
  // protobuf merges the two messages, the later num_replicas winning.
  static constexpr char kBytes[] =
      "\x08\x96\x01"
      "\x11\x01\x02\x03\x04\x05\x06\x07\x08"
      "\x35\x01\x02\x03\x04"
      "\x3a\x03xyz"
      "\x1a\x04\x20\x02\x28\x01"
      "\x1a\x02\x20\x05";
  const std::string bytes(kBytes, sizeof(kBytes) - 1);
  absl::StatusOr<BuildOptions> read = ReadBuildOptions(bytes);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->num_replicas, 5);
  EXPECT_EQ(read->num_partitions, 1);
  xla::CompileOptionsProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.executable_build_options().num_replicas(), 5);
  EXPECT_EQ(parsed.executable_build_options().num_partitions(), 1);
}

TEST(ReferenceCompileOptionsTest, RefusesWhatProtobufRefuses) {
  const std::string cases[] = {
      std::string("\xff\xff\xff\xff not a proto"),  // the conformance suite's garbage
      std::string("\x08"),                          // a varint cut short
      std::string("\x08\x80"),                      // likewise, inside
      std::string("\x1a\x05"
                  "ab"),            // a length past the end
      std::string("\x11\x01\x02"),  // a fixed64 cut short
      std::string("\x0b", 1),       // a group (wire type 3)
      std::string("\x0f", 1),       // wire type 7
      std::string("\x00\x01", 2),   // field number 0
      std::string("\x1a\x01\x20"),  // inside field 3: a varint cut short
      std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),  // 11-byte varint
  };
  for (const std::string& bytes : cases) {
    SCOPED_TRACE(testing::PrintToString(bytes));
    xla::CompileOptionsProto parsed;
    EXPECT_FALSE(parsed.ParseFromString(bytes)) << "protobuf parses it: the case is wrong";
    absl::StatusOr<BuildOptions> read = ReadBuildOptions(bytes);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(read.status().message()),
                HasSubstr("failed to deserialize CompileOptionsProto ("));
  }
}

TEST(ReferenceCompileOptionsTest, AFieldOfTheWrongWireTypeIsSkippedAsProtobufDoes) {
  // executable_build_options as a varint, num_replicas as a fixed32: unknown fields.
  const std::string bytes("\x18\x01\x1a\x05\x25\x01\x02\x03\x04", 9);
  absl::StatusOr<BuildOptions> read = ReadBuildOptions(bytes);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->num_replicas, 0);
  xla::CompileOptionsProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.executable_build_options().num_replicas(), 0);
}

}  // namespace
}  // namespace seam::reference
