# The emitter: seam's IR to StableHLO text (docs/stablehlo.md), for plugins that do not read
# seam's IR. Used by the runtime (PJRT client), the conformance suite and `seam`.
add_library(seam_stablehlo_emit STATIC
  ${CMAKE_CURRENT_LIST_DIR}/emit.cc
  ${CMAKE_CURRENT_LIST_DIR}/emit_data.cc
  ${CMAKE_CURRENT_LIST_DIR}/emit_dot.cc
  ${CMAKE_CURRENT_LIST_DIR}/emit_index.cc
  ${CMAKE_CURRENT_LIST_DIR}/emit_reduce.cc
  ${CMAKE_CURRENT_LIST_DIR}/emit_text.cc)
target_link_libraries(seam_stablehlo_emit PUBLIC seam_ir absl::status absl::statusor absl::strings)
seam_warnings(seam_stablehlo_emit)
