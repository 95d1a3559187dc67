#!/usr/bin/env bash
# bench/cnn_twin.sh BUILD_DIR [THREADS]: the Fashion-MNIST CNN's training step (batch 64,
# NCHW, Adam), seam beside libtorch in one process (bench/cnn_twin.cc), every pool pinned
# to THREADS (default 1, the figure that counts): SEAM_CPU_THREADS, OMP_NUM_THREADS,
# OPENBLAS_NUM_THREADS. OpenBLAS must know the CPU for a fair peer (issue 16): both sides
# run the core bench/blas_core.sh picks (printed; BENCH_OPENBLAS_CORETYPE forces one).
set -eu
. "$(dirname "$0")/blas_core.sh"
build=${1:-build}
threads=${2:-1}
twin=$build/bench/cnn_twin
[ -x "$twin" ] || { echo "build it first: cmake --build $build --target cnn_twin" >&2; exit 1; }
export PJRT_DEVICE=CPU SEAM_CPU_THREADS=$threads OMP_NUM_THREADS=$threads \
  OPENBLAS_NUM_THREADS=$threads
bench_blas_core "$twin"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$twin" step --rounds "${ROUNDS:-5}" --iters "${ITERS:-20}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
