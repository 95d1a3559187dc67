// `seam run <prog.txt>`: compile a program with the in-process CPU plugin, run it on seeded
// random inputs and summarize the outputs and the times.
#ifndef SEAM_TOOLS_RUN_COMMAND_H_
#define SEAM_TOOLS_RUN_COMMAND_H_

#include <cstdint>
#include <ostream>
#include <string>

namespace seam::tools {

struct RunOptions {
  std::string path;     // the program's IR text
  int64_t devices = 0;  // 0: the program's replica count
  int64_t repeat = 1;   // executions, >= 1
  uint64_t seed = 0;    // for the random inputs
};

// Prints, per output of replica 0 (and of every other replica when several run), its
// shape, min, max, mean and first values, then the compile time and the execute times
// (min and median over the repeats). Errors go to `err`; returns 1 then, else 0.
int RunProgram(const RunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace seam::tools

#endif  // SEAM_TOOLS_RUN_COMMAND_H_
