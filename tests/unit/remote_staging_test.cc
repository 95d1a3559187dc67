// The staging buffers of `seam serve` (src/runtime/remote_staging.h): reuse of kept buffers,
// the cache's limit, and many threads taking and returning buffers at once (also under
// ThreadSanitizer: label tsan).
#include "src/runtime/remote_staging.h"

#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace seam::runtime {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(StagingBuffersTest, AReturnedBufferIsHandedOutAgainForASizeItHolds) {
  StagingBuffers pool(8 * kMiB);
  uint8_t* first = nullptr;
  {
    StagingBuffers::Buffer a = pool.Acquire(2 * kMiB);
    first = a.data();
    EXPECT_EQ(a.size(), 2 * kMiB);
    std::memset(a.data(), 1, a.size());  // writable over its whole size
  }
  EXPECT_EQ(pool.cached_bytes(), 2 * kMiB);
  StagingBuffers::Buffer b = pool.Acquire(kMiB);  // fits the kept one
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(b.size(), kMiB);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  StagingBuffers::Buffer c = pool.Acquire(3 * kMiB);  // nothing kept: a new one
  EXPECT_NE(c.data(), first);
}

TEST(StagingBuffersTest, TheCacheKeepsAtMostItsLimit) {
  StagingBuffers pool(4 * kMiB);
  { StagingBuffers::Buffer big = pool.Acquire(5 * kMiB); }  // over the limit: freed
  EXPECT_EQ(pool.cached_bytes(), 0u);
  {
    StagingBuffers::Buffer a = pool.Acquire(kMiB);
    StagingBuffers::Buffer b = pool.Acquire(2 * kMiB);
    StagingBuffers::Buffer c = pool.Acquire(3 * kMiB);
  }  // returned a, b... then c, which drops the smallest kept until it fits
  EXPECT_LE(pool.cached_bytes(), 4 * kMiB);
  EXPECT_EQ(pool.cached_bytes(), 3 * kMiB);
}

TEST(StagingBuffersTest, ManyThreadsTakeAndReturnBuffers) {
  StagingBuffers pool(16 * kMiB);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 200; ++i) {
        const size_t size = (static_cast<size_t>(t * 7 + i) % 5 + 1) * 64 * 1024;
        StagingBuffers::Buffer buffer = pool.Acquire(size);
        std::memset(buffer.data(), t, size);
        for (size_t k = 0; k < size; k += 4096) ASSERT_EQ(buffer.data()[k], t);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(pool.cached_bytes(), 16 * kMiB);
}

}  // namespace
}  // namespace seam::runtime
