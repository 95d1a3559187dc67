#!/usr/bin/env bash
# bench/data_parallel_bench.sh BUILD_DIR: the data-parallel figures (BENCHMARKS.md, "Data
# parallel across processes"), every pool pinned to 1 thread per process (OpenBLAS, OpenMP,
# SEAM_CPU_THREADS, torch):
#   1. the medium MLP (784-512-512-10, SGD, global batch 256): 1 process, 2 processes
#      (`seam launch -n 2`), 2 processes with the bf16 gradient exchange, and 2 processes with
#      --no-reduce (the same step on each half without any all_reduce); the collective's
#      exposed time per step is (2-process step - the --no-reduce step) / 2-process step;
#      beside them PyTorch DDP over Gloo (bench/ddp_bench.py, 1 and 2 processes) when
#      /usr/bin/python3 has torch. ROUNDS rounds (default 3) run the cases in turn, so a
#      busy machine slows each case alike; medians are printed.
#   2. the coordinator: wall time from `seam launch` to the last rank's first step, with 2
#      and 8 processes.
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/bench/data_parallel_bench
seam=$build/tools/seam
steps=${STEPS:-200}
rounds=${ROUNDS:-3}
export PJRT_DEVICE=CPU OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 SEAM_CPU_THREADS=1
torch=0
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then torch=1; fi
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc --all) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
# The value of key $1 in stdin: the slower rank's (largest step_ms, smallest images_per_s).
slowest() { awk -v k="$1" '$1 == k { print $2 } $3 == k { print $4 }' | sort -n | { if [ "$1" = images_per_s ]; then head -1; else tail -1; fi; }; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A results
record() { results[$1]="${results[$1]:-} $2"; }
for round in $(seq "$rounds"); do
  out=$("$bench" --steps "$steps")
  record one_ips "$(echo "$out" | slowest images_per_s)"
  out=$("$seam" launch -n 2 -- "$bench" --steps "$steps" 2>/dev/null)
  record two_ips "$(echo "$out" | slowest images_per_s)"
  record two_ms "$(echo "$out" | slowest step_ms)"
  record two_bytes "$(echo "$out" | slowest bytes_sent_per_step)"
  record two_wait "$(echo "$out" | slowest exposed_ms_per_step)"
  out=$("$seam" launch -n 2 -- "$bench" --steps "$steps" --bf16 2>/dev/null)
  record bf16_ips "$(echo "$out" | slowest images_per_s)"
  record bf16_ms "$(echo "$out" | slowest step_ms)"
  record bf16_bytes "$(echo "$out" | slowest bytes_sent_per_step)"
  record bf16_wait "$(echo "$out" | slowest exposed_ms_per_step)"
  out=$("$seam" launch -n 2 -- "$bench" --steps "$steps" --no-reduce 2>/dev/null)
  record alone_ms "$(echo "$out" | slowest step_ms)"
  if [ "$torch" = 1 ]; then
    out=$(/usr/bin/python3 "$here/ddp_bench.py" --steps "$steps" 2>/dev/null)
    record ddp_one_ips "$(echo "$out" | slowest images_per_s)"
    out=$(/usr/bin/python3 "$here/ddp_bench.py" --processes 2 --steps "$steps" 2>/dev/null)
    record ddp_two_ips "$(echo "$out" | slowest images_per_s)"
  fi
done
m() { echo ${results[$1]} | tr ' ' '\n' | median; }
echo "medium MLP, global batch 256, 1 thread per process, median of $rounds rounds of $steps steps:"
echo "  seam 1 process:          $(m one_ips) images/s"
echo "  seam 2 processes:        $(m two_ips) images/s (slower rank), step $(m two_ms) ms, $(m two_bytes) bytes sent and $(m two_wait) ms waited for collectives per step"
echo "  seam 2 processes, bf16:  $(m bf16_ips) images/s, step $(m bf16_ms) ms, $(m bf16_bytes) bytes sent and $(m bf16_wait) ms waited per step"
echo "  seam 2 x --no-reduce:    step $(m alone_ms) ms"
awk -v a="$(m two_ips)" -v b="$(m one_ips)" -v s="$(m two_ms)" -v n="$(m alone_ms)" \
    -v h="$(m bf16_ms)" -v c="$(m bf16_ips)" 'BEGIN {
  printf "  seam ratio 2/1: %.2fx (bf16 %.2fx); exposed collective time per step: %.0f%% (bf16 %.0f%%)\n",
         a / b, c / b, 100 * (s - n) / s, 100 * (h - n) / h }'
if [ "$torch" = 1 ]; then
  awk -v a="$(m ddp_two_ips)" -v b="$(m ddp_one_ips)" -v s="$(m two_ips)" -v h="$(m bf16_ips)" 'BEGIN {
    printf "  PyTorch DDP (Gloo): 1 process %.1f, 2 processes %.1f images/s: ratio %.2fx\n", b, a, a / b
    printf "  seam 2 processes / DDP 2 processes: %.2fx (bf16 %.2fx)\n", s / a, h / a }'
else
  echo "  PyTorch DDP: /usr/bin/python3 has no torch (apt-get install python3-torch)"
fi
for n in 2 8; do
  start=$(date +%s%3N)
  out=$("$seam" launch -n "$n" -- "$bench" --steps 1 --warmup 1 2>/dev/null)
  last=$(echo "$out" | awk '$3 == "first_step_wall_ms" { print $4 }' | sort -n | tail -1)
  echo "launch to the first step of every rank, $n processes: $((last - start)) ms"
done
