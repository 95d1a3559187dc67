#!/usr/bin/env bash
# device-bundle.sh BUILD_DIR [--data]: packs what the device check (scripts/device-check.sh)
# runs on a machine that has none of Debian's packages: the programs, every shared library
# `ldd` names for them (glibc and its loader included, for a host whose glibc is older than
# Debian 12's) and, with --data, the Fashion-MNIST files the training sections read (about
# 30 MiB, already compressed) and the CPU plugin's losses that the GPU's are compared with.
# Writes BUILD_DIR/device-bundle.tar.xz and prints its size; fails when it is larger than the
# 56 MiB the device check may carry (the device machine takes 64 MiB in all, the checkout's
# own files included). `make device-bundle` builds the programs first.
#
# The programs link the whole of seam, oneDNN and OpenBLAS included (about 22 MiB packed);
# with the data that is about 53 MiB.
set -euo pipefail
build=${1:?usage: device-bundle.sh BUILD_DIR [--data]}
with_data=0
[ "${2:-}" = "--data" ] && with_data=1
limit_mib=56
stage="$build/device-bundle"
rm -rf "$stage" "$build/device-bundle.tar.xz"
mkdir -p "$stage/bin" "$stage/lib" "$stage/data"

# The programs: each one that this build has (later sections need later programs).
programs=(
  "tests/device/pjrt_probe"
  "tests/device/stablehlo_add_one"
  "tools/seam"
  "examples/fashion_mnist"
  "examples/fashion_mnist_cnn"
  "tests/e2e/program_format_losses"
)
for program in "${programs[@]}"; do
  if [ -x "$build/$program" ]; then cp "$build/$program" "$stage/bin/"; fi
done
for plugin in "$build"/src/plugins/cpu/libseam_pjrt_cpu.so; do
  [ -f "$plugin" ] && cp "$plugin" "$stage/lib/"
done

# Every library the programs and the plugin need, resolved as on this machine.
for file in "$stage"/bin/* "$stage"/lib/*.so; do
  ldd "$file" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
done | sort -u | while read -r library; do
  cp -L "$library" "$stage/lib/"
done
# The loader under its own name, for running with a host whose glibc is older.
for loader in /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2; do
  if [ -f "$loader" ]; then cp -L "$loader" "$stage/lib/ld-linux-x86-64.so.2"; break; fi
done
ldd --version | head -1 >"$stage/glibc-version.txt"

# Fashion-MNIST (Debian's dataset-fashion-mnist), for the training sections.
data=/usr/share/datasets/fashion-mnist
if [ "$with_data" = 1 ] && [ -d "$data" ]; then cp "$data"/*-ubyte* "$stage/data/"; fi
# The CPU plugin's losses of the MLP's first 100 steps (full f32), for the GPU's to be
# compared with (device-check.sh, section losses).
if [ -x "$build/tests/e2e/program_format_losses" ]; then
  PJRT_DEVICE=CPU "$build/tests/e2e/program_format_losses" mlp 100 >"$stage/data/cpu-losses-mlp.txt"
fi

XZ_OPT=-T0 tar -C "$build" -cJf "$build/device-bundle.tar.xz" device-bundle
bytes=$(stat -c %s "$build/device-bundle.tar.xz")
mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "device bundle: $build/device-bundle.tar.xz, $mib MiB ($(ls "$stage/bin" | wc -l) programs," \
  "$(ls "$stage/lib" | wc -l) libraries, $(ls "$stage/data" | wc -l) data files)"
if [ "$bytes" -gt $((limit_mib * 1048576)) ]; then
  echo "device bundle: larger than $limit_mib MiB" >&2
  exit 1
fi
