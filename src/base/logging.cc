#include "src/base/logging.h"

#include <cstdio>
#include <mutex>

namespace seam::base {
namespace {

struct LogState {
  std::mutex mu;
  LogSink sink;
};

LogState& State() {
  static auto* state = new LogState();  // leaked: logging may happen during exit
  return *state;
}

char Letter(LogSeverity severity) {
  switch (severity) {
    case LogSeverity::kInfo:
      return 'I';
    case LogSeverity::kWarning:
      return 'W';
    case LogSeverity::kError:
      return 'E';
  }
  return '?';
}

}  // namespace

void Log(LogSeverity severity, const std::string& message) {
  std::lock_guard<std::mutex> lock(State().mu);
  if (State().sink) {
    State().sink(severity, message);
    return;
  }
  std::fprintf(stderr, "seam %c %s\n", Letter(severity), message.c_str());
}

void SetLogSink(LogSink sink) {
  std::lock_guard<std::mutex> lock(State().mu);
  State().sink = std::move(sink);
}

}  // namespace seam::base
