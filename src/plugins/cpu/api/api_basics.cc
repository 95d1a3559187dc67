// Plugin-level calls and the element-type mapping. Errors and events are the kit's
// (src/plugins/common).
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/abi/buffer_type.h"
#include "src/plugins/common/options.h"
#include "src/plugins/cpu/api/api_functions.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/api/objects.h"
#include "src/plugins/cpu/kernels/blas_core.h"
#include "src/plugins/cpu/kernels/dot_onednn.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/stablehlo/read.h"

namespace seam::cpu {

PJRT_Buffer_Type ToPjrtType(ir::DType dtype) { return abi::ToPjrtBufferType(dtype); }

absl::StatusOr<ir::DType> FromPjrtType(int type) {
  if (type >= PJRT_Buffer_Type_INVALID && type <= PJRT_Buffer_Type_U1) {
    if (std::optional<ir::DType> dtype =
            abi::FromPjrtBufferType(static_cast<PJRT_Buffer_Type>(type))) {
      return *dtype;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("element type ", type,
                   " is not supported by the cpu plugin "
                   "(supported: PRED = ",
                   PJRT_Buffer_Type_PRED, ", S32 = ", PJRT_Buffer_Type_S32,
                   ", S64 = ", PJRT_Buffer_Type_S64, ", F32 = ", PJRT_Buffer_Type_F32,
                   ", F64 = ", PJRT_Buffer_Type_F64, ", BF16 = ", PJRT_Buffer_Type_BF16, ")"));
}

PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* /*args*/) { return nullptr; }

namespace {

// The element types this plugin accepts, found by asking the conversion itself so that
// the list cannot drift from what BufferFromHostBuffer takes.
std::vector<int64_t> SupportedElementTypes() {
  std::vector<int64_t> types;
  for (int t = PJRT_Buffer_Type_PRED; t <= PJRT_Buffer_Type_BF16; ++t) {
    if (FromPjrtType(t).ok()) types.push_back(t);
  }
  return types;
}

// The attributes under one SEAM_CPU_GEMM choice (blas_note depends on it). Never
// destroyed: the table hands out pointers into them.
const plugin::Attributes* MakeAttributes(GemmLibrary choice) {
  auto* attributes = new plugin::Attributes();
  // seam_ir_version: this plugin reads seam's IR (format "seam-ir") of that version; the
  // framework sends it seam's IR instead of StableHLO (decision 5 of the migration).
  attributes->Int64(kSeamIrVersionAttribute, kSeamIrVersion)
      .String("seam_plugin_name", "cpu")
      .String("program_formats", "seam-ir,mlir")
      // StableHLO text of the reader's subset (src/stablehlo/read.h, docs/plugins.md).
      .Int64List("stablehlo_current_version",
                 std::vector<int64_t>(std::begin(stablehlo::kReaderCurrentVersion),
                                      std::end(stablehlo::kReaderCurrentVersion)))
      .Int64List("stablehlo_minimum_version",
                 std::vector<int64_t>(std::begin(stablehlo::kReaderMinimumVersion),
                                      std::end(stablehlo::kReaderMinimumVersion)))
      .Int64List("supported_element_types", SupportedElementTypes())
      .String("blas_core", ThisBlasCore().name)
      .Bool("blas_generic_kernels", ThisBlasCore().generic);
  if (std::string note = BlasCoreNote(choice); !note.empty()) {
    attributes->String("blas_note", std::move(note));
  }
  // Where bf16 products of at least kBf16OneDnnMinimumWork go (dot_onednn.h), and the
  // measured rate of the CPU's bf16 instruction against its f32 FMA that decides it (0:
  // no bf16 code in oneDNN here, not measured).
  const Bf16Hardware& bf16 = ThisBf16Hardware();
  attributes->String("dot_bf16", Bf16PathName(bf16, choice))
      .Float("dot_bf16_rate_over_fma", static_cast<float>(bf16.dot_over_fma));
  return attributes;
}

}  // namespace

// The OpenBLAS core and, when it runs generic kernels, the note of gemm.h, and where bf16
// products go: as chosen by the last PJRT_Client_Create (auto before any).
PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args) {
  static const plugin::Attributes* const by_choice[] = {MakeAttributes(GemmLibrary::kAuto),
                                                        MakeAttributes(GemmLibrary::kOpenBlas),
                                                        MakeAttributes(GemmLibrary::kOneDnn)};
  const plugin::Attributes* attributes = by_choice[static_cast<int>(GetGemmLibrary())];
  args->attributes = attributes->data();
  args->num_attributes = attributes->size();
  return nullptr;
}

}  // namespace seam::cpu
