// The job secret's file checks, making and comparison (src/runtime/distributed/job_secret.h).
#include "src/runtime/distributed/job_secret.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace seam::runtime {
namespace {

using ::testing::HasSubstr;

class JobSecretFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "job_secret_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  // A file with `contents` and `mode`; its path.
  std::string Write(const std::string& name, const std::string& contents, mode_t mode) {
    const std::string path = dir_ + "/" + name;
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, contents.data(), contents.size()), static_cast<ssize_t>(contents.size()));
    close(fd);
    EXPECT_EQ(chmod(path.c_str(), mode), 0);
    return path;
  }

  std::string dir_;
};

TEST_F(JobSecretFileTest, APrivateFileGivesItsSecretWithoutTheTrailingNewline) {
  const std::string path = Write("good", "0123456789abcdef0123\n", 0600);
  absl::StatusOr<std::string> secret = ReadJobSecretFile(path);
  ASSERT_TRUE(secret.ok()) << secret.status();
  EXPECT_EQ(*secret, "0123456789abcdef0123");
  EXPECT_TRUE(ReadJobSecretFile(Write("owner-only", "0123456789abcdef", 0400)).ok());
}

TEST_F(JobSecretFileTest, AFileOthersMayReadIsRefusedNamingItsMode) {
  for (mode_t mode : {0644, 0640, 0604, 0620, 0660}) {
    const std::string path = Write("open", "0123456789abcdef0123", mode);
    absl::StatusOr<std::string> secret = ReadJobSecretFile(path);
    ASSERT_FALSE(secret.ok());
    EXPECT_EQ(secret.status().code(), absl::StatusCode::kPermissionDenied);
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
    EXPECT_THAT(secret.status().message(),
                HasSubstr("SEAM_JOB_SECRET_FILE='" + path + "' has mode " + octal));
    EXPECT_THAT(secret.status().message(), HasSubstr("chmod 600"));
  }
}

TEST_F(JobSecretFileTest, BadFilesAreRefusedNamingTheFile) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const struct {
    std::string path;
    std::string message;
  } cases[] = {
      {dir_ + "/missing", "Cannot open the job's secret file SEAM_JOB_SECRET_FILE='" + dir_ +
                              "/missing': No such file or directory"},
      {"/dev/zero", "SEAM_JOB_SECRET_FILE='/dev/zero' is not a regular file"},
      {fifo, "is not a regular file"},
      {dir_, "is not a regular file"},
      {Write("big", std::string(5000, 'x'), 0600), "is larger than 4096 bytes"},
      {Write("short", "abc\n", 0600), "holds 3 bytes; a job secret needs at least 16"},
      {Write("blank", "\n\n   \n", 0600), "holds 0 bytes"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::string> secret = ReadJobSecretFile(c.path);
    ASSERT_FALSE(secret.ok()) << c.path;
    EXPECT_THAT(secret.status().message(), HasSubstr(c.message));
  }
  EXPECT_THAT(ReadJobSecretFile("", "X").status().message(), HasSubstr("X is empty"));
}

TEST(JobSecret, NewSecretsAreRandomHex) {
  absl::StatusOr<std::string> a = NewJobSecret();
  absl::StatusOr<std::string> b = NewJobSecret();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 64u);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(NewJobSecret(4)->size(), 8u);
}

TEST(JobSecret, SecretsEqualComparesWholeStrings) {
  EXPECT_TRUE(SecretsEqual("0123456789abcdef", "0123456789abcdef"));
  EXPECT_TRUE(SecretsEqual("", ""));
  EXPECT_FALSE(SecretsEqual("0123456789abcdef", "0123456789abcdeF"));
  EXPECT_FALSE(SecretsEqual("0123456789abcdef", "0123456789abcde"));
  EXPECT_FALSE(SecretsEqual("0123456789abcde", "0123456789abcdef"));
  EXPECT_FALSE(SecretsEqual("", "x"));
  EXPECT_FALSE(SecretsEqual(std::string("a\0b", 3), std::string("a\0c", 3)));
}

}  // namespace
}  // namespace seam::runtime
