// The checks the loader makes on a plugin file before dlopen: dlopen maps a file's
// segments and touches them, so a file cut short (a half-copied plugin) would kill the
// process with SIGBUS inside the dynamic linker instead of failing.
#ifndef SEAM_RUNTIME_PJRT_PLUGIN_FILE_H_
#define SEAM_RUNTIME_PJRT_PLUGIN_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace seam::runtime {

// OK when `path` names an ELF shared object for this machine (class, byte order, machine,
// type ET_DYN) whose program header table and segments all lie inside the file. Otherwise
// InvalidArgument "Failed to open <path>: <path>: <the problem, with the offending value>"
// (the form of the dynamic linker's own errors, which the loader reports the same way).
//
// A name without a slash is searched in $LD_LIBRARY_PATH's folders, and the first file
// found there is checked; a name found nowhere there, and a path that cannot be opened,
// are left to dlopen (the system's library folders are trusted, and dlopen's message for
// a missing file stays the same).
absl::Status CheckPluginFile(const std::string& path);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PLUGIN_FILE_H_
