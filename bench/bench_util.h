// Helpers shared by the benchmarks: a CPU-plugin client and running one program on it.
#ifndef SEAM_BENCH_BENCH_UTIL_H_
#define SEAM_BENCH_BENCH_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "src/ir/shape.h"
#include "src/runtime/computation_client.h"

namespace seam::bench {

// A client on the in-process CPU plugin (one device); aborts the benchmark run if it cannot
// be built, since nothing can be measured then.
runtime::ComputationClient& Client();

// Compiles `text` (seam-ir) on Client().
runtime::ComputationClient::ComputationPtr CompileText(const std::string& text);

// Uploads host literals.
std::vector<runtime::ComputationClient::DataPtr> Upload(const std::vector<ir::Literal>& literals);

// Runs the computation and waits until its outputs are ready (the run, not the dispatch).
void RunAndWait(const runtime::ComputationClient::Computation& computation,
                const std::vector<runtime::ComputationClient::DataPtr>& arguments);

std::vector<float> RandomFloats(size_t count, unsigned seed);

}  // namespace seam::bench

#endif  // SEAM_BENCH_BENCH_UTIL_H_
