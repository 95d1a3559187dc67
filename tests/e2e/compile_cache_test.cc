// The compile cache's size comes from XLA_COMPILATION_CACHE_SIZE and it evicts the least
// recently used program. Each TEST runs in its own process (the cache is per process).
#include "src/lazy/compile_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "seam/metrics.h"
#include "seam/tensor.h"

namespace seam {
namespace {

// Two structurally different one-op programs.
float ProgramA() { return (Tensor::from_vector({1.0f, 2.0f}, {2}) * 3.0f).sum().item<float>(); }
float ProgramB() { return (Tensor::from_vector({1.0f, 2.0f}, {2}) + 3.0f).sum().item<float>(); }

TEST(CompileCacheTest, SizeOneEvictsTheOtherProgram) {
  setenv("XLA_COMPILATION_CACHE_SIZE", "1", 1);
  EXPECT_EQ(ProgramA(), 9.0f);
  EXPECT_EQ(ProgramB(), 9.0f);
  EXPECT_EQ(ProgramA(), 9.0f);  // A was evicted by B: compiled again
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 3);
  EXPECT_EQ(metrics::CounterValue("CachedCompile"), 0);
  EXPECT_EQ((*lazy::GetCompileCache())->size(), 1u);
}

TEST(CompileCacheTest, SizeTwoKeepsBoth) {
  setenv("XLA_COMPILATION_CACHE_SIZE", "2", 1);
  ProgramA();
  ProgramB();
  ProgramA();
  ProgramB();
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 2);
  EXPECT_EQ(metrics::CounterValue("CachedCompile"), 2);
}

TEST(CompileCacheTest, LeastRecentlyUsedGoesFirst) {
  setenv("XLA_COMPILATION_CACHE_SIZE", "2", 1);
  auto program_c = [] {
    return (Tensor::from_vector({1.0f, 2.0f}, {2}) - 3.0f).sum().item<float>();
  };
  ProgramA();
  ProgramB();
  ProgramA();   // A is now more recent than B
  program_c();  // evicts B
  ProgramA();   // still cached
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 3);
  ProgramB();  // compiled again
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 4);
}

// Every path shares the one cache: an eager op's program and a lazy step's take turns in a
// cache of one program, each evicting the other.
TEST(CompileCacheTest, EagerOpsAndStepsShareTheOneCache) {
  setenv("XLA_COMPILATION_CACHE_SIZE", "1", 1);
  Tensor x = Tensor::from_vector({1.0f, 2.0f}, {2});
  EXPECT_EQ(ProgramA(), 9.0f);  // a lazy step: compiled
  EXPECT_EQ(ProgramA(), 9.0f);  // cached
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 1);
  set_eager(true);
  Tensor y = x * x;  // an eager op: compiled, evicting the step's program
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 2);
  EXPECT_EQ((*lazy::GetCompileCache())->size(), 1u);
  set_eager(false);
  EXPECT_EQ(ProgramA(), 9.0f);  // compiled again: the eager op took its place
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 3);
  set_eager(true);
  Tensor z = x * x;  // and the eager op's program is gone too
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 4);
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{1.0f, 4.0f}));
  set_eager(false);
}

TEST(CompileCacheTest, ABadSizeIsAnErrorNamingTheVariable) {
  setenv("XLA_COMPILATION_CACHE_SIZE", "lots", 1);
  try {
    ProgramA();
    FAIL() << "expected seam::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "Environment variable XLA_COMPILATION_CACHE_SIZE must be an integer, got 'lots'");
  }
}

TEST(CompileCacheTest, ZeroIsRefused) {
  setenv("XLA_COMPILATION_CACHE_SIZE", "0", 1);
  EXPECT_THROW(ProgramA(), Error);
  EXPECT_EQ(lazy::GetCompileCache().status().message(),
            "Environment variable XLA_COMPILATION_CACHE_SIZE must be at least 1, got 0");
}

}  // namespace
}  // namespace seam
