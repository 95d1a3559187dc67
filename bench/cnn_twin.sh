#!/usr/bin/env bash
# bench/cnn_twin.sh BUILD_DIR [THREADS]: the Fashion-MNIST CNN's training step (batch 64,
# NCHW, Adam), seam beside libtorch in one process (bench/cnn_twin.cc), every pool pinned
# to THREADS (default 1, the figure that counts): SEAM_CPU_THREADS, OMP_NUM_THREADS,
# OPENBLAS_NUM_THREADS. OpenBLAS must know the CPU for a fair peer (issue 16): where it
# falls back to `Prescott` on an AVX-512 machine, OPENBLAS_CORETYPE=SkylakeX is set for the
# run (both sides use the same OpenBLAS; the core in use is printed). An OPENBLAS_CORETYPE
# inherited from the environment is dropped, so OpenBLAS runs the core it detects; to force
# one for both sides, set BENCH_OPENBLAS_CORETYPE.
set -eu
unset OPENBLAS_CORETYPE
if [ -n "${BENCH_OPENBLAS_CORETYPE:-}" ]; then
  export OPENBLAS_CORETYPE=$BENCH_OPENBLAS_CORETYPE
fi
build=${1:-build}
threads=${2:-1}
twin=$build/bench/cnn_twin
[ -x "$twin" ] || { echo "build it first: cmake --build $build --target cnn_twin" >&2; exit 1; }
export PJRT_DEVICE=CPU SEAM_CPU_THREADS=$threads OMP_NUM_THREADS=$threads \
  OPENBLAS_NUM_THREADS=$threads
core=$(OPENBLAS_VERBOSE=2 "$twin" 2>&1 </dev/null | sed -n 's/^Core: //p' | head -1 || true)
if [ -z "${OPENBLAS_CORETYPE:-}" ] && [ "$core" = "Prescott" ] && grep -q avx512f /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=SkylakeX
fi
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc --all) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$twin" step --rounds "${ROUNDS:-5}" --iters "${ITERS:-20}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
