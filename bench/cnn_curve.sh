#!/usr/bin/env bash
# bench/cnn_curve.sh BUILD_DIR [STEPS]: writes tests/e2e/data/fashion_cnn_curve.txt, the loss
# curve libtorch computes for the Fashion-MNIST CNN (bench/cnn_twin.cc) from the initial
# weights seam writes, which tests/e2e/fashion_cnn_curve_test.cc follows. Rerun it when the
# model, its initialisation or the optimizer changes (the test then says the initial
# weights differ). One thread everywhere, as the figures in the file's header say.
set -eu
build=${1:-build}
steps=${2:-200}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/tests/e2e/data/fashion_cnn_curve.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PJRT_DEVICE=CPU SEAM_CPU_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
twin=$(cd "$build" && pwd)/bench/cnn_twin
(cd "$work" && "$twin" write-init fashion_cnn_init.safetensors > /dev/null &&
  "$twin" curve --init fashion_cnn_init.safetensors --steps "$steps" > curve.txt)
{
  echo "# written by: bench/cnn_curve.sh BUILD_DIR $steps, i.e."
  echo "#   cnn_twin write-init fashion_cnn_init.safetensors"
  echo "#   cnn_twin curve --init fashion_cnn_init.safetensors --steps $steps"
  cat "$work/curve.txt"
} > "$out"
echo "wrote $out"
