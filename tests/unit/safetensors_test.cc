// The safetensors format (src/checkpoint/safetensors.h): every hostile header is refused
// with a message naming what is wrong and DATA_LOSS; a written file reads back byte for byte;
// a write is atomic (no temporary file is left, a failed write leaves the old file) and
// removes what killed writes left; each kind of failure has its status code.
#include "src/checkpoint/safetensors.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace seam::checkpoint {
namespace {

using ::testing::HasSubstr;

std::string Error(std::string_view header, uint64_t data_bytes) {
  absl::StatusOr<Header> parsed = ParseHeader(header, data_bytes);
  EXPECT_FALSE(parsed.ok()) << header;
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kDataLoss) << parsed.status();
  return std::string(parsed.status().message());
}

TEST(SafetensorsHeader, AValidHeaderWithMetadata) {
  absl::StatusOr<Header> header = ParseHeader(
      R"({"__metadata__":{"step":"3"},"b":{"dtype":"I32","shape":[2],"data_offsets":[24,32]},)"
      R"("a":{"dtype":"F64","shape":[3],"data_offsets":[0,24]}}   )",
      32);
  ASSERT_TRUE(header.ok()) << header.status();
  ASSERT_EQ(header->tensors.size(), 2u);
  EXPECT_EQ(header->tensors[0].name, "a");  // ordered by offset
  EXPECT_EQ(header->tensors[0].dtype, DType::kF64);
  EXPECT_EQ(header->tensors[1].shape, std::vector<int64_t>{2});
  EXPECT_EQ(header->metadata.at("step"), "3");
}

TEST(SafetensorsHeader, HostileHeadersAreRefusedNamingTheProblem) {
  EXPECT_THAT(Error("{not json", 0), HasSubstr("not valid JSON"));
  EXPECT_THAT(Error("[1,2]", 0), HasSubstr("not a JSON object"));
  // A number beyond every JSON number type (found by the fuzzer: it threw past the parser).
  EXPECT_THAT(Error("66666000666666666600000000000000e7112", 0), HasSubstr("not valid JSON"));
  EXPECT_THAT(Error("{\"\xff\":{}}", 0), HasSubstr("not valid JSON (or not UTF-8)"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                    R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                    8),
              HasSubstr("tensor 'a' appears twice"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}})", 4),
              HasSubstr("tensor 'a': unknown dtype 'F33'"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4),
              HasSubstr("dimension that is not a non-negative integer: -1"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", 4),
              HasSubstr("not a non-negative integer: 1.5"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],)"
                    R"("data_offsets":[0,8]}})",
                    8),
              HasSubstr("byte size overflows 64 bits"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4),
              HasSubstr("needs 8 bytes but its data_offsets [0,4] span 4"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4),
              HasSubstr("0 <= begin <= end, got [4,0]"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[1]}})", 4),
              HasSubstr("needs data_offsets [begin, end]"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 2),
              HasSubstr("tensor 'a' ends at byte 4 of a data section of 2 bytes"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                    R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                    8),
              HasSubstr("overlaps the tensor before it"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
              HasSubstr("bytes [0, 4) of the data section belong to no tensor"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 12),
              HasSubstr("bytes [4, 12) of the data section belong to no tensor"));
  EXPECT_THAT(Error(R"({"__metadata__":{"step":3}})", 0),
              HasSubstr("__metadata__ value of 'step' is not a string: 3"));
  EXPECT_THAT(Error(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", 4),
              HasSubstr("unknown field 'x'"));
}

class SafetensorsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("seam_safetensors_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // A file of an 8-byte length (`declared`), `header` and `data` bytes of zeros.
  std::string Raw(const std::string& name, uint64_t declared, const std::string& header,
                  size_t data) const {
    std::string path = Path(name);
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>(declared >> (8 * i)));
    out << header << std::string(data, '\0');
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(SafetensorsFileTest, WrittenFilesReadBackByteForByte) {
  const std::vector<float> a = {1.5F, -2.0F, 3.25F};
  const std::vector<int32_t> b = {7, -8};
  std::vector<TensorToWrite> tensors = {
      {"layers.0.weight",
       DType::kF32,
       {3},
       {reinterpret_cast<const uint8_t*>(a.data()), a.size() * 4}},
      {"b", DType::kI32, {1, 2}, {reinterpret_cast<const uint8_t*>(b.data()), b.size() * 4}},
      {"empty", DType::kF64, {0, 5}, {}}};
  ASSERT_TRUE(WriteFile(Path("x.safetensors"), tensors, {{"epoch", "2"}}).ok());
  absl::StatusOr<std::unique_ptr<File>> file = File::Open(Path("x.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status();
  const Header& header = (*file)->header();
  EXPECT_EQ(header.metadata.at("epoch"), "2");
  ASSERT_EQ(header.tensors.size(), 3u);
  for (const TensorInfo& info : header.tensors) {
    absl::Span<const uint8_t> bytes = (*file)->Bytes(info);
    if (info.name == "layers.0.weight") {
      ASSERT_EQ(bytes.size(), 12u);
      EXPECT_EQ(std::memcmp(bytes.data(), a.data(), 12), 0);
    } else if (info.name == "b") {
      EXPECT_EQ(info.shape, (std::vector<int64_t>{1, 2}));
      EXPECT_EQ(std::memcmp(bytes.data(), b.data(), 8), 0);
    } else {
      EXPECT_EQ(info.name, "empty");
      EXPECT_TRUE(bytes.empty());
    }
  }
  // The data starts 8-byte aligned, and no temporary file is left.
  std::ifstream in(Path("x.safetensors"), std::ios::binary);
  uint64_t length = 0;
  in.read(reinterpret_cast<char*>(&length), 8);
  EXPECT_EQ(length % 8, 0u);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "x.safetensors");
  }
  EXPECT_EQ(files, 1);
}

TEST_F(SafetensorsFileTest, AFailedWriteLeavesTheOldFile) {
  const float one = 1;
  std::vector<TensorToWrite> good = {
      {"a", DType::kF32, {1}, {reinterpret_cast<const uint8_t*>(&one), 4}}};
  ASSERT_TRUE(WriteFile(Path("x.safetensors"), good, {}).ok());
  std::vector<TensorToWrite> bad = {
      {"a", DType::kF32, {2}, {reinterpret_cast<const uint8_t*>(&one), 4}}};
  absl::Status status = WriteFile(Path("x.safetensors"), bad, {});
  EXPECT_THAT(std::string(status.message()), HasSubstr("tensor 'a' (F32) needs 8 bytes, 4 given"));
  absl::StatusOr<std::unique_ptr<File>> file = File::Open(Path("x.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ((*file)->header().tensors.at(0).shape, std::vector<int64_t>{1});
  EXPECT_EQ(WriteFile(Path("no/such/folder/x.safetensors"), good, {}).code(),
            absl::StatusCode::kNotFound);
  // A file where a folder belongs, and a folder where the file belongs.
  absl::Status not_a_folder = WriteFile(Path("x.safetensors/y.safetensors"), good, {});
  EXPECT_EQ(not_a_folder.code(), absl::StatusCode::kFailedPrecondition) << not_a_folder;
  std::filesystem::create_directory(Path("folder.safetensors"));
  absl::Status a_folder = WriteFile(Path("folder.safetensors"), good, {});
  EXPECT_EQ(a_folder.code(), absl::StatusCode::kFailedPrecondition) << a_folder;
  EXPECT_THAT(std::string(a_folder.message()),
              HasSubstr("cannot write " + Path("folder.safetensors") + ": a directory"));
}

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Temporary files of the atomic writes left in `dir` (none after any write, good or bad).
int Leftovers(const std::filesystem::path& dir) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    count += entry.path().filename().string().find(".tmp.") != std::string::npos;
  }
  return count;
}

TEST_F(SafetensorsFileTest, StreamedWritesEqualPlainWritesAndProduceInOrder) {
  // Sizes around the writer's hand-over (several tensors waiting, empty ones, a large one).
  std::vector<std::vector<float>> values;
  for (size_t n : {3u, 0u, 100000u, 1u, 4096u, 7u}) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i * 3 + n);
    values.push_back(v);
  }
  std::vector<TensorToWrite> tensors;
  for (size_t t = 0; t < values.size(); ++t) {
    tensors.push_back({"t" + std::to_string(t),
                       DType::kF32,
                       {static_cast<int64_t>(values[t].size())},
                       {reinterpret_cast<const uint8_t*>(values[t].data()), values[t].size() * 4}});
  }
  ASSERT_TRUE(WriteFile(Path("plain.safetensors"), tensors, {{"k", "v"}}).ok());
  std::vector<size_t> produced;
  absl::Status status = WriteFileStreamed(
      Path("streamed.safetensors"), tensors, {{"k", "v"}},
      [&](size_t i) -> absl::StatusOr<TensorBytes> {
        produced.push_back(i);
        auto copy = std::make_shared<std::vector<float>>(values[i]);  // freed once written
        return TensorBytes{{reinterpret_cast<const uint8_t*>(copy->data()), copy->size() * 4},
                           copy};
      });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(produced, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Contents(Path("streamed.safetensors")), Contents(Path("plain.safetensors")));
  EXPECT_EQ(Leftovers(Path("")), 0);
}

TEST_F(SafetensorsFileTest, StreamedTensorsLargerThanTheWritersChunkKeepEveryByte) {
  // The writer writes 8 MiB at a time (starting each chunk's writeback): tensors of one
  // chunk and a little more, of several chunks and a remainder, and small ones between.
  // Every byte depends on all bits of its offset and on the tensor's index, so a chunk
  // written twice, skipped or misplaced changes the file.
  const std::vector<size_t> bytes = {(size_t{8} << 20) + 4, 12, (size_t{20} << 20) + 8, 4};
  std::vector<std::vector<uint8_t>> values;
  for (size_t t = 0; t < bytes.size(); ++t) {
    std::vector<uint8_t> v(bytes[t]);
    for (size_t i = 0; i < v.size(); ++i) {  // the top byte of a multiplicative hash
      v[i] = static_cast<uint8_t>(((i + (t << 40)) * 0x9E3779B97F4A7C15ULL) >> 56);
    }
    values.push_back(std::move(v));
  }
  std::vector<TensorToWrite> tensors;
  for (size_t t = 0; t < values.size(); ++t) {
    tensors.push_back({"t" + std::to_string(t),
                       DType::kF32,
                       {static_cast<int64_t>(values[t].size() / 4)},
                       {values[t].data(), values[t].size()}});
  }
  ASSERT_TRUE(WriteFile(Path("plain.safetensors"), tensors, {}).ok());
  absl::Status status = WriteFileStreamed(
      Path("streamed.safetensors"), tensors, {}, [&](size_t i) -> absl::StatusOr<TensorBytes> {
        return TensorBytes{{values[i].data(), values[i].size()}, nullptr};
      });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(Contents(Path("streamed.safetensors")), Contents(Path("plain.safetensors")));
  absl::StatusOr<std::unique_ptr<File>> file = File::Open(Path("streamed.safetensors"));
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ((*file)->header().tensors.size(), values.size());
  for (size_t t = 0; t < values.size(); ++t) {
    absl::Span<const uint8_t> read = (*file)->Bytes((*file)->header().tensors[t]);
    ASSERT_EQ(read.size(), values[t].size()) << "tensor " << t;
    EXPECT_EQ(std::memcmp(read.data(), values[t].data(), read.size()), 0) << "tensor " << t;
  }
  EXPECT_EQ(Leftovers(Path("")), 0);
}

TEST_F(SafetensorsFileTest, AFailedStreamedWriteLeavesTheOldFile) {
  const float one = 1;
  std::vector<TensorToWrite> tensors = {
      {"a", DType::kF32, {1}, {reinterpret_cast<const uint8_t*>(&one), 4}},
      {"b", DType::kF32, {1}, {reinterpret_cast<const uint8_t*>(&one), 4}}};
  ASSERT_TRUE(WriteFile(Path("x.safetensors"), tensors, {}).ok());
  const std::string before = Contents(Path("x.safetensors"));
  auto good = TensorBytes{{reinterpret_cast<const uint8_t*>(&one), 4}, nullptr};
  // The second tensor cannot be read, is the wrong size, or its read throws.
  absl::Status failed = WriteFileStreamed(Path("x.safetensors"), tensors, {},
                                          [&](size_t i) -> absl::StatusOr<TensorBytes> {
                                            if (i == 1)
                                              return absl::UnavailableError("device lost");
                                            return good;
                                          });
  EXPECT_EQ(failed, absl::UnavailableError("device lost"));
  absl::Status short_bytes = WriteFileStreamed(
      Path("x.safetensors"), tensors, {}, [&](size_t i) -> absl::StatusOr<TensorBytes> {
        if (i == 1) return TensorBytes{{reinterpret_cast<const uint8_t*>(&one), 2}, nullptr};
        return good;
      });
  EXPECT_EQ(short_bytes.message(), "safetensors: tensor 'b' needs 4 bytes, 2 given");
  EXPECT_THROW(WriteFileStreamed(Path("x.safetensors"), tensors, {},
                                 [&](size_t i) -> absl::StatusOr<TensorBytes> {
                                   if (i == 1) throw std::runtime_error("read failed");
                                   return good;
                                 })
                   .IgnoreError(),
               std::runtime_error);
  EXPECT_EQ(Contents(Path("x.safetensors")), before);
  EXPECT_EQ(Leftovers(Path("")), 0);
}

// A malformed or truncated file: DATA_LOSS, the message naming the path and the problem.
void ExpectDataLoss(const std::string& path, const std::string& problem) {
  absl::Status status = File::Open(path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(path + ": "));
  EXPECT_THAT(std::string(status.message()), HasSubstr(problem));
}

TEST_F(SafetensorsFileTest, BadFilesAreRefusedBeforeAnyTensorIsRead) {
  { std::ofstream(Path("short"), std::ios::binary) << "abc"; }
  ExpectDataLoss(Path("short"), "3 bytes, too short for a safetensors file");
  ExpectDataLoss(Raw("past", 1000, "{}", 0),
                 "the header length 1000 is larger than the 2 bytes after it");
  ExpectDataLoss(Raw("huge", uint64_t{1} << 62, "{}", 0),
                 "larger than the limit of 100000000 bytes");
  const std::string header = R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
  ExpectDataLoss(Raw("truncated", header.size(), header, 8),
                 "tensor 'a' ends at byte 16 of a data section of 8 bytes");
  ExpectDataLoss(Raw("not_json", 5, "{\"a\":", 0), "not valid JSON");
  const std::string bad_dtype = R"({"a":{"dtype":"F33","shape":[],"data_offsets":[0,4]}})";
  ExpectDataLoss(Raw("bad_dtype", bad_dtype.size(), bad_dtype, 4), "unknown dtype 'F33'");
  absl::Status missing = File::Open(Path("missing")).status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.message()), HasSubstr("cannot open " + Path("missing")));
  absl::Status folder = File::Open(dir_.string()).status();
  EXPECT_EQ(folder.code(), absl::StatusCode::kFailedPrecondition) << folder;
  EXPECT_THAT(std::string(folder.message()), HasSubstr("not a regular file (a directory)"));
}

// A FIFO is refused at once, not read from once a writer turns up (an open without
// O_NONBLOCK would wait for a writer forever).
TEST_F(SafetensorsFileTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = Path("fifo.safetensors");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  std::future<absl::Status> opened =
      std::async(std::launch::async, [&] { return File::Open(fifo).status(); });
  if (opened.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    const int writer = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // lets the open return
    opened.wait();
    if (writer >= 0) close(writer);
    FAIL() << "File::Open of a FIFO waited for a writer";
  }
  absl::Status status = opened.get();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(fifo + ": not a regular file"));
}

TEST(SafetensorsErrno, EachErrnoHasItsCode) {
  for (int error : {EACCES, EPERM, EROFS}) {
    EXPECT_EQ(ErrnoCode(error), absl::StatusCode::kPermissionDenied) << std::strerror(error);
  }
  EXPECT_EQ(ErrnoCode(ENOENT), absl::StatusCode::kNotFound);
  for (int error : {EISDIR, ENOTDIR}) {
    EXPECT_EQ(ErrnoCode(error), absl::StatusCode::kFailedPrecondition) << std::strerror(error);
  }
  for (int error : {ENOSPC, EDQUOT, ENOMEM, EMFILE, ENFILE}) {
    EXPECT_EQ(ErrnoCode(error), absl::StatusCode::kResourceExhausted) << std::strerror(error);
  }
  for (int error : {EIO, EBADF, EINVAL, 0}) {
    EXPECT_EQ(ErrnoCode(error), absl::StatusCode::kInternal) << std::strerror(error);
  }
}

// Errno of opening `path` with `flags`, 0 if it opens.
int OpenErrno(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  close(fd);
  unlink(path.c_str());  // created by the probe of a writable place: not ours to keep
  return 0;
}

bool IsPermissionErrno(int error) { return error == EACCES || error == EPERM || error == EROFS; }

// Places that refuse even root (tests run as root in CI, and root ignores a file's mode): a
// proc file of mode 0200 cannot be read, and sysfs (read-only or not) takes no new file.
TEST_F(SafetensorsFileTest, UnreadableFilesAndUnwritableFoldersArePermissionDeniedEvenForRoot) {
  const std::string unreadable = "/proc/sys/vm/drop_caches";
  const int read_errno = OpenErrno(unreadable, O_RDONLY);
  const std::string unwritable = "/sys/seam_checkpoint_test.safetensors";
  const int write_errno =
      OpenErrno(unwritable + ".tmp." + std::to_string(getpid()), O_WRONLY | O_CREAT | O_EXCL);
  if (!IsPermissionErrno(read_errno) || !IsPermissionErrno(write_errno)) {
    GTEST_SKIP() << "this system does not refuse both probes with EACCES, EPERM or EROFS: "
                 << "reading " << unreadable << " gave '" << std::strerror(read_errno)
                 << "', creating a file in /sys '" << std::strerror(write_errno) << "'";
  }
  absl::Status read = File::Open(unreadable).status();
  EXPECT_EQ(read.code(), absl::StatusCode::kPermissionDenied) << read;
  EXPECT_THAT(std::string(read.message()), HasSubstr("cannot open " + unreadable));
  const float one = 1;
  std::vector<TensorToWrite> tensors = {
      {"a", DType::kF32, {1}, {reinterpret_cast<const uint8_t*>(&one), 4}}};
  absl::Status write = WriteFile(unwritable, tensors, {});
  EXPECT_EQ(write.code(), absl::StatusCode::kPermissionDenied) << write;
  EXPECT_THAT(std::string(write.message()), HasSubstr("cannot create " + unwritable + ".tmp."));
}

// The same through file modes: a file of mode 000 and a folder of mode 555. Skipped as root,
// whom modes do not stop (the test above covers root).
TEST_F(SafetensorsFileTest, UnreadableFilesAndUnwritableFoldersArePermissionDeniedByMode) {
  const float one = 1;
  std::vector<TensorToWrite> tensors = {
      {"a", DType::kF32, {1}, {reinterpret_cast<const uint8_t*>(&one), 4}}};
  ASSERT_TRUE(WriteFile(Path("x.safetensors"), tensors, {}).ok());
  ASSERT_EQ(chmod(Path("x.safetensors").c_str(), 0), 0);
  if (OpenErrno(Path("x.safetensors"), O_RDONLY) == 0) {
    GTEST_SKIP() << "a file of mode 000 opens for reading (running as uid " << geteuid()
                 << ", which file modes do not stop); "
                 << "UnreadableFilesAndUnwritableFoldersArePermissionDeniedEvenForRoot covers it";
  }
  absl::Status read = File::Open(Path("x.safetensors")).status();
  EXPECT_EQ(read.code(), absl::StatusCode::kPermissionDenied) << read;
  EXPECT_THAT(std::string(read.message()), HasSubstr("cannot open " + Path("x.safetensors")));
  std::filesystem::create_directory(Path("locked"));
  ASSERT_EQ(chmod(Path("locked").c_str(), 0555), 0);
  absl::Status write = WriteFile(Path("locked/y.safetensors"), tensors, {});
  chmod(Path("locked").c_str(), 0755);
  EXPECT_EQ(write.code(), absl::StatusCode::kPermissionDenied) << write;
  EXPECT_THAT(std::string(write.message()), HasSubstr("cannot create " + Path("locked/y")));
}

// The pid of a process that has exited (and been reaped).
pid_t DeadPid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

TEST_F(SafetensorsFileTest, ASaveRemovesOnlyTheTemporaryFilesOfDeadSavesOfItsPath) {
  const pid_t live = fork();  // another process saving the same path now
  ASSERT_GE(live, 0);
  if (live == 0) {
    pause();
    _exit(0);
  }
  const pid_t dead = DeadPid();
  ASSERT_EQ(kill(dead, 0), -1);
  ASSERT_EQ(errno, ESRCH);
  const std::string d = std::to_string(dead);
  const std::string removed = "model.safetensors.tmp." + d;
  const std::vector<std::string> kept = {
      "model.safetensors.tmp." + std::to_string(live),  // a live process's save
      "model.safetensors.tmp.1",  // init: alive; not ours to signal (EPERM) unless root
      "other.tmp.123",            // another file's
      "other.safetensors.tmp." + d,
      "xmodel.safetensors.tmp." + d,
      "model.safetensors.tmp.12x",
      "model.safetensors.tmp." + d + "x",
      "model.safetensors.tmp.0" + d,  // not how a pid is written
      "model.safetensors.tmp.",
      "model.safetensors.tmp." + d + ".bak",
      "model.safetensors.tmp.99999999999999999999",  // no pid
      "model.safetensors.tmp.-" + d,
  };
  for (const std::string& name : kept) std::ofstream(Path(name)) << "partial";
  std::ofstream(Path(removed)) << "partial";
  // Named like a dead save's file, but not a regular file: not one a save made.
  const std::string link = "model.safetensors.tmp." + std::to_string(DeadPid());
  std::filesystem::create_symlink("other.tmp.123", Path(link));
  const float one = 1;
  std::vector<TensorToWrite> tensors = {
      {"a", DType::kF32, {1}, {reinterpret_cast<const uint8_t*>(&one), 4}}};
  absl::Status status = WriteFile(Path("model.safetensors"), tensors, {});
  kill(live, SIGKILL);
  waitpid(live, nullptr, 0);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_FALSE(std::filesystem::exists(Path(removed)));
  for (const std::string& name : kept) EXPECT_TRUE(std::filesystem::exists(Path(name))) << name;
  EXPECT_TRUE(std::filesystem::is_symlink(Path(link)));
  EXPECT_TRUE(File::Open(Path("model.safetensors")).ok());
}

}  // namespace
}  // namespace seam::checkpoint
