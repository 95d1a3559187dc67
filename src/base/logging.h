// Minimal logging: one line per message to stderr, or to a sink a test installs.
#ifndef SEAM_BASE_LOGGING_H_
#define SEAM_BASE_LOGGING_H_

#include <functional>
#include <string>

namespace seam::base {

enum class LogSeverity { kInfo, kWarning, kError };

// Writes "seam <I|W|E> <message>" and a newline to stderr (or hands the message to the sink).
void Log(LogSeverity severity, const std::string& message);

// Receives every message instead of stderr while set; pass nullptr to restore stderr.
using LogSink = std::function<void(LogSeverity, const std::string&)>;
void SetLogSink(LogSink sink);

}  // namespace seam::base

#endif  // SEAM_BASE_LOGGING_H_
