#include "src/runtime/serve/remote_sessions.h"

#include <chrono>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace seam::runtime {
namespace {

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
  sessions_[id] = Session{who, 0};
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
        ++(it->second.buffer != nullptr ? counts.buffers : counts.computations);
        freed.push_back(std::move(it->second));
        handles_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  return counts;
}

absl::Status RemoteSessions::Check(uint64_t session) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (sessions_.contains(session)) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat(
      SessionName(session), " is not open on this server (it ended, or was never opened)"));
}

absl::StatusOr<const RemoteSessions::Entry*> RemoteSessions::Find(uint64_t session,
                                                                  uint64_t handle) const {
  if (!sessions_.contains(session)) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " is not open on this server"));
  }
  auto it = handles_.find(handle);
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
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<DataPtr> buffers;
  buffers.reserve(handles.size());
  for (uint64_t handle : handles) {
    absl::StatusOr<const Entry*> entry = Find(session, handle);
    if (!entry.ok()) return entry.status();
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
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<const Entry*> entry = Find(session, handle);
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
    handles_[next_handle_++] = Entry{session, buffer, nullptr};
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
    handles_[next_handle_++] = Entry{session, nullptr, computation};
  }
  return handles;
}

absl::Status RemoteSessions::Release(uint64_t session, absl::Span<const uint64_t> handles) {
  std::vector<Entry> freed;  // destroyed after the lock is dropped
  std::lock_guard<std::mutex> lock(mu_);
  auto session_entry = sessions_.find(session);
  if (session_entry == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat(SessionName(session), " is not open on this server"));
  }
  for (uint64_t handle : handles) {
    absl::StatusOr<const Entry*> entry = Find(session, handle);
    if (!entry.ok()) return entry.status();
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

RemoteSessions::Counts RemoteSessions::GetCounts(uint64_t session) const {
  std::lock_guard<std::mutex> lock(mu_);
  Counts counts;
  counts.sessions = static_cast<int64_t>(sessions_.size());
  for (const auto& [handle, entry] : handles_) {
    if (entry.buffer != nullptr) {
      ++counts.buffers;
    } else {
      ++counts.computations;
    }
  }
  auto it = sessions_.find(session);
  if (it != sessions_.end()) counts.session_buffers = it->second.buffers;
  return counts;
}

}  // namespace seam::runtime
