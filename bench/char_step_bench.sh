#!/usr/bin/env bash
# bench/char_step_bench.sh BUILD_DIR [STEPS] [ROUNDS]: the character transformer's training
# step (examples/char_transformer, default model) beside its libtorch twin
# (bench/char_transformer_twin.cc), both from the same initial weights, 1 thread (every pool
# pinned: SEAM_CPU_THREADS, OMP_NUM_THREADS, OPENBLAS_NUM_THREADS; the twin `--threads 1`).
# Each round runs seam then the twin for STEPS steps (default 43) without sampling and
# prints both programs' "after the first 3 steps" line (wall and process CPU time per step)
# and the ratio twin/seam of the CPU figure. Both run the OpenBLAS core bench/blas_core.sh
# picks (BENCH_OPENBLAS_CORETYPE forces one).
set -euo pipefail
build=${1:-build}
steps=${2:-43}
rounds=${3:-3}
seam_bin=$build/examples/char_transformer
twin=$build/bench/char_transformer_twin
for b in "$seam_bin" "$twin"; do
  [ -x "$b" ] || { echo "build it first: cmake --build $build --target $(basename "$b")" >&2; exit 1; }
done
. "$(dirname "$0")/blas_core.sh"
bench_blas_core "$twin" --help
export PJRT_DEVICE=CPU SEAM_CPU_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$seam_bin" --init-weights "$work/init.safetensors" --steps 1 --eval-every 1 --val-windows 1 \
  --sample-length 0 >/dev/null
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
common=(--load-weights "$work/init.safetensors" --steps "$steps" --eval-every "$steps" --val-windows 8)
cpu_of() { sed -n 's/.*ms\/step, \([0-9.]*\) ms\/step of process CPU time$/\1/p' | tail -1; }
for r in $(seq 1 "$rounds"); do
  s=$("$seam_bin" "${common[@]}" --sample-length 0 | grep 'after the first')
  t=$("$twin" "${common[@]}" --threads 1 | grep 'after the first')
  sc=$(echo "$s" | cpu_of)
  tc=$(echo "$t" | cpu_of)
  echo "round $r  seam: $s"
  echo "round $r  twin: $t"
  awk -v s="$sc" -v t="$tc" -v r="$r" 'BEGIN { if (s > 0) printf "round %d  libtorch/seam CPU per step: %.2fx\n", r, t / s }'
done
