#include "src/lazy/compile_cache.h"

#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/settings.h"

namespace seam::lazy {

runtime::ComputationClient::ComputationPtr CompileCache::Find(uint64_t key,
                                                              const ir::Program& program) {
  return FindMatching(key, [&](const ir::Program& cached, absl::Span<const uint64_t>) {
    return cached == program;
  });
}

runtime::ComputationClient::ComputationPtr CompileCache::FindMatching(
    uint64_t key,
    absl::FunctionRef<bool(const ir::Program&, absl::Span<const uint64_t> signature)> matches) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  const Entry& entry = *it->second;
  if (!matches(entry.computation->program(), entry.signature)) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->computation;
}

void CompileCache::Insert(uint64_t key, runtime::ComputationClient::ComputationPtr computation,
                          std::vector<uint64_t> signature) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    it->second->computation = std::move(computation);
    it->second->signature = std::move(signature);
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.push_front({key, std::move(computation), std::move(signature)});
  index_[key] = lru_.begin();
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

size_t CompileCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lru_.size();
}

absl::StatusOr<CompileCache*> GetCompileCache() {
  static const absl::StatusOr<CompileCache*>* cache = [] {
    absl::StatusOr<int64_t> capacity = base::ReadIntSetting(base::Setting::kXlaCompilationCacheSize,
                                                            CompileCache::kDefaultCapacity);
    if (capacity.ok() && *capacity < 1) {
      capacity = absl::InvalidArgumentError(absl::StrCat(
          "Environment variable XLA_COMPILATION_CACHE_SIZE must be at least 1, got ", *capacity));
    }
    if (!capacity.ok()) return new absl::StatusOr<CompileCache*>(capacity.status());
    return new absl::StatusOr<CompileCache*>(new CompileCache(static_cast<size_t>(*capacity)));
  }();
  return *cache;
}

uint64_t CompileCacheKey(uint64_t program_hash, const std::string& device) {
  uint64_t h = program_hash;
  for (char c : device) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

}  // namespace seam::lazy
