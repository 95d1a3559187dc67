# The StableHLO reader (docs/stablehlo.md): StableHLO text to seam's IR, for the CPU
# plugin's program format "mlir" and `seam run file.mlir`.
add_library(seam_stablehlo_read STATIC
  read_lexer.cc
  read_parser.cc
  read_attrs.cc
  read_pretty.cc
  read_constant.cc
  read_bodies.cc
  read_convert.cc
  read_convert_ops.cc
  read_convert_index.cc)
target_link_libraries(seam_stablehlo_read PUBLIC seam_ir absl::flat_hash_map absl::status absl::statusor absl::strings
                      absl::str_format)
seam_warnings(seam_stablehlo_read)
