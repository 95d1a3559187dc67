// The step count that the transformer benchmarks (seam's and libtorch's) take as their one
// optional argument. Header-only: the libtorch program links no seam library.
#ifndef SEAM_BENCH_STEPS_ARGUMENT_H_
#define SEAM_BENCH_STEPS_ARGUMENT_H_

#include <cstdio>
#include <cstdlib>

namespace seam::bench {

// argv[1] as a step count from 1 to 1000000, or `fallback` without arguments. Anything else
// (a flag, a word, zero, a negative or too large a count, a second argument) is named on
// stderr with the usage line, and the process exits with status 2.
inline int StepsArgument(int argc, char** argv, int fallback) {
  if (argc == 1) return fallback;
  char* end = nullptr;
  const long steps = argc == 2 ? std::strtol(argv[1], &end, 10) : 0;
  if (argc > 2 || end == argv[1] || *end != '\0' || steps < 1 || steps > 1000000) {
    std::fprintf(stderr,
                 "%s: expected one optional argument, the number of timed steps (1 to 1000000), "
                 "got '%s'%s\nusage: %s [STEPS]   (default %d)\n",
                 argv[0], argv[1], argc > 2 ? " and more" : "", argv[0], fallback);
    std::exit(2);
  }
  return static_cast<int>(steps);
}

}  // namespace seam::bench

#endif  // SEAM_BENCH_STEPS_ARGUMENT_H_
