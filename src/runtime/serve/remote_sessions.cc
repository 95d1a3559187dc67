#include "src/runtime/serve/remote_sessions.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace seam::runtime {
namespace {

// How long a lookup of a block handle polls for its execute before it sleeps.
constexpr std::chrono::microseconds kSpin{50};

std::string SessionName(uint64_t session) { return absl::StrFormat("session %016x", session); }

uint64_t RandomId() {
  std::random_device device;
  uint64_t value = (static_cast<uint64_t>(device()) << 32) ^ device();
  value ^= static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) *
           0x9E3779B97F4A7C15ULL;
  return value == 0 ? 1 : value;
}

}  // namespace

absl::StatusOr<uint64_t> RemoteSessions::Open(const std::string& who, int64_t max_sessions) {
  std::lock_guard<std::mutex> lock(mu_);
  if (static_cast<int64_t>(sessions_.size()) >= max_sessions) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "seam serve has ", sessions_.size(), " open sessions, its bound (--max-sessions ",
        max_sessions, "); one must end before another can open"));
  }
  uint64_t id = RandomId();
  while (sessions_.contains(id)) id = RandomId();
  // 2^31 blocks: more sessions than a server's life opens (the bound refuses beyond).
  if (next_block_ >= (kNamedBit / kBlockSize)) {
    return absl::ResourceExhaustedError("seam serve has handed out every block of handles");
  }
  sessions_[id] = Session{who, 0, kNamedBit | (next_block_++ * kBlockSize)};
  return id;
}

RemoteSessions::Freed RemoteSessions::Close(uint64_t session) {
  std::vector<Entry> freed;  // destroyed after the lock is dropped (they call the plugin)
  Freed counts;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (sessions_.erase(session) == 0) return counts;
    for (auto it = handles_.begin(); it != handles_.end();) {
      if (it->second.session == session) {
        if (it->second.buffer != nullptr) ++counts.buffers;
        if (it->second.computation != nullptr) ++counts.computations;
        freed.push_back(std::move(it->second));
        handles_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  registered_.notify_all();  // lookups waiting for this session's handles give up
  return counts;
}

absl::Status RemoteSessions::Check(uint64_t session) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (sessions_.contains(session)) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat(
      SessionName(session), " is not open on this server (it ended, or was never opened)"));
}

absl::StatusOr<uint64_t> RemoteSessions::NamedBase(uint64_t session) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(session);
  if (it == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " is not open on this server"));
  }
  return it->second.named_base;
}

absl::StatusOr<const RemoteSessions::Entry*> RemoteSessions::Find(
    std::unique_lock<std::mutex>& lock, uint64_t session, uint64_t handle) const {
  auto owner = sessions_.find(session);
  if (owner == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " is not open on this server"));
  }
  const uint64_t base = owner->second.named_base;
  const bool in_block = handle > base && handle - base < kBlockSize;
  auto it = handles_.find(handle);
  if (it == handles_.end() && in_block) {
    // Named by this client for an execute that may still be on its way: wait for it. The
    // execute is usually being handled on another thread right now, so look again for a
    // moment before sleeping (a sleeping thread's wake-up costs more on a small VM).
    const auto spin_until = std::chrono::steady_clock::now() + kSpin;
    while (std::chrono::steady_clock::now() < spin_until) {
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
      it = handles_.find(handle);
      if (it != handles_.end() || !sessions_.contains(session)) break;
    }
    const auto deadline = std::chrono::steady_clock::now() + pending_wait_;
    registered_.wait_until(lock, deadline, [&] {
      it = handles_.find(handle);
      return it != handles_.end() || !sessions_.contains(session);
    });
    if (!sessions_.contains(session)) {
      return absl::NotFoundError(absl::StrCat(SessionName(session), " has ended"));
    }
    if (it == handles_.end()) {
      return absl::NotFoundError(absl::StrCat(
          "handle ", handle, " is not known to this server: no execute of this session gave it ",
          "to an output within ", pending_wait_.count(), " ms (or it was released)"));
    }
  }
  if (it == handles_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "handle ", handle, " is not known to this server (never handed out, or released)"));
  }
  if (it->second.session != session) {
    return absl::PermissionDeniedError(
        absl::StrCat("handle ", handle, " belongs to another client's session"));
  }
  return &it->second;
}

absl::StatusOr<std::vector<RemoteSessions::DataPtr>> RemoteSessions::Buffers(
    uint64_t session, absl::Span<const uint64_t> handles) const {
  std::unique_lock<std::mutex> lock(mu_);
  std::vector<DataPtr> buffers;
  buffers.reserve(handles.size());
  for (uint64_t handle : handles) {
    absl::StatusOr<const Entry*> entry = Find(lock, session, handle);
    if (!entry.ok()) return entry.status();
    // The launch's own error, whichever output (or output of an execute that took one as
    // its argument) is named.
    if (!(*entry)->failed.ok()) return (*entry)->failed;
    if ((*entry)->buffer == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("handle ", handle, " is a computation, not a buffer"));
    }
    buffers.push_back((*entry)->buffer);
  }
  return buffers;
}

absl::StatusOr<RemoteSessions::ComputationPtr> RemoteSessions::Computation(uint64_t session,
                                                                           uint64_t handle) const {
  std::unique_lock<std::mutex> lock(mu_);
  absl::StatusOr<const Entry*> entry = Find(lock, session, handle);
  if (!entry.ok()) return entry.status();
  if ((*entry)->computation == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("handle ", handle, " is a buffer, not a computation"));
  }
  return (*entry)->computation;
}

absl::StatusOr<std::vector<uint64_t>> RemoteSessions::AddBuffers(
    uint64_t session, const std::vector<DataPtr>& buffers) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(session);
  if (it == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " has ended"));
  }
  std::vector<uint64_t> handles;
  handles.reserve(buffers.size());
  for (const DataPtr& buffer : buffers) {
    handles.push_back(next_handle_);
    handles_[next_handle_++] = Entry{session, buffer, nullptr, absl::OkStatus()};
  }
  it->second.buffers += static_cast<int64_t>(buffers.size());
  return handles;
}

absl::StatusOr<std::vector<uint64_t>> RemoteSessions::AddComputations(
    uint64_t session, const std::vector<ComputationPtr>& computations) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!sessions_.contains(session)) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " has ended"));
  }
  std::vector<uint64_t> handles;
  handles.reserve(computations.size());
  for (const ComputationPtr& computation : computations) {
    handles.push_back(next_handle_);
    handles_[next_handle_++] = Entry{session, nullptr, computation, absl::OkStatus()};
  }
  return handles;
}

absl::Status RemoteSessions::Release(uint64_t session, absl::Span<const uint64_t> handles) {
  std::vector<Entry> freed;  // destroyed after the lock is dropped
  std::unique_lock<std::mutex> lock(mu_);
  if (!sessions_.contains(session)) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " is not open on this server"));
  }
  for (uint64_t handle : handles) {
    absl::StatusOr<const Entry*> entry = Find(lock, session, handle);
    if (!entry.ok()) return entry.status();
  }
  auto session_entry = sessions_.find(session);  // looked up again: Find may have waited
  if (session_entry == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " has ended"));
  }
  Session& owner = session_entry->second;
  for (uint64_t handle : handles) {
    auto it = handles_.find(handle);
    if (it == handles_.end()) continue;  // named twice in one request
    if (it->second.buffer != nullptr) --owner.buffers;
    freed.push_back(std::move(it->second));
    handles_.erase(it);
  }
  return absl::OkStatus();
}

absl::Status RemoteSessions::CheckNamed(uint64_t session,
                                        absl::Span<const uint64_t> handles) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto owner = sessions_.find(session);
  if (owner == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " is not open on this server"));
  }
  const uint64_t base = owner->second.named_base;
  for (size_t i = 0; i < handles.size(); ++i) {
    const uint64_t handle = handles[i];
    if (handle <= base || handle - base >= kBlockSize) {
      return absl::InvalidArgumentError(absl::StrCat("Execute: output handle ", handle,
                                                     " is outside this session's block (", base + 1,
                                                     " to ", base + kBlockSize - 1, ")"));
    }
    if (handles_.contains(handle) ||
        std::find(handles.begin(), handles.begin() + i, handle) != handles.begin() + i) {
      return absl::InvalidArgumentError(
          absl::StrCat("Execute: output handle ", handle, " is already in use"));
    }
  }
  return absl::OkStatus();
}

absl::Status RemoteSessions::AddNamed(uint64_t session, absl::Span<const uint64_t> handles,
                                      const std::vector<DataPtr>& buffers) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(session);
    if (it == sessions_.end()) {
      return absl::NotFoundError(absl::StrCat(SessionName(session), " has ended"));
    }
    for (size_t i = 0; i < handles.size() && i < buffers.size(); ++i) {
      handles_[handles[i]] = Entry{session, buffers[i], nullptr, absl::OkStatus()};
    }
    it->second.buffers += static_cast<int64_t>(std::min(handles.size(), buffers.size()));
  }
  registered_.notify_all();
  return absl::OkStatus();
}

void RemoteSessions::FailNamed(uint64_t session, absl::Span<const uint64_t> handles,
                               const absl::Status& error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!sessions_.contains(session)) return;
    for (uint64_t handle : handles) handles_[handle] = Entry{session, nullptr, nullptr, error};
  }
  registered_.notify_all();
}

RemoteSessions::Counts RemoteSessions::GetCounts(uint64_t session) const {
  std::lock_guard<std::mutex> lock(mu_);
  Counts counts;
  counts.sessions = static_cast<int64_t>(sessions_.size());
  for (const auto& [handle, entry] : handles_) {
    if (entry.buffer != nullptr) ++counts.buffers;
    if (entry.computation != nullptr) ++counts.computations;
  }
  auto it = sessions_.find(session);
  if (it != sessions_.end()) counts.session_buffers = it->second.buffers;
  return counts;
}

}  // namespace seam::runtime
