// What /proc/self/smaps says about the mapping holding an address: its VmFlags line (the
// CPU plugin's tests look for " hg", the huge-page advice). Linux only.
#ifndef SEAM_TESTS_UNIT_MAPPING_FLAGS_H_
#define SEAM_TESTS_UNIT_MAPPING_FLAGS_H_

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace seam::testing {

// The VmFlags line of the mapping holding `address` ("" if no mapping holds it).
inline std::string VmFlagsAt(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t start = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> start >> dash >> end && dash == '-') {
      inside = start <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

inline bool TransparentHugePagesExist() {
  return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
}

}  // namespace seam::testing

#endif  // SEAM_TESTS_UNIT_MAPPING_FLAGS_H_
