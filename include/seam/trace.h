// The step timeline: a Chrome-trace / Perfetto JSON file of what each step did.
//
//   seam::trace::start("steps.json");   // or run with SEAM_TRACE_TO=steps.json
//   ... train a few steps ...
//   seam::trace::stop();                // writes the file
//
// Open the file in ui.perfetto.dev or chrome://tracing. The framework's process shows,
// per host thread, each step (its recording and its barrier: graph capture, cache lookup,
// the four crossings TransferToDevice, Compile, ExecuteComputation / ExecuteReplicated,
// TransferFromDevice, and the host's waits) and, per device, each run's own time; a
// plugin with the profiler extension (the CPU plugin has it) adds a process of its own
// with its compile passes and its kernel runs per device thread. docs/tracing.md says what
// to look for. While no trace is on, the cost is one relaxed atomic load per span.
//
// SEAM_TRACE_TO=FILE starts a trace when the process's client is created and writes it at
// exit (or at stop()).
#ifndef SEAM_TRACE_H_
#define SEAM_TRACE_H_

#include <string>

namespace seam::trace {

// Starts recording a trace to be written to `path` by stop(). The file is created (or
// emptied) now. Throws seam::Error when it cannot be (the message names the path and the
// reason) or when a trace is being recorded already.
void start(const std::string& path);

// Stops recording, collects the plugins' events and writes the file. Throws seam::Error
// when no trace is being recorded or when the file cannot be written.
void stop();

// Whether a trace is being recorded.
bool active();

}  // namespace seam::trace

#endif  // SEAM_TRACE_H_
