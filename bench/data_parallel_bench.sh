#!/usr/bin/env bash
# bench/data_parallel_bench.sh BUILD_DIR: issue 15's data-parallel and start-up figures, in
# one run, every pool pinned to 1 thread per process (OpenBLAS, OpenMP, SEAM_CPU_THREADS):
#   1. the medium MLP (784-512-512-10, global batch 256): 1 process beside 2 processes
#      (`seam launch -n 2`), images/s; 2 processes with --no-reduce (the same step on each
#      process's half without the all_reduce) for the collective's share of the step;
#   2. the coordinator: wall time from `seam launch` to the last rank's first step, with 2
#      and 8 processes.
set -eu
build=${1:-build}
bench=$build/bench/data_parallel_bench
seam=$build/tools/seam
steps=${STEPS:-200}
export PJRT_DEVICE=CPU OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 SEAM_CPU_THREADS=1
field() { awk -v k="$1" '$1 == k || $3 == k { print $NF }' | sort -n | tail -1; }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc --all) cores"
one=$("$bench" --steps "$steps")
two=$("$seam" launch -n 2 -- "$bench" --steps "$steps")
alone=$("$seam" launch -n 2 -- "$bench" --steps "$steps" --no-reduce)
ips1=$(echo "$one" | field images_per_s)
ips2=$(echo "$two" | awk '$3 == "images_per_s" { print $4 }' | sort -n | head -1)
ms2=$(echo "$two" | awk '$3 == "step_ms" { print $4 }' | sort -n | tail -1)
ms_alone=$(echo "$alone" | awk '$3 == "step_ms" { print $4 }' | sort -n | tail -1)
echo "medium MLP, global batch 256, 1 thread per process:"
echo "  1 process:   $ips1 images/s"
echo "  2 processes: $ips2 images/s (slower rank), step $ms2 ms; without the all_reduce $ms_alone ms"
awk -v a="$ips2" -v b="$ips1" -v s="$ms2" -v n="$ms_alone" \
  'BEGIN { printf "  ratio 2/1: %.2fx; collective share of the step: %.0f%%\n", a / b, 100 * (s - n) / s }'
for n in 2 8; do
  start=$(date +%s%3N)
  out=$("$seam" launch -n "$n" -- "$bench" --steps 1 --warmup 1)
  last=$(echo "$out" | awk '$3 == "first_step_wall_ms" { print $4 }' | sort -n | tail -1)
  echo "launch to the first step of every rank, $n processes: $((last - start)) ms"
done
