#include "src/lazy/attributes.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace seam::lazy {
namespace {

// Sets kept per thread; past this the table starts over (sets in use stay with their nodes).
constexpr size_t kMaxSets = 4096;
// Attributes sorted on the stack; an op with more goes through a map.
constexpr size_t kMaxSorted = 8;
static_assert(std::is_trivially_copyable_v<Attr> && std::is_trivially_destructible_v<Attr>);

uint64_t Mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

uint64_t Load8(const char* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

uint32_t Load4(const char* p) {
  uint32_t word;
  std::memcpy(&word, p, 4);
  return word;
}

// A name's bytes a word at a time; the last word overlaps the one before it (names are
// short: a byte loop over the tail costs more than the rest). With the length before them,
// the words tell names apart.
size_t NameWords(size_t n) { return n >= 8 ? n / 8 + 1 : 1; }

uint64_t* PutName(std::string_view name, uint64_t* out) {
  const char* p = name.data();
  const size_t n = name.size();
  *out++ = n;
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) *out++ = Load8(p + i);
    *out++ = Load8(p + n - 8);
    return out;
  }
  if (n >= 4) {
    *out++ = static_cast<uint64_t>(Load4(p)) << 32 | Load4(p + n - 4);
    return out;
  }
  uint64_t tail = 0;
  for (size_t k = 0; k < n; ++k) {
    tail |= static_cast<uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  }
  *out++ = tail;
  return out;
}

uint64_t HashWords(absl::Span<const uint64_t> words) {
  uint64_t h = 0x243f6a8885a308d3ULL;
  for (uint64_t w : words) h = Mix(h, w);
  return h;
}

bool SameWords(absl::Span<const uint64_t> a, absl::Span<const uint64_t> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

bool NameLess(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
    }
  }
  return a.size() < b.size();
}

bool SameValues(absl::Span<const int64_t> a, absl::Span<const int64_t> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

AttributeSetPtr Make(std::span<const Attr> sorted, absl::Span<const uint64_t> words,
                     uint64_t hash) {
  auto set = std::make_shared<AttributeSet>();
  for (const Attr& attr : sorted) {
    set->map.emplace_hint(set->map.end(), std::string(attr.name),
                          std::vector<int64_t>(attr.values.begin(), attr.values.end()));
  }
  set->words.assign(words.begin(), words.end());
  set->hash = hash;
  return set;
}

// This thread's table: not made yet, alive, or destroyed (the thread is ending; sets are
// then made without it). A trivially destructible thread_local stays readable until the
// thread ends (as in src/base/object_pool.cc).
enum class TableState : unsigned char { kNone, kAlive, kDead };
thread_local TableState t_table_state = TableState::kNone;

struct Table {
  absl::flat_hash_map<uint64_t, AttributeSetPtr> sets;  // by hash; a collision is not kept
  ~Table() { t_table_state = TableState::kDead; }
};

Table* GetTable() {
  if (t_table_state == TableState::kDead) return nullptr;
  thread_local Table table;
  t_table_state = TableState::kAlive;
  return &table;
}

AttributeSetPtr InternSorted(std::span<const Attr> sorted) {
  if (sorted.empty()) return nullptr;
  // The words on the stack when they fit (they do for every op the front end records).
  const size_t count = AttributeWords(sorted);
  uint64_t stack[64];
  std::vector<uint64_t> heap;
  uint64_t* buffer = stack;
  if (count > 64) {
    heap.resize(count);
    buffer = heap.data();
  }
  EncodeAttributes(sorted, buffer);
  const absl::Span<const uint64_t> words(buffer, count);
  const uint64_t hash = HashWords(words);
  Table* table = GetTable();
  if (table == nullptr) return Make(sorted, words, hash);
  auto found = table->sets.find(hash);
  if (found != table->sets.end()) {
    if (SameWords(found->second->words, words)) return found->second;
    return Make(sorted, words, hash);  // another set has this hash: not shared
  }
  AttributeSetPtr set = Make(sorted, words, hash);
  if (table->sets.size() >= kMaxSets) table->sets.clear();
  table->sets.emplace(hash, set);
  return set;
}

}  // namespace

AttributeSetPtr InternAttributes(std::span<const Attr> attrs) {
  if (attrs.empty()) return nullptr;
  if (attrs.size() == 1) return InternSorted(attrs);
  if (attrs.size() > kMaxSorted) {
    ir::Attributes map;
    for (const Attr& attr : attrs) {
      map.emplace(std::string(attr.name),
                  std::vector<int64_t>(attr.values.begin(), attr.values.end()));
    }
    return InternAttributes(map);
  }
  // Insertion sort by name; a name already placed keeps its first values.
  // Raw storage: an Attr array would be initialized on every call.
  alignas(Attr) unsigned char storage[kMaxSorted * sizeof(Attr)];
  Attr* sorted = reinterpret_cast<Attr*>(storage);
  size_t count = 0;
  for (const Attr& attr : attrs) {
    size_t position = count;
    while (position > 0 && NameLess(attr.name, sorted[position - 1].name)) --position;
    if (position > 0 && SameName(sorted[position - 1].name, attr.name)) continue;
    for (size_t k = count; k > position; --k) sorted[k] = sorted[k - 1];
    sorted[position] = attr;
    ++count;
  }
  return InternSorted(std::span<const Attr>(sorted, count));
}

AttributeSetPtr InternAttributes(const ir::Attributes& attrs) {
  std::vector<Attr> sorted;
  sorted.reserve(attrs.size());
  for (const auto& [name, values] : attrs) sorted.push_back({name, values});
  return InternSorted(sorted);
}

size_t AttributeWords(std::span<const Attr> sorted) {
  size_t count = 0;
  for (const Attr& attr : sorted) count += 2 + NameWords(attr.name.size()) + attr.values.size();
  return count;
}

void EncodeAttributes(std::span<const Attr> sorted, uint64_t* out) {
  for (const Attr& attr : sorted) {
    out = PutName(attr.name, out);
    *out++ = attr.values.size();
    for (int64_t v : attr.values) *out++ = static_cast<uint64_t>(v);
  }
}

bool SameName(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char *p = a.data(), *q = b.data();
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      if (Load8(p + i) != Load8(q + i)) return false;
    }
    return Load8(p + n - 8) == Load8(q + n - 8);
  }
  if (n >= 4) return Load4(p) == Load4(q) && Load4(p + n - 4) == Load4(q + n - 4);
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != q[i]) return false;
  }
  return true;
}

const std::vector<int64_t>& AttrValues(const ir::Attributes& attrs, std::string_view name) {
  for (const auto& [key, values] : attrs) {
    if (SameName(key, name)) return values;
  }
  return attrs.at(std::string(name));
}

bool SameAttributes(const ir::Attributes& a, const ir::Attributes& b) {
  if (a.size() != b.size()) return false;
  auto j = b.begin();
  for (auto i = a.begin(); i != a.end(); ++i, ++j) {
    if (!SameName(i->first, j->first) || !SameValues(i->second, j->second)) return false;
  }
  return true;
}

}  // namespace seam::lazy
