// seam::checkpoint (include/seam/checkpoint.h) through the public API: a round trip, files
// read and written by NumPy with only the json module (tests/e2e/safetensors_numpy.py, run
// with Debian's python3, which has NumPy), a dtype the tensor API lacks, misuse, each kind
// of failure's code, and the removal of what a killed save left.
#include "seam/checkpoint.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace seam::checkpoint {
namespace {

using ::testing::HasSubstr;

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("seam_checkpoint_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs the NumPy script; skips the test when NumPy is missing.
  std::string Python(const std::string& verb, const std::string& path) {
    const std::string check = std::string(SEAM_PYTHON) + " -c 'import numpy' 2>/dev/null";
    if (std::system(check.c_str()) != 0) {
      skipped_ = true;
      return "";
    }
    const std::string command =
        std::string(SEAM_PYTHON) + " " + SEAM_NUMPY_SCRIPT + " " + verb + " " + path + " 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    std::string out;
    std::array<char, 256> buffer{};
    while (pipe && fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) out += buffer.data();
    return out;
  }

  std::filesystem::path dir_;
  bool skipped_ = false;
};

TEST_F(CheckpointTest, RoundTrip) {
  Tensor w = Tensor::from_vector({1.5F, -2.0F, 3.0F, 4.25F, 5.0F, 6.0F}, {2, 3});
  Tensor pending = w * 2.0F;  // saved after a sync
  save_file(Path("m.safetensors"),
            {{"w", w},
             {"w2", pending},
             {"n", Tensor::from_vector({3, -4}, {2})},
             {"d", Tensor::from_vector(std::vector<double>{0.1, 0.2}, {2, 1})}},
            {{"step", "12"}});
  Loaded loaded = load_file(Path("m.safetensors"));
  EXPECT_EQ(loaded.metadata.at("step"), "12");
  EXPECT_EQ(loaded.tensors.at("w").shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(loaded.tensors.at("w").to_vector<float>(), w.to_vector<float>());
  EXPECT_EQ(loaded.tensors.at("w2").to_vector<float>(), pending.to_vector<float>());
  EXPECT_EQ(loaded.tensors.at("n").to_vector<int32_t>(), (std::vector<int32_t>{3, -4}));
  EXPECT_EQ(loaded.tensors.at("d").dtype(), DType::kFloat64);
  EXPECT_EQ(loaded.tensors.at("d").to_vector<double>(), (std::vector<double>{0.1, 0.2}));
}

TEST_F(CheckpointTest, NumPyReadsWhatSeamWrites) {
  save_file(Path("m.safetensors"),
            {{"layers.0.weight", Tensor::from_vector({1.5F, 2.0F, 3.0F, 4.0F}, {2, 2})},
             {"ids", Tensor::from_vector({5, 6, 7}, {3})}},
            {{"epoch", "3"}});
  const std::string out = Python("read", Path("m.safetensors"));
  if (skipped_) GTEST_SKIP() << SEAM_PYTHON << " has no NumPy (Debian package python3-numpy)";
  EXPECT_EQ(out,
            "meta epoch 3\n"
            "ids I32 3 18.0 5.0\n"
            "layers.0.weight F32 2x2 10.5 1.5\n");
}

TEST_F(CheckpointTest, SeamReadsWhatNumPyWrites) {
  const std::string out = Python("write", Path("np.safetensors"));
  if (skipped_) GTEST_SKIP() << SEAM_PYTHON << " has no NumPy (Debian package python3-numpy)";
  ASSERT_EQ(out, "");
  Loaded loaded = load_file(Path("np.safetensors"));
  EXPECT_EQ(loaded.metadata.at("written_by"), "numpy");
  EXPECT_EQ(loaded.tensors.at("fc.weight").shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(loaded.tensors.at("fc.weight").to_vector<float>(),
            (std::vector<float>{0, 0.25F, 0.5F, 0.75F, 1, 1.25F}));
  EXPECT_EQ(loaded.tensors.at("fc.bias").to_vector<double>(), (std::vector<double>{-1.5, 2.5}));
  EXPECT_EQ(loaded.tensors.at("steps").to_vector<int32_t>(), (std::vector<int32_t>{7}));
}

TEST_F(CheckpointTest, ADTypeTheTensorApiLacksLoadsNothing) {
  // An F16 tensor beside an F32 one: valid safetensors, but the API has no float16 tensors.
  const std::string header = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                             R"("b":{"dtype":"F16","shape":[2],"data_offsets":[4,8]}})";
  {
    std::ofstream out(Path("f16.safetensors"), std::ios::binary);
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>(header.size() >> (8 * i)));
    out << header << std::string(8, '\0');
  }
  try {
    load_file(Path("f16.safetensors"));
    FAIL() << "loaded a file with an F16 tensor";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("tensor 'b' is F16"));
    EXPECT_EQ(e.code(), ErrorCode::kUnimplemented);
  }
}

// The test's own float -> bfloat16 rounding (nearest, ties to even), for expected values.
uint16_t HostBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  uint32_t upper = bits >> 16, dropped = bits & 0xffffu;
  if (dropped > 0x8000u || (dropped == 0x8000u && (upper & 1u) != 0)) ++upper;
  return static_cast<uint16_t>(upper);
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(CheckpointTest, Bf16AndInt64RoundTripByteIdentical) {
  const std::vector<float> floats = {0.1F, -1.0F, 3.0F, 65504.0F, 1.00390625F, -0.0F};
  const std::vector<int64_t> ints = {(int64_t{1} << 60) + 1, -(int64_t{1} << 62), 5, -7};
  Tensor b = Tensor::from_vector(floats, {3, 2}, DType::kBFloat16);
  Tensor pending = b * 2.0;  // computed in bf16, saved after a sync
  Tensor l = Tensor::from_vector(ints, {2, 2});
  save_file(Path("a.safetensors"), {{"b", b}, {"b2", pending}, {"l", l}}, {{"k", "v"}});
  Loaded loaded = load_file(Path("a.safetensors"));
  EXPECT_EQ(loaded.tensors.at("b").dtype(), DType::kBFloat16);
  EXPECT_EQ(loaded.tensors.at("l").dtype(), DType::kInt64);
  EXPECT_EQ(loaded.tensors.at("b").shape(), (std::vector<int64_t>{3, 2}));
  std::vector<bfloat16> bits = loaded.tensors.at("b").to_vector<bfloat16>();
  for (size_t i = 0; i < floats.size(); ++i) EXPECT_EQ(bits[i].bits, HostBf16(floats[i])) << i;
  EXPECT_EQ(loaded.tensors.at("b2").to_vector<bfloat16>(), pending.to_vector<bfloat16>());
  EXPECT_EQ(loaded.tensors.at("l").to_vector<int64_t>(), ints);
  // Saved again, the file is the same, byte for byte.
  save_file(Path("b.safetensors"), loaded.tensors, loaded.metadata);
  const std::string first = FileBytes(Path("a.safetensors"));
  EXPECT_GT(first.size(), 8U + 2 * 6 * 2 + 8 * 4);
  EXPECT_EQ(FileBytes(Path("b.safetensors")), first);
}

TEST_F(CheckpointTest, NumPyReadsSeamsBf16AndInt64) {
  save_file(Path("m.safetensors"),
            {{"h", Tensor::from_vector({1.5F, -2.0F, 0.1F}, {3}, DType::kBFloat16)},
             {"ids", Tensor::from_vector(std::vector<int64_t>{(int64_t{1} << 60) + 1, -3}, {2})}});
  const std::string out = Python("read", Path("m.safetensors"));
  if (skipped_) GTEST_SKIP() << SEAM_PYTHON << " has no NumPy (Debian package python3-numpy)";
  // bf16(0.1) = 0x3dcd = 0.10009765625; the int64 sum 2^60 + 1 - 3 is exact.
  EXPECT_EQ(out,
            "h BF16 3 -0.39990234375 1.5\n"
            "ids I64 2 1152921504606846974 1152921504606846977\n");
}

TEST_F(CheckpointTest, SeamReadsNumPysBf16AndInt64) {
  const std::string out = Python("write", Path("np.safetensors"));
  if (skipped_) GTEST_SKIP() << SEAM_PYTHON << " has no NumPy (Debian package python3-numpy)";
  ASSERT_EQ(out, "");
  Loaded loaded = load_file(Path("np.safetensors"));
  const Tensor& h = loaded.tensors.at("emb.bf16");
  EXPECT_EQ(h.dtype(), DType::kBFloat16);
  EXPECT_EQ(h.shape(), (std::vector<int64_t>{3, 2}));
  const std::vector<float> written = {0.1F, -1.0F, 3.0F, 65504.0F, 1.00390625F, 1.01171875F};
  std::vector<bfloat16> bits = h.to_vector<bfloat16>();
  for (size_t i = 0; i < written.size(); ++i) EXPECT_EQ(bits[i].bits, HostBf16(written[i])) << i;
  EXPECT_EQ(loaded.tensors.at("ids.i64").dtype(), DType::kInt64);
  EXPECT_EQ(
      loaded.tensors.at("ids.i64").to_vector<int64_t>(),
      (std::vector<int64_t>{(int64_t{1} << 40) + 7, -(int64_t{1} << 62), (int64_t{1} << 60) + 1}));
}

TEST_F(CheckpointTest, MisuseIsAClearError) {
  EXPECT_THROW(save_file(Path("m.safetensors"), {{"__metadata__", Tensor::zeros({1})}}), Error);
  try {
    load_file(Path("missing.safetensors"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot open"));
    EXPECT_THAT(e.what(), HasSubstr("missing.safetensors"));
  }
  EXPECT_FALSE(std::filesystem::exists(Path("m.safetensors")));
}

// Many tensors of sizes that grow, shrink and grow again, float and int, some on the host
// and some computed: the save reads each into a reused host buffer, and no tensor may carry
// another's bytes.
TEST_F(CheckpointTest, TensorsOfChangingSizesKeepTheirOwnBytes) {
  const std::vector<int64_t> sizes = {5000, 7, 0, 12000, 1, 3000, 3000, 20000, 2, 9000, 64, 4};
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::vector<float>> expected_f;
  std::map<std::string, std::vector<int32_t>> expected_i;
  for (size_t t = 0; t < sizes.size(); ++t) {
    const std::string name = "t" + std::to_string(100 + t);
    if (t % 3 == 1) {
      std::vector<int32_t> values(static_cast<size_t>(sizes[t]));
      for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(t * 100000 + i);
      tensors.emplace(name, Tensor::from_vector(values, {sizes[t]}));
      expected_i[name] = values;
    } else {
      std::vector<float> values(static_cast<size_t>(sizes[t]));
      for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(t) + 0.5F * i;
      Tensor x = Tensor::from_vector(values, {sizes[t]});
      if (t % 2 == 0) {  // computed on the device: 2x - x
        x = x * 2.0F - x;
      }
      tensors.emplace(name, x);
      expected_f[name] = values;
    }
  }
  save_file(Path("many.safetensors"), tensors);
  const Loaded loaded = load_file(Path("many.safetensors"));
  ASSERT_EQ(loaded.tensors.size(), sizes.size());
  for (const auto& [name, values] : expected_f) {
    EXPECT_EQ(loaded.tensors.at(name).to_vector<float>(), values) << name;
  }
  for (const auto& [name, values] : expected_i) {
    EXPECT_EQ(loaded.tensors.at(name).to_vector<int32_t>(), values) << name;
  }
}

// The code and message of the Error `call` throws.
template <typename Call>
std::pair<ErrorCode, std::string> Failure(Call call) {
  try {
    call();
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  ADD_FAILURE() << "no Error thrown";
  return {ErrorCode::kUnknown, ""};
}

// docs/checkpoints.md, "Errors": each kind of failure through the public API has its code.
TEST_F(CheckpointTest, EachKindOfFailureHasItsCode) {
  save_file(Path("m.safetensors"), {{"w", Tensor::zeros({4})}});
  const std::string whole = FileBytes(Path("m.safetensors"));
  std::ofstream(Path("truncated.safetensors"), std::ios::binary)
      << whole.substr(0, whole.size() - 4);
  std::ofstream(Path("garbage.safetensors"), std::ios::binary) << "not a safetensors file";
  for (const std::string name : {"truncated.safetensors", "garbage.safetensors"}) {
    auto [code, message] = Failure([&] { load_file(Path(name)); });
    EXPECT_EQ(code, ErrorCode::kDataLoss) << message;
    EXPECT_THAT(message, HasSubstr(Path(name)));
  }
  auto [missing, missing_message] = Failure([&] { load_file(Path("missing.safetensors")); });
  EXPECT_EQ(missing, ErrorCode::kNotFound) << missing_message;
  auto [no_folder, no_folder_message] = Failure([&] {
    save_file(Path("no/folder/m.safetensors"), {{"w", Tensor::zeros({1})}});
  });
  EXPECT_EQ(no_folder, ErrorCode::kNotFound) << no_folder_message;
  std::filesystem::create_directory(Path("folder"));
  auto [load_folder, load_folder_message] = Failure([&] { load_file(Path("folder")); });
  EXPECT_EQ(load_folder, ErrorCode::kFailedPrecondition) << load_folder_message;
  auto [save_folder, save_folder_message] = Failure([&] {
    save_file(Path("folder"), {{"w", Tensor::zeros({1})}});
  });
  EXPECT_EQ(save_folder, ErrorCode::kFailedPrecondition) << save_folder_message;
  auto [reserved, reserved_message] = Failure([&] {
    save_file(Path("r.safetensors"), {{"__metadata__", Tensor::zeros({1})}});
  });
  EXPECT_EQ(reserved, ErrorCode::kInvalidArgument) << reserved_message;
  // sysfs takes no new file, even from root (and a read-only /sys says EROFS).
  const std::string unwritable = "/sys/seam_checkpoint_test.safetensors";
  const int fd = open((unwritable + ".probe").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  const int probe = fd < 0 ? errno : 0;
  if (fd >= 0) {
    close(fd);
    unlink((unwritable + ".probe").c_str());
  }
  if (probe != EACCES && probe != EPERM && probe != EROFS) {
    GTEST_SKIP() << "creating a file in /sys gave '" << std::strerror(probe)
                 << "', not a permission error: the PERMISSION_DENIED case is not checked here";
  }
  auto [denied, denied_message] = Failure([&] {
    save_file(unwritable, {{"w", Tensor::zeros({1})}});
  });
  EXPECT_EQ(denied, ErrorCode::kPermissionDenied) << denied_message;
  EXPECT_THAT(denied_message, HasSubstr(unwritable));
}

// A save killed before its rename left `<path>.tmp.<pid>`: the next save of the path removes
// it, and keeps the temporary file of a process still alive.
TEST_F(CheckpointTest, ASaveRemovesWhatAKilledSaveOfItsPathLeft) {
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const std::string left = Path("m.safetensors.tmp." + std::to_string(dead));
  const std::string alive = Path("m.safetensors.tmp." + std::to_string(getppid()));
  std::ofstream(left) << "partial";
  std::ofstream(alive) << "partial";
  save_file(Path("m.safetensors"), {{"w", Tensor::zeros({2})}});
  EXPECT_FALSE(std::filesystem::exists(left));
  EXPECT_TRUE(std::filesystem::exists(alive));
  EXPECT_EQ(load_file(Path("m.safetensors")).tensors.at("w").to_vector<float>(),
            (std::vector<float>{0, 0}));
}

}  // namespace
}  // namespace seam::checkpoint
