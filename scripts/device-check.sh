#!/usr/bin/env bash
# device-check.sh [--quick] [BUNDLE.tar.xz] : the checks that need an NVIDIA GPU and JAX's
# CUDA PJRT plugin (issues 33 and 34), run in one call on a lent device machine.
#
# It runs in sections, each under its own timeout, and writes each section's output to
# $OUT (or ./device-check-out) as soon as the section ends, with one line per section in
# summary.txt, so a run that is cut short still reports what it did. --quick runs only the
# short sections (a second try with little time left).
#
# The machine has none of Debian's packages: the programs come from the bundle that
# `make device-bundle` packs (default build/device-bundle.tar.xz). When the host's glibc is
# older than the bundle's, every program runs through the bundled loader
# (SEAM_DEVICE_CHECK_LOADER=1 forces that, to try it on any machine).
#
# Sections, in value order:
#   environment  /etc/os-release, ldd --version, nvidia-smi, JAX's and its CUDA plugin's
#                versions and the plugin's path
#   probe        the CUDA plugin's PJRT version and PJRT_Api.struct_size (pjrt_probe)
#   inspect      seam plugin inspect <CUDA plugin>
#   check        seam plugin check <CUDA plugin> (the upstream contract rows)
#   add-one      one compile and execute of a fixed StableHLO module (add one to f32[4])
#                through the ABI (stablehlo_add_one)
#   ops          seam plugin check --ops --format stablehlo: every op case emitted as
#                StableHLO, compiled by XLA's GPU compiler and compared with the reference
#   losses       the MLP's first 100 steps through PJRT_DEVICE=CUDA beside the CPU plugin's
#                (bundled data/cpu-losses-mlp.txt): relative difference of each loss
#   mlp          examples/fashion_mnist, default run, PJRT_DEVICE=CUDA: test accuracy
#   cnn          examples/fashion_mnist_cnn, 200 steps, PJRT_DEVICE=CUDA
# A section whose program is not in the bundle is reported as "not built".
set -uo pipefail

quick=0
bundle=build/device-bundle.tar.xz
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    *) bundle=$arg ;;
  esac
done
out=${OUT:-$PWD/device-check-out}
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ! -f "$bundle" ]; then
  note "bundle: $bundle not found (make device-bundle makes it); nothing ran"
  exit 1
fi
tar -C "$work" -xJf "$bundle"
root="$work/device-bundle"

# Programs run with the bundle's libraries; through its loader when the host's glibc is
# older than the one the bundle was built against.
host_line=$(ldd --version 2>/dev/null | sed -n 1p)
host_glibc=$(echo "$host_line" | grep -oE '[0-9]+\.[0-9]+$')
bundle_glibc=$(grep -oE '[0-9]+\.[0-9]+$' "$root/glibc-version.txt")
host_glibc=${host_glibc:-0}
bundle_glibc=${bundle_glibc:-0}
use_loader=${SEAM_DEVICE_CHECK_LOADER:-0}  # 1 forces the bundled loader (to test it)
if [ "$(printf '%s\n%s\n' "$host_glibc" "$bundle_glibc" | sort -V | head -1)" != "$bundle_glibc" ]; then
  use_loader=1
fi
run() {  # run PROGRAM ARGS...
  local program="$root/bin/$1"
  shift
  if [ "$use_loader" = 1 ]; then
    "$root/lib/ld-linux-x86-64.so.2" --library-path "$root/lib" "$program" "$@"
  else
    LD_LIBRARY_PATH="$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$program" "$@"
  fi
}

# section NAME TIMEOUT_S COMMAND...: runs it, keeps its output, notes the outcome.
index=0
section() {
  local name=$1 limit=$2
  shift 2
  index=$((index + 1))
  local file
  file="$out/$(printf '%02d' "$index")-$name.txt"
  local begin=$SECONDS
  # Through bash, so that a section may be one of this script's functions (exported below).
  timeout --kill-after=10 "$limit" bash -c '"$@"' section "$@" >"$file" 2>&1
  local status=$?
  local took=$((SECONDS - begin))
  case $status in
    0) note "$name: ok (${took} s)" ;;
    124 | 137) note "$name: timed out after ${limit} s" ;;
    *) note "$name: failed with status $status (${took} s), see $(basename "$file")" ;;
  esac
}
have() { [ -x "$root/bin/$1" ] || { note "$2: not built (no $1 in the bundle)"; return 1; }; }

environment() {
  echo "== /etc/os-release"; cat /etc/os-release
  echo "== ldd --version"; ldd --version | head -1
  echo "== bundle glibc"; cat "$root/glibc-version.txt"
  echo "== through the bundled loader: $use_loader"
  echo "== nvidia-smi"; nvidia-smi || true
  echo "== python"; python3 - <<'PY'
import importlib, os, sys
print(sys.version)
for name in ("jax", "jaxlib"):
    try:
        print(name, importlib.import_module(name).__version__)
    except Exception as e:
        print(name, "not importable:", e)
try:
    from importlib import metadata
    for dist in metadata.distributions():
        n = dist.metadata["Name"] or ""
        if "cuda" in n and "jax" in n:
            print(n, dist.version)
except Exception as e:
    print("plugin version unknown:", e)
PY
  echo "== CUDA plugin"; echo "$plugin"
}

# JAX's CUDA plugin: where JAX would load it from.
plugin=$(python3 - <<'PY' 2>/dev/null
import glob, os, site, sys
roots = list(site.getsitepackages()) + [site.getusersitepackages()] + sys.path
for root in roots:
    for path in sorted(glob.glob(os.path.join(root, "jax_plugins", "xla_cuda*", "xla_cuda_plugin.so"))):
        print(path)
        raise SystemExit
PY
)
# The first 100 losses through the GPU against the CPU plugin's, loss by loss.
losses() {
  PJRT_DYNAMIC_PLUGINS=1 PJRT_DEVICE=CUDA run program_format_losses mlp 100 >"$work/gpu-losses.txt" || return 1
  python3 - "$root/data/cpu-losses-mlp.txt" "$work/gpu-losses.txt" <<'PY'
import struct, sys
def read(path):
    return [struct.unpack("<f", bytes.fromhex(line.strip())[::-1])[0]
            for line in open(path) if line.strip()]
cpu, gpu = read(sys.argv[1]), read(sys.argv[2])
worst = max(abs(c - g) / max(abs(c), 1e-30) for c, g in zip(cpu, gpu))
print(f"{len(gpu)} GPU losses, {len(cpu)} CPU losses; largest relative difference {worst:.3e}")
print("first 5 CPU:", cpu[:5]); print("first 5 GPU:", gpu[:5])
sys.exit(0 if len(cpu) == len(gpu) == 100 and worst <= 1e-4 else 1)
PY
}
export root use_loader plugin work
export -f run environment losses
note "bundle: $bundle (glibc $bundle_glibc; host $host_glibc; bundled loader: $use_loader)"
note "CUDA plugin: ${plugin:-not found}"

section environment 60 environment
if [ -z "$plugin" ]; then
  note "no JAX CUDA plugin found: the remaining sections need it"
  exit 1
fi
have pjrt_probe probe && section probe 60 run pjrt_probe "$plugin"
have seam inspect && section inspect 180 run seam plugin inspect "$plugin"
have stablehlo_add_one add-one && section add-one 240 run stablehlo_add_one "$plugin"
have program_format_losses losses && section losses 120 losses
export PJRT_DYNAMIC_PLUGINS=1
have fashion_mnist mlp && section mlp 240 env PJRT_DEVICE=CUDA bash -c 'run fashion_mnist --data "$root/data"'
if [ "$quick" = 0 ]; then
  have seam ops && section ops 300 run seam plugin check --ops --format stablehlo "$plugin"
  have fashion_mnist_cnn cnn && section cnn 180 env PJRT_DEVICE=CUDA bash -c 'run fashion_mnist_cnn --data "$root/data" --steps 200 --epochs 1'
  have seam check && section check 300 run seam plugin check "$plugin"
fi
note "done: results in $out"
