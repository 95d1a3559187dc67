#!/usr/bin/env bash
# The transformer block training step (issue 16) in seam and in libtorch, back to back, on
# the same thread count (default 1, the figure that counts):
#   bench/transformer_bench.sh [BUILD_DIR] [THREADS] [STEPS]
# Pins SEAM_CPU_THREADS, OMP_NUM_THREADS and OPENBLAS_NUM_THREADS. Both programs print the
# OpenBLAS core they run on: the one bench/blas_core.sh picks (OpenBLAS's own detection,
# which Debian 12's 0.3.21 gets right on Zen 4 and Zen 5, "Cooperlake"; a fitting core where
# it answers "Prescott"; BENCH_OPENBLAS_CORETYPE to force one). A wrong core matters: a
# forced "Haswell" on Zen 4 makes libtorch, whose products all go to OpenBLAS, 1.6x slower.
set -euo pipefail
build=${1:-build}
threads=${2:-1}
steps=${3:-20}
export PJRT_DEVICE=${PJRT_DEVICE:-CPU}
export SEAM_CPU_THREADS=$threads OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads
. "$(dirname "$0")/blas_core.sh"
bench_blas_core "$build/bench/transformer_step_bench" --help
seam_out=$("$build/bench/transformer_step_bench" "$steps")
echo "$seam_out"
if [ -x "$build/bench/torch_transformer_bench" ]; then
  torch_out=$("$build/bench/torch_transformer_bench" "$steps")
  echo "$torch_out"
  for mode in lazy compiled; do
    # Fields: $4 median wall ms, $6 best wall ms, $8 median CPU ms (the process's threads).
    awk -v m="$mode" '$1 == "seam" && $2 == m { s4 = $4; s6 = $6; s8 = $8 }
      $1 == "torch" { t4 = $4; t6 = $6; t8 = $8 }
      END { printf "libtorch/seam %s: median %.2f, best %.2f, cpu %.2f (above 1: seam faster)\n",
                   m, t4 / s4, t6 / s6, t8 / s8 }' <<<"$seam_out
$torch_out"
  done
else
  echo "note: torch_transformer_bench is not built (cmake --build $build --target torch_transformer_bench)" >&2
fi
