// The IDX reader on files the test writes (plain and gzip), and on the installed
// Fashion-MNIST when present.
#include "src/data/idx.h"

#include <gtest/gtest.h>
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
    EXPECT_EQ(error.code(), static_cast<int>(absl::StatusCode::kNotFound));
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
