// The server's sessions (src/runtime/serve/remote_sessions.h): the block of handles a client
// names itself for an execute's outputs (docs/remote.md, "Pipelined executes"). A lookup of
// such a handle before the execute registered it waits for it, within a bound; names outside
// the block or in use are refused; a failed execute's names report its error.
#include "src/runtime/serve/remote_sessions.h"

#include <chrono>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace seam::runtime {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

class HostValue final : public ComputationClient::Data {
 public:
  HostValue() : Data("CPU:0", ir::Shape{ir::DType::kF32, {4}}) {}
  bool IsReady() const override { return true; }
  absl::Status AwaitReady() const override { return absl::OkStatus(); }
};

class NamedHandles : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = sessions_.Open("test", 4);
    ASSERT_TRUE(opened.ok()) << opened.status();
    session_ = *opened;
    auto base = sessions_.NamedBase(session_);
    ASSERT_TRUE(base.ok()) << base.status();
    base_ = *base;
  }

  RemoteSessions sessions_{std::chrono::milliseconds(300)};
  uint64_t session_ = 0;
  uint64_t base_ = 0;
};

TEST_F(NamedHandles, EachSessionHasItsOwnBlockApartFromTheServersHandles) {
  EXPECT_NE(base_ & RemoteSessions::kNamedBit, 0u);
  auto other = sessions_.Open("other", 4);
  ASSERT_TRUE(other.ok());
  auto other_base = sessions_.NamedBase(*other);
  ASSERT_TRUE(other_base.ok());
  EXPECT_GE(*other_base > base_ ? *other_base - base_ : base_ - *other_base,
            RemoteSessions::kBlockSize);
  auto added = sessions_.AddBuffers(session_, {std::make_shared<HostValue>()});
  ASSERT_TRUE(added.ok());
  EXPECT_EQ((*added)[0] & RemoteSessions::kNamedBit, 0u);
}

TEST_F(NamedHandles, ALookupBeforeTheExecuteWaitsForIt) {
  const uint64_t name = base_ + 1;
  auto value = std::make_shared<HostValue>();
  std::thread execute([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(sessions_.AddNamed(session_, {name}, {value}).ok());
  });
  const auto start = Clock::now();
  auto found = sessions_.Buffers(session_, {name});
  const auto took = Clock::now() - start;
  execute.join();
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ((*found)[0], value);
  EXPECT_GE(took, std::chrono::milliseconds(50));
  EXPECT_EQ(sessions_.GetCounts(session_).session_buffers, 1);
  EXPECT_TRUE(sessions_.Release(session_, {name}).ok());
  EXPECT_EQ(sessions_.GetCounts(session_).session_buffers, 0);
}

TEST_F(NamedHandles, ANameNoExecuteRegistersIsNotFoundAfterTheBound) {
  const auto start = Clock::now();
  auto found = sessions_.Buffers(session_, {base_ + 7});
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(250));
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(found.status().message(),
              HasSubstr("no execute of this session gave it to an output within 300 ms"));
  // The server's own handles are never waited for.
  const auto again = Clock::now();
  EXPECT_EQ(sessions_.Buffers(session_, {12345}).status().code(), absl::StatusCode::kNotFound);
  EXPECT_LT(Clock::now() - again, std::chrono::milliseconds(250));
}

TEST_F(NamedHandles, ClosingTheSessionEndsAWait) {
  std::thread close([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sessions_.Close(session_);
  });
  auto found = sessions_.Buffers(session_, {base_ + 1});
  close.join();
  ASSERT_FALSE(found.ok());
  EXPECT_THAT(found.status().message(), HasSubstr("has ended"));
}

TEST_F(NamedHandles, NamesOutsideTheBlockOrInUseAreRefused) {
  auto other = sessions_.Open("other", 4);
  ASSERT_TRUE(other.ok());
  auto other_base = sessions_.NamedBase(*other);
  ASSERT_TRUE(other_base.ok());
  EXPECT_TRUE(sessions_.CheckNamed(session_, {base_ + 1, base_ + 2}).ok());
  for (uint64_t wrong : {base_, base_ + RemoteSessions::kBlockSize, *other_base + 1, uint64_t{5}}) {
    absl::Status refused = sessions_.CheckNamed(session_, {wrong});
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << wrong;
    EXPECT_THAT(refused.message(), HasSubstr("outside this session's block")) << wrong;
  }
  EXPECT_THAT(sessions_.CheckNamed(session_, {base_ + 3, base_ + 3}).message(),
              HasSubstr("already in use"));
  ASSERT_TRUE(sessions_.AddNamed(session_, {base_ + 4}, {std::make_shared<HostValue>()}).ok());
  EXPECT_THAT(sessions_.CheckNamed(session_, {base_ + 4}).message(), HasSubstr("already in use"));
  EXPECT_EQ(sessions_.CheckNamed(12345, {base_ + 5}).code(), absl::StatusCode::kNotFound);
}

TEST_F(NamedHandles, AFailedExecutesNamesReportItsError) {
  sessions_.FailNamed(session_, {base_ + 1, base_ + 2},
                      absl::InvalidArgumentError("argument 0 has the wrong shape"));
  auto found = sessions_.Buffers(session_, {base_ + 2});
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(found.status().message(), "argument 0 has the wrong shape");
  // Not buffers: the counts do not change; released like any other handle.
  EXPECT_EQ(sessions_.GetCounts(session_).buffers, 0);
  EXPECT_TRUE(sessions_.Release(session_, {base_ + 1, base_ + 2}).ok());
  EXPECT_EQ(sessions_.GetCounts(session_).computations, 0);
}

TEST_F(NamedHandles, AReleaseBeforeTheExecuteWaitsForIt) {
  std::thread execute([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(sessions_.AddNamed(session_, {base_ + 9}, {std::make_shared<HostValue>()}).ok());
  });
  EXPECT_TRUE(sessions_.Release(session_, {base_ + 9}).ok());
  execute.join();
  EXPECT_EQ(sessions_.GetCounts(session_).session_buffers, 0);
}

}  // namespace
}  // namespace seam::runtime
