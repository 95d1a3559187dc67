// The IDX reader on files the test writes (plain and gzip), and on the installed
// Fashion-MNIST when present.
#include "src/data/idx.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace seam::data {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("seam_idx_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

void WriteGz(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(f);
}

void WritePlain(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

std::vector<uint8_t> Idx(std::vector<uint32_t> dims, std::vector<uint8_t> values) {
  std::vector<uint8_t> out = {0, 0, 0x08, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift : {24, 16, 8, 0}) out.push_back(static_cast<uint8_t>(d >> shift));
  }
  out.insert(out.end(), values.begin(), values.end());
  return out;
}

TEST(IdxTest, ReadsGzipAndPlainFiles) {
  std::vector<uint8_t> values = {1, 2, 3, 4, 5, 6};
  std::string gz = TempPath("a.gz"), plain = TempPath("a.idx");
  WriteGz(gz, Idx({2, 3}, values));
  WritePlain(plain, Idx({2, 3}, values));
  for (const std::string& path : {gz, plain}) {
    absl::StatusOr<IdxArray> array = ReadIdx(path);
    ASSERT_TRUE(array.ok()) << array.status();
    EXPECT_EQ(array->dims, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(array->values, values);
    std::filesystem::remove(path);
  }
}

TEST(IdxTest, MalformedFilesNameThePathAndTheProblem) {
  std::string path = TempPath("bad.gz");
  struct Case {
    std::vector<uint8_t> bytes;
    std::string message;
  };
  std::vector<uint8_t> wrong_type = Idx({2}, {1, 2});
  wrong_type[2] = 0x0D;
  const Case cases[] = {
      {{0, 0}, path + ": too short for an IDX header"},
      {{7, 7, 8, 1}, path + ": not an IDX file (magic bytes 7 7, expected 0 0)"},
      {wrong_type, path + ": element type 0xd is not unsigned byte (0x08)"},
      {{0, 0, 8, 2, 0, 0, 0, 2}, path + ": header ends inside dimension 1"},
      {Idx({2, 3}, {1, 2, 3}), path + ": fewer bytes than the dimensions promise (6)"},
      {Idx({65536, 65536, 2}, {}), path + ": dimensions describe more than 4294967296 bytes"},
  };
  for (const Case& c : cases) {
    WriteGz(path, c.bytes);
    absl::StatusOr<IdxArray> array = ReadIdx(path);
    ASSERT_FALSE(array.ok());
    EXPECT_EQ(array.status().message(), c.message);
  }
  std::filesystem::remove(path);
  EXPECT_EQ(ReadIdx(path).status().message(), "cannot open IDX file " + path);
}

// Peak resident memory of this process so far, in bytes.
int64_t PeakRss() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return int64_t{usage.ru_maxrss} * 1024;
}

std::vector<uint8_t> GzBytes(const std::vector<uint8_t>& bytes) {
  std::string path = TempPath("to_gz.gz");
  WriteGz(path, bytes);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::vector<uint8_t> out;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) out.push_back(static_cast<uint8_t>(c));
  std::fclose(f);
  std::filesystem::remove(path);
  return out;
}

// Issue 14, item 3: each header field is checked before anything is allocated.
TEST(IdxTest, HostileHeadersAreRefusedBeforeAllocating) {
  std::string path = TempPath("hostile.idx");
  // Two dimensions of 2^32-1: their product overflowed int64 and resize threw bad_alloc.
  WritePlain(path, {0, 0, 8, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  EXPECT_EQ(ReadIdx(path).status().message(),
            path + ": dimensions describe more than 4294967296 bytes");
  // A 20-byte header promising 255^4 (4.2e9) bytes, plain and gzip: refused without
  // allocating them (the reader allocated all 4.2 GB before noticing).
  const std::vector<uint8_t> big = {0, 0,   8, 4, 0, 0,   0, 255, 0, 0,
                                    0, 255, 0, 0, 0, 255, 0, 0,   0, 255};
  const int64_t before = PeakRss();
  std::string gz = TempPath("hostile.gz");
  WritePlain(path, big);
  WriteGz(gz, big);
  for (const std::string& p : {path, gz}) {
    absl::StatusOr<IdxArray> array = ReadIdx(p);
    EXPECT_EQ(array.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_EQ(array.status().message(),
              p + ": fewer bytes than the dimensions promise (4228250625)");
  }
  EXPECT_LT(PeakRss() - before, int64_t{64} << 20);
  // More bytes than the dimensions describe.
  WritePlain(path, Idx({2}, {1, 2, 3}));
  WriteGz(gz, Idx({2}, {1, 2, 3}));
  for (const std::string& p : {path, gz}) {
    EXPECT_THAT(std::string(ReadIdx(p).status().message()),
                testing::HasSubstr("bytes follow the data the dimensions describe (2 bytes)"));
  }
  EXPECT_EQ(ReadIdx(path).status().message(),
            path + ": 1 bytes follow the data the dimensions describe (2 bytes)");
  std::filesystem::remove(path);
  std::filesystem::remove(gz);
}

TEST(IdxTest, CorruptGzipIsNamedAsSuch) {
  std::vector<uint8_t> gz = GzBytes(Idx({4, 4}, std::vector<uint8_t>(16, 7)));
  ASSERT_GT(gz.size(), 12u);
  std::vector<uint8_t> corrupt = gz;
  corrupt[10] = 0xff;  // the first deflate block: type 3 does not exist
  std::vector<uint8_t> truncated(gz.begin(),
                                 gz.begin() + static_cast<std::ptrdiff_t>(gz.size() / 2));
  std::string path = TempPath("corrupt.gz");
  for (const auto& bytes : {corrupt, truncated}) {
    WritePlain(path, bytes);
    absl::StatusOr<IdxArray> array = ReadIdx(path);
    EXPECT_EQ(array.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(std::string(array.status().message()),
                testing::StartsWith(path + ": corrupt or truncated gzip data (zlib: "));
  }
  std::filesystem::remove(path);
  EXPECT_EQ(ReadIdx(std::filesystem::temp_directory_path().string()).status().message(),
            std::filesystem::temp_directory_path().string() + " is a directory, not an IDX file");
}

// Writes a Fashion-MNIST-shaped set (train or t10k) into `dir`.
void WriteSet(const std::string& dir, const std::string& prefix, std::vector<uint32_t> image_dims,
              uint32_t labels) {
  uint64_t pixels = 1;
  for (uint32_t d : image_dims) pixels *= d;
  WriteGz(dir + "/" + prefix + "-images-idx3-ubyte.gz",
          Idx(image_dims, std::vector<uint8_t>(pixels, 128)));
  WriteGz(dir + "/" + prefix + "-labels-idx1-ubyte.gz",
          Idx({labels}, std::vector<uint8_t>(labels, 3)));
}

// Sets whose images the caller cannot use (the example read past its buffer on 27x27
// images and trained on nothing, with exit 0, on an empty set) are refused.
TEST(IdxTest, SetsOfTheWrongShapeAreRefused) {
  std::string dir = TempPath("set");
  std::filesystem::create_directories(dir);
  std::string images = dir + "/train-images-idx3-ubyte.gz";
  std::string labels = dir + "/train-labels-idx1-ubyte.gz";
  struct Case {
    std::vector<uint32_t> image_dims;
    uint32_t labels;
    std::string message;
  };
  const Case cases[] = {
      {{3, 27, 27}, 3, images + ": images are 27x27, Fashion-MNIST images are 28x28"},
      {{0, 28, 28}, 0, images + ": the set holds no images"},
      {{3, 784}, 3, images + ": images need 3 dimensions (count, rows, columns), the file has 2"},
      {{3, 28, 28},
       2,
       images + " and " + labels +
           " do not describe the same number of images (3 images, 2 labels)"},
  };
  for (const Case& c : cases) {
    WriteSet(dir, "train", c.image_dims, c.labels);
    absl::StatusOr<ImageSet> set = LoadFashionMnist(dir, /*train=*/true);
    ASSERT_FALSE(set.ok());
    EXPECT_EQ(set.status().message(), c.message);
  }
  WriteSet(dir, "train", {2, 28, 28}, 2);
  absl::StatusOr<ImageSet> set = LoadFashionMnist(dir, /*train=*/true);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->images.size(), 2u * 784u);
  std::filesystem::remove_all(dir);
}

TEST(IdxTest, MissingDataSetNamesThePackage) {
  absl::StatusOr<ImageSet> set = LoadFashionMnist("/nonexistent", /*train=*/true);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message(),
            "Fashion-MNIST not found: /nonexistent/train-images-idx3-ubyte.gz is missing. "
            "Install Debian's dataset-fashion-mnist package (scripts/install-deps.sh does).");
}

TEST(IdxTest, PublicApiReadsFilesAndThrowsSeamErrors) {
  std::string path = TempPath("public.gz");
  WriteGz(path, Idx({3}, {7, 8, 9}));
  IdxArray array = read_idx(path);
  EXPECT_EQ(array.dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(array.values, (std::vector<uint8_t>{7, 8, 9}));
  std::filesystem::remove(path);
  try {
    read_idx(path);
    ADD_FAILURE() << "read_idx of a missing file did not throw";
  } catch (const seam::Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(error.what()), "cannot open IDX file " + path);
  }
  try {
    load_fashion_mnist(/*train=*/false, "/nonexistent");
    ADD_FAILURE() << "load_fashion_mnist of a missing directory did not throw";
  } catch (const seam::Error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/t10k-images-idx3-ubyte.gz is missing"),
              std::string::npos)
        << error.what();
  }
}

TEST(IdxTest, InstalledFashionMnistTestSet) {
  if (!std::filesystem::exists(std::string(kFashionMnistDir) + "/t10k-labels-idx1-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  }
  absl::StatusOr<ImageSet> set = LoadFashionMnist(kFashionMnistDir, /*train=*/false);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->count, 10000);
  EXPECT_EQ(set->rows * set->cols, 784);
  EXPECT_EQ(set->images.size(), 10000u * 784u);
  std::vector<int> per_class(10, 0);
  for (int32_t label : set->labels) ++per_class[label];
  EXPECT_EQ(per_class, std::vector<int>(10, 1000));  // the test set is balanced
}

}  // namespace
}  // namespace seam::data
