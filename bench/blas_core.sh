# Sourced by the bench scripts: picks the OpenBLAS core both sides of a comparison run on.
#   . bench/blas_core.sh; bench_blas_core COMMAND [ARGS...]
# BENCH_OPENBLAS_CORETYPE, when set, is the core. Otherwise an inherited OPENBLAS_CORETYPE is
# dropped and OpenBLAS's own detection is asked (COMMAND must load OpenBLAS and exit quickly,
# stdin closed): Debian 12's 0.3.21 answers `Prescott` (SSE3 kernels, about 5x
# slower) on some AVX-512 and AVX2 machines, and a peer must never run on those, so there the
# fitting core is forced (SkylakeX with AVX-512, Haswell with AVX2). The choice is exported
# in OPENBLAS_CORETYPE and in BENCH_OPENBLAS_CORETYPE (so that scripts run from this one keep
# it) and printed with the CPU's name.
bench_blas_core() {
  local core
  unset OPENBLAS_CORETYPE
  if [ -n "${BENCH_OPENBLAS_CORETYPE:-}" ]; then
    export OPENBLAS_CORETYPE=$BENCH_OPENBLAS_CORETYPE
  else
    core=$(OPENBLAS_VERBOSE=2 "$@" 2>&1 </dev/null | sed -n 's/^Core: //p' | head -1 || true)
    if [ "$core" = "Prescott" ] && grep -qw avx512f /proc/cpuinfo; then
      export OPENBLAS_CORETYPE=SkylakeX BENCH_OPENBLAS_CORETYPE=SkylakeX
    elif [ "$core" = "Prescott" ] && grep -qw avx2 /proc/cpuinfo; then
      export OPENBLAS_CORETYPE=Haswell BENCH_OPENBLAS_CORETYPE=Haswell
    fi
  fi
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc --all) cores;" \
    "OpenBLAS core: ${OPENBLAS_CORETYPE:-${core:-?} (detected)}"
}
