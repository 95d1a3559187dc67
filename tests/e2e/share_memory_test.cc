// seam::share_memory (include/seam/interop.h) through the stack: a computed tensor's CPU
// buffer handed out in place, held (not freed, not donated) while the owner lives, and
// nothing handed out where the value cannot be shared.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "seam/interop.h"
#include "seam/tensor.h"

namespace seam {
namespace {

std::vector<float> Floats(const SharedMemory& shared, size_t count) {
  std::vector<float> out(count);
  std::memcpy(out.data(), shared.data, count * sizeof(float));
  return out;
}

TEST(ShareMemoryTest, ComputedTensorSharesItsBuffer) {
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor y = x * 2.0f;
  std::optional<SharedMemory> a = share_memory(y);
  std::optional<SharedMemory> b = share_memory(y);
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(a->data, b->data);  // the same buffer, not two copies
  EXPECT_EQ(Floats(*a, 6), y.to_vector<float>());
  // Writing through the shared memory changes the tensor's value (no copy in between).
  static_cast<float*>(a->data)[0] = 42.0f;
  EXPECT_EQ(y.to_vector<float>()[0], 42.0f);
}

TEST(ShareMemoryTest, OwnerKeepsTheBufferAfterTheTensorGoes) {
  std::optional<SharedMemory> shared;
  {
    Tensor y = Tensor::from_vector(std::vector<float>(1024, 3.0f), {1024}) + 1.0f;
    shared = share_memory(y);
    ASSERT_TRUE(shared.has_value());
  }
  // Values made and dropped meanwhile do not reuse the held buffer.
  for (int i = 0; i < 5; ++i) {
    Tensor z = Tensor::from_vector(std::vector<float>(1024, -1.0f), {1024}) * 7.0f;
    sync();
    EXPECT_EQ(z.to_vector<float>()[0], -7.0f);
  }
  EXPECT_EQ(Floats(*shared, 1024), std::vector<float>(1024, 4.0f));
}

TEST(ShareMemoryTest, HeldBufferIsNotDonated) {
  Tensor w = Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, {4}) * 1.0f;
  sync();
  std::optional<SharedMemory> shared = share_memory(w);
  ASSERT_TRUE(shared.has_value());
  for (int i = 0; i < 3; ++i) {
    w.assign(w + 10.0f);  // the step barrier donates an overwritten buffer nothing else holds
    sync();
  }
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{31, 32, 33, 34}));
  EXPECT_EQ(Floats(*shared, 4), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ShareMemoryTest, HostValueIsNotShared) {
  Tensor host = Tensor::from_vector(std::vector<float>{1, 2}, {2});
  EXPECT_FALSE(share_memory(host).has_value());
}

}  // namespace
}  // namespace seam
