#!/bin/bash
# stablehlo_mlir_syntax.sh EMIT_TEST MLIR_OPT: every conformance case program as the
# emitter writes it (stablehlo_emit_test with SEAM_STABLEHLO_SEED_DIR), parsed by upstream
# MLIR's mlir-opt with unregistered dialects allowed. That checks MLIR's syntax: the generic
# op form, regions and block arguments, value names, builtin types and dense/array
# attributes; the stablehlo dialect's own attributes stay opaque and its verifiers do not
# run (mlir-opt has no stablehlo). The pretty `stablehlo.constant` needs the dialect, so it
# is rewritten to its generic form first. All programs go to one mlir-opt, split by
# `// -----` (--split-input-file).
set -euo pipefail
emit_test=$1
mlir_opt=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
SEAM_STABLEHLO_SEED_DIR="$dir/cases" "$emit_test" \
  --gtest_filter='*EveryConformanceCaseEmitsWithoutCustomCallOrSeamIr' >/dev/null
count=0
for file in "$dir"/cases/*.mlir; do
  [ "$count" -gt 0 ] && echo "// -----"
  echo "// $(basename "$file")"
  sed -E 's/^( *)(%[0-9]+) = stablehlo\.constant (dense<[^:]*>) : (tensor<[^>]*>)$/\1\2 = "stablehlo.constant"() {value = \3 : \4} : () -> \4/' "$file"
  count=$((count + 1))
done > "$dir/all.mlir"
[ "$count" -gt 500 ] || { echo "only $count programs" >&2; exit 1; }
if ! "$mlir_opt" --allow-unregistered-dialect --split-input-file "$dir/all.mlir" \
    >/dev/null 2>"$dir/error"; then
  echo "mlir-opt refuses an emitted program:" >&2
  head -c 3000 "$dir/error" >&2
  exit 1
fi
echo "mlir-opt parsed $count emitted programs"
