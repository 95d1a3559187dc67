// The recompile explainer: why a sync missed the compile cache, compared with the closest
// program compiled earlier from the same code site (docs/frontend.md, "Recompilations").
#ifndef SEAM_LAZY_RECOMPILE_EXPLAINER_H_
#define SEAM_LAZY_RECOMPILE_EXPLAINER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "seam/source_location.h"
#include "src/ir/program.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// A sync's code site: "file:line" of the caller of seam::sync(), or "item at file:line"
// for a host read (`op` "item"); "sync" when none was given. Kept unformatted: the text is
// made only when a compile-cache miss needs it.
struct SyncSite {
  const char* op = nullptr;  // a static string, or null for seam::sync()
  SourceLocation location;
  bool known = false;
  std::string Text() const;
};

// The code site of the syncs this thread runs while the scope is alive. Scopes nest.
class SyncSiteScope {
 public:
  explicit SyncSiteScope(SourceLocation location, const char* op = nullptr);
  ~SyncSiteScope();
  SyncSiteScope(const SyncSiteScope&) = delete;
  SyncSiteScope& operator=(const SyncSiteScope&) = delete;

 private:
  SyncSite previous_;
};

// Called on every compile-cache miss of a sync. When the current site compiled a program
// before, adds one to the counter RecompileAfterFirstStep; with SEAM_DEBUG=1 (read at
// first use; a value other than 0 or 1 is InvalidArgument naming the variable) also logs
// the reason, compared with the closest of the last programs compiled at that site.
// `program` is the program to compile; its parameter p is the value `parameters[p]`.
absl::Status NoteCompileCacheMiss(const ir::Program& program,
                                  const std::vector<std::shared_ptr<DeviceValue>>& parameters);

// Why `now` is not `before`, in one line (empty when the programs are equal).
// `now_from_host[j]` says whether parameter j of `now` is host data sent by this sync.
std::string ExplainDifference(const ir::Program& before, const ir::Program& now,
                              const std::vector<bool>& now_from_host);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_RECOMPILE_EXPLAINER_H_
