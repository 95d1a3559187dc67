#!/usr/bin/env bash
# Runs the benchmarks of bench/ as `make bench` does and prints every table BENCHMARKS.md
# quotes (the training-step tables through report.py, the others as each program prints them).
# SEAM_BENCH_ALL=0 runs the training-step tables only.
#   bench/run_benchmarks.sh [BUILD_DIR] [OUT_DIR]
# Each training-step size runs seam, then libtorch, then the bare matrix products, back to
# back, on 1 and then 2 threads (OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = n), three
# repetitions each; report.py keeps the fastest repetition of each. OpenBLAS runs a core fit
# for the CPU (bench/blas_core.sh), printed first with the CPU's name.
set -euo pipefail

build=${1:-build}
out=${2:-$build/bench/results}
bin=$build/bench
mkdir -p "$out"
rm -f "$out"/*.json
export PJRT_DEVICE=${PJRT_DEVICE:-CPU}
# One OpenBLAS core for every program below, seam's and its peers' (bench/blas_core.sh).
. "$(dirname "$0")/blas_core.sh"
bench_blas_core "$bin/train_step_bench" --benchmark_filter=none
common=(--benchmark_repetitions=3 --benchmark_min_time=0.2 --benchmark_out_format=json)

for t in 1 2; do
  export OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t SEAM_CPU_THREADS=$t
  echo "== $t thread(s)"
  "$bin/train_step_bench" --benchmark_filter='BM_SgemmPeak' "${common[@]}" \
    --benchmark_out="$out/sgemm_t$t.json"
  for size in 0 1 2 3; do
    "$bin/train_step_bench" --benchmark_filter="BM_SeamMlpStep/$size/" "${common[@]}" \
      --benchmark_out="$out/seam_s${size}_t$t.json"
    if [ -x "$bin/torch_step_bench" ]; then
      "$bin/torch_step_bench" --benchmark_filter="BM_TorchMlpStep/$size/" "${common[@]}" \
        --benchmark_out="$out/torch_s${size}_t$t.json"
    fi
    "$bin/train_step_bench" --benchmark_filter="BM_GemmOnlyStep/$size/" "${common[@]}" \
      --benchmark_out="$out/gemm_s${size}_t$t.json"
  done
done

export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 SEAM_CPU_THREADS=1
echo "== front end (1 thread)"
"$bin/trace_bench" "${common[@]}" --benchmark_out="$out/trace_t1.json"
if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -d "$build/python/seam" ] && [ -x /usr/bin/python3 ]; then
  echo "== issue 35: the Python package beside PyTorch eager and C++ (1 thread)"
  PYTHONPATH="$build/python" /usr/bin/python3 "$(dirname "$0")/python_bench.py" --build "$build" \
    | tee "$out/python.md"
fi
if [ "${SEAM_BENCH_ALL:-1}" = 1 ]; then
  echo "== issue-5 benchmarks (1 thread)"
  for name in dot_bench elementwise_bench compile_bench; do
    "$bin/$name" --benchmark_min_time=0.3
  done
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/conv_bench" ]; then
  echo "== issue 16: convolutions beside oneDNN called directly (1 thread)"
  "$bin/conv_bench" --benchmark_min_time=0.5 --benchmark_out="$out/conv_t1.json"
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/cross_process_bench" ]; then
  echo "== cross-process all_reduce: the CPU plugin over Gloo beside plain Gloo (1 thread)"
  for p in 2 4; do
    "$bin/cross_process_bench" processes=$p | tee "$out/cross_process_p$p.md"
  done
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/data_parallel_bench" ]; then
  echo "== data parallel across processes and the coordinator's start-up (1 thread each)"
  bash "$(dirname "$0")/data_parallel_bench.sh" "$build" | tee "$out/data_parallel.md"
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/checkpoint_bench" ]; then
  echo "== checkpoints: save and load beside plain write and read, peak memory while loading"
  "$bin/checkpoint_bench" | tee "$out/checkpoint.txt"
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/remote_bench" ]; then
  echo "== issue 18: the remote client beside in process and a plain gRPC stream (1 thread)"
  "$bin/remote_bench" --benchmark_min_time=0.5 | tee "$out/remote.txt"
fi
if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/remote_bench" ] && [ -x /usr/bin/python3 ]; then
  echo "== pipelined remote executes, loopback and a relay with latency (BENCHMARKS.md)"
  "$(dirname "$0")/remote_pipeline_bench.sh" "$build" | tee "$out/remote_pipeline.txt"
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/cnn_twin" ]; then
  echo "== issue 16: the Fashion-MNIST CNN's training step, seam beside libtorch (1 thread)"
  "$(dirname "$0")/cnn_twin.sh" "$build" | tee "$out/cnn_twin.txt"
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/transformer_step_bench" ]; then
  echo "== the transformer block's training step, seam beside libtorch (1 thread)"
  bash "$(dirname "$0")/transformer_bench.sh" "$build" 1 20 | tee "$out/transformer.txt"
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$bin/char_transformer_twin" ]; then
  echo "== the character transformer's training step, seam beside its libtorch twin (1 thread)"
  bash "$(dirname "$0")/char_step_bench.sh" "$build" 43 3 | tee "$out/char_step.txt"
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ] && [ -x "$build/tools/seam" ]; then
  echo "== attention-sized products on the panel kernel and OpenBLAS; the GELU loop (1 thread)"
  bash "$(dirname "$0")/panel_bench.sh" "$build" 5 | tee "$out/panel.txt"
fi

if [ "${SEAM_BENCH_ALL:-1}" = 1 ]; then
  echo "== front end: eager ops, donation, the tiny step's parts (1 thread)"
  "$bin/frontend_bench" --benchmark_min_time=0.3 | tee "$out/frontend.txt"
  echo "== StableHLO: emitting and reading programs; the medium step from each format (1 thread)"
  "$bin/stablehlo_emit_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    | tee "$out/stablehlo.txt"
  for format in seam stablehlo; do
    echo "-- SEAM_PROGRAM_FORMAT=$format"
    SEAM_PROGRAM_FORMAT=$format "$bin/train_step_bench" --benchmark_filter='BM_SeamMlpStep/2/' \
      --benchmark_min_time=0.5 | tee -a "$out/stablehlo.txt"
  done
  echo "== bf16 products beside f32 (1 thread)"
  "$bin/bf16_dot_bench" --benchmark_min_time=0.3 | tee "$out/bf16.txt"
  if [ -x "$bin/blas_choice_bench" ]; then
    echo "== BLAS choice: OpenBLAS beside oneDNN per product size (1 thread)"
    "$bin/blas_choice_bench" --benchmark_min_time=0.2 | tee "$out/blas_choice.txt"
  fi
  echo "== soak: memory over 10,000 steps in every mode"
  "$bin/soak_bench" lazy compiled eager inline | tee "$out/soak.txt"
fi

if [ ! -x "$bin/torch_step_bench" ]; then
  echo "note: torch_step_bench was not built (libtorch-dev missing?): no libtorch column" >&2
fi
echo
python3 "$(dirname "$0")/report.py" "$out" | tee "$out/report.md"
