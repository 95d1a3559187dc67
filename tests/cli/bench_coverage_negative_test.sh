#!/bin/bash
# scripts/check-bench-coverage.py finds what it is for: the tree's own bench/ and
# BENCHMARKS.md pass; a copy whose run_benchmarks.sh no longer runs a quoted program, or whose
# CMakeLists.txt defines a program outside seam_benchmarks, fails naming it.
set -u
script="$1"
root="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bench"
cp "$root/BENCHMARKS.md" "$dir/"
cp "$root/bench/CMakeLists.txt" "$root"/bench/*.sh "$root"/bench/*.py "$dir/bench/"
if ! out=$(python3 "$script" "$dir"); then
  echo "FAIL: the tree's own benchmarks were refused: $out"; exit 1
fi
grep -q 'soak_bench' "$dir/bench/run_benchmarks.sh" || { echo "FAIL: fixture: run_benchmarks.sh runs no soak_bench"; exit 1; }
sed -i '/soak_bench/d' "$dir/bench/run_benchmarks.sh"
printf 'add_executable(orphan_bench orphan_bench.cc)\n' >> "$dir/bench/CMakeLists.txt"
if out=$(python3 "$script" "$dir"); then
  echo "FAIL: missing benchmarks passed: $out"; exit 1
fi
for want in 'BENCHMARKS.md quotes soak_bench, which bench/run_benchmarks.sh does not run' \
            'bench/CMakeLists.txt: orphan_bench is not part of seam_benchmarks'; do
  echo "$out" | grep -qF "$want" || { echo "FAIL: missing '$want' in: $out"; exit 1; }
done
echo "PASS"
