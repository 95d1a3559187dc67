// The all_reduce cases of the multi-process tests: the program text, each replica's
// input, and the host's computation of what every replica must receive, in the order
// docs/plugins.md documents ("Multi-process collectives", "Reduction order").
#ifndef SEAM_TESTING_REDUCTION_CASES_H_
#define SEAM_TESTING_REDUCTION_CASES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "src/ir/dtype.h"

namespace seam::testing {

enum class GroupLayout {
  kAll,       // one group: 0, 1, ..., N-1
  kReversed,  // one group: N-1, ..., 0
  kPairs,     // {i, i + N/2}: every group crosses processes
  kLocal,     // each process's own replicas: no group crosses processes
};

struct ReductionCase {
  std::string op;  // "sum", "max", "min"
  ir::DType dtype = ir::DType::kF32;
  GroupLayout layout = GroupLayout::kAll;
  int64_t processes = 1, devices = 1;  // replicas = processes * devices
  int64_t elements = 1;
  bool random = false;  // random values (floats: within a bound) or small integers (exact)
  int round = 0;        // varies the values

  int64_t replicas() const { return processes * devices; }
  std::string Name() const;
  std::string ProgramText() const;
  PJRT_Buffer_Type BufferType() const;
  std::vector<int64_t> Groups() const;  // the replica_groups attribute
  int64_t GroupSize() const;

  // Replica r's input, as the dtype's bytes.
  std::vector<uint8_t> Input(int64_t replica) const;
  // Checks what `replica` received against the host's reduction; empty when it matches
  // (bit for bit, or within the documented bound for random float sums over more than two
  // processes), else a description of the first mismatch.
  std::string Check(int64_t replica, const std::vector<uint8_t>& got) const;
};

std::string LayoutName(GroupLayout layout);

}  // namespace seam::testing

#endif  // SEAM_TESTING_REDUCTION_CASES_H_
