// The lazy front end's compile cache: compiled programs by (program hash, device), least
// recently used evicted first.
#ifndef SEAM_LAZY_COMPILE_CACHE_H_
#define SEAM_LAZY_COMPILE_CACHE_H_

#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "src/runtime/computation_client.h"

namespace seam::lazy {

class CompileCache {
 public:
  // PyTorch/XLA's variable and default: XLA_COMPILATION_CACHE_SIZE, 1024 programs.
  static constexpr int64_t kDefaultCapacity = 1024;

  explicit CompileCache(size_t capacity) : capacity_(capacity) {}

  // The cached computation for `key`, confirmed by comparing programs (a hash collision
  // costs a compile, never a wrong result); null on a miss. A hit becomes most recent.
  runtime::ComputationClient::ComputationPtr Find(uint64_t key, const ir::Program& program);
  // The same, with the confirmation done by `matches` on the cached program and the
  // signature it was inserted with (the front end checks them against the graph, without
  // lowering the graph to a program first).
  runtime::ComputationClient::ComputationPtr FindMatching(
      uint64_t key,
      absl::FunctionRef<bool(const ir::Program&, absl::Span<const uint64_t> signature)> matches);
  // Inserts (or replaces) and evicts the least recently used entries beyond capacity.
  // `signature` is kept for FindMatching (the front end's GraphWalk::signature; none
  // otherwise).
  void Insert(uint64_t key, runtime::ComputationClient::ComputationPtr computation,
              std::vector<uint64_t> signature = {});
  size_t size() const;

 private:
  struct Entry {
    uint64_t key;
    runtime::ComputationClient::ComputationPtr computation;
    std::vector<uint64_t> signature;
  };
  size_t capacity_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // most recent first
  absl::flat_hash_map<uint64_t, std::list<Entry>::iterator> index_;
};

// The process's cache, sized by XLA_COMPILATION_CACHE_SIZE when first used. A value that
// is not a positive integer is an InvalidArgument naming the variable and the value.
absl::StatusOr<CompileCache*> GetCompileCache();

// The cache key: the program's structural hash combined with the device name.
uint64_t CompileCacheKey(uint64_t program_hash, const std::string& device);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_COMPILE_CACHE_H_
