// Per-thread scratch tables that keep their capacity from one use to the next (a step
// barrier runs every training step; its lists should not allocate each time).
//
//   struct Tables { std::vector<int> list; void Clear() { list.clear(); } };
//   ScratchLease<Tables> tables;  // this thread's Tables, or fresh ones if already leased
//   tables->list.push_back(1);    // ... Clear() runs when the lease ends
//
// A nested lease on the same thread (a use inside a use) gets tables of its own, so the
// outer one's are never disturbed. T needs a default constructor and Clear(), which must
// drop every reference the tables hold.
#ifndef SEAM_BASE_SCRATCH_H_
#define SEAM_BASE_SCRATCH_H_

#include <optional>

namespace seam::base {

template <typename T>
class ScratchLease {
 public:
  ScratchLease() {
    Slot& slot = ThreadSlot();
    if (slot.leased) {
      table_ = &nested_.emplace();
    } else {
      slot.leased = true;
      table_ = &slot.table;
    }
  }
  ~ScratchLease() {
    table_->Clear();
    Slot& slot = ThreadSlot();
    if (table_ == &slot.table) slot.leased = false;
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  T& operator*() const { return *table_; }
  T* operator->() const { return table_; }

 private:
  struct Slot {
    T table;
    bool leased = false;
  };
  static Slot& ThreadSlot() {
    thread_local Slot slot;
    return slot;
  }
  std::optional<T> nested_;
  T* table_;
};

}  // namespace seam::base

#endif  // SEAM_BASE_SCRATCH_H_
