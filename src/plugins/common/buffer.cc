#include "src/plugins/common/buffer.h"

#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace seam::plugin {

const int64_t* DenseMinorToMajor(size_t rank) {
  static const auto* const kDescending = [] {
    auto* values = new std::array<int64_t, kMaxLayoutRank>();
    for (size_t k = 0; k < kMaxLayoutRank; ++k) {
      (*values)[k] = static_cast<int64_t>(kMaxLayoutRank - 1 - k);
    }
    return values;
  }();
  if (rank > kMaxLayoutRank) return nullptr;
  return kDescending->data() + (kMaxLayoutRank - rank);
}

bool IsDenseRowMajor(const PJRT_Buffer_MemoryLayout& layout, size_t rank) {
  if (RawEnumValue(layout.type) != PJRT_Buffer_MemoryLayout_Type_Tiled) return false;
  const PJRT_Buffer_MemoryLayout_Tiled& tiled = layout.tiled;
  bool dense = tiled.num_tiles == 0 && tiled.minor_to_major_size == rank &&
               (rank == 0 || tiled.minor_to_major != nullptr);
  for (size_t k = 0; dense && k < rank; ++k) {
    dense = tiled.minor_to_major[k] == static_cast<int64_t>(rank - 1 - k);
  }
  return dense;
}

PJRT_Error* DescribeDenseLayout(const char* function, size_t rank,
                                PJRT_Buffer_MemoryLayout& layout) {
  const int64_t* order = DenseMinorToMajor(rank);
  if (order == nullptr) {
    return MakeError(absl::UnimplementedError(
        absl::StrCat(function, ": rank ", rank, " is above ", kMaxLayoutRank)));
  }
  layout = PJRT_Buffer_MemoryLayout{};
  layout.struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
  layout.tiled.minor_to_major = order;
  layout.tiled.minor_to_major_size = rank;
  return nullptr;
}

}  // namespace seam::plugin
