#!/usr/bin/env bash
# bench/panel_bench.sh [BUILD_DIR] [ROUNDS]: attention-sized products (bench/programs/*.seam)
# on the CPU plugin's panel kernel (SEAM_CPU_GEMM=auto) and on OpenBLAS (SEAM_CPU_GEMM=
# openblas), the GELU loop with generated code on and off (SEAM_CPU_JIT), and a softmax's
# row maxima beside its row sums over the same 1M f32 (rows of 128), 1 thread, alternating
# in every round; prints each program's best time over the rounds (each round
# `seam run --repeat 100`, its own best). OpenBLAS runs the core bench/blas_core.sh picks
# (its real kernels, also where it detects `Prescott`; BENCH_OPENBLAS_CORETYPE forces one).
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
seam=$build/tools/seam
[ -x "$seam" ] || { echo "build it first: cmake --build $build --target seam_cli" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
. "$here/blas_core.sh"
bench_blas_core "$seam" --help
export PJRT_DEVICE=CPU SEAM_CPU_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Best times of program A under setting A and program B under setting B (settings are
# VARIABLE=value), run alternately in each round.
alternate() {  # setting A, program A, setting B, program B
  local a="" b="" t
  for _ in $(seq "$rounds"); do
    t=$(env "$1" "$seam" run --repeat 100 "$2" | sed -n 's/.*min \([0-9.]*\) ms.*/\1/p')
    a=$(awk -v x="$t" -v y="$a" 'BEGIN { print (y == "" || x < y) ? x : y }')
    t=$(env "$3" "$seam" run --repeat 100 "$4" | sed -n 's/.*min \([0-9.]*\) ms.*/\1/p')
    b=$(awk -v x="$t" -v y="$b" 'BEGIN { print (y == "" || x < y) ? x : y }')
  done
  echo "$a $b"
}
# One program under two settings.
pair() { alternate "$2" "$1" "$3" "$1"; }
for p in attention_scores_64 attention_scores_128 attention_pt_do_128 attention_pv_64 \
  linear_2048x128x128; do
  read -r a o <<<"$(pair "$here/programs/$p.seam" SEAM_CPU_GEMM=auto SEAM_CPU_GEMM=openblas)"
  awk -v p="$p" -v a="$a" -v o="$o" \
    'BEGIN { printf "%-22s auto %.3f ms  openblas %.3f ms  openblas/auto %.2f\n", p, a, o, o / a }'
done
read -r on off <<<"$(pair "$here/programs/gelu_2m.seam" SEAM_CPU_JIT=on SEAM_CPU_JIT=off)"
awk -v a="$on" -v o="$off" \
  'BEGIN { printf "%-22s jit on %.3f ms  off %.3f ms  off/on %.2f\n", "gelu_2m", a, o, o / a }'
read -r mx sm <<<"$(alternate SEAM_CPU_THREADS=1 "$here/programs/row_max_1m.seam" \
  SEAM_CPU_THREADS=1 "$here/programs/row_sum_1m.seam")"
awk -v a="$mx" -v o="$sm" \
  'BEGIN { printf "%-22s reduce_max %.3f ms  reduce_sum %.3f ms  max/sum %.2f\n", "rows_of_128_1m", a, o, a / o }'
