#!/usr/bin/env bash
# run-clang-tidy.sh BUILD_DIR: clang-tidy 14 with the root .clang-tidy over every source file
# of src/, tools/ and examples/ that BUILD_DIR's compile_commands.json lists, two at a time
# (not src/testing: like tests/, it is test code; the file pattern is Python's, which has
# the lookahead).
# Exit 1 on any finding (each printed with its check's name). Run by ctest as `clang_tidy`.
#
# run-clang-tidy.sh --header-filter-for ROOT prints the header filter used for a checkout at
# ROOT. The filter is anchored at the checkout's own path (its characters escaped), so a
# checkout that lives under a folder named src/ does not count the C ABI header or system
# headers as the project's (tests/cli/tidy_header_filter_test.sh).
set -euo pipefail

# ROOT as an extended regular expression matching that literal text.
escape_regex() { printf '%s' "$1" | sed 's/[][\.^$*+?(){}|]/\\&/g'; }
header_filter_for() {
  local root
  root=$(escape_regex "$1")
  printf '^%s/((src|tools|examples)/|include/seam/[a-z_]+\\.h$)' "$root"
}
if [ "${1:-}" = "--header-filter-for" ]; then
  header_filter_for "${2:?usage: run-clang-tidy.sh --header-filter-for ROOT}"
  echo
  exit 0
fi

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: run-clang-tidy.sh BUILD_DIR}
runner=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
if [ -z "$runner" ]; then
  echo "run-clang-tidy.sh: run-clang-tidy-14 not found (Debian package clang-tidy-14)" >&2
  exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$runner" -p "$build" -j "${SEAM_TIDY_JOBS:-2}" -quiet \
  -header-filter="$(header_filter_for "$root")" \
  "^$(escape_regex "$root")/(src/(?!testing/)|tools/|examples/)" 2>&1 |
  sed 's/\x1b\[[0-9;]*m//g' >"$log" || status=$?
# Findings only: the runner also prints each command line and clang's warning counts.
if grep -E ': (warning|error): ' "$log"; then
  echo "clang-tidy: findings above (checks in .clang-tidy)"
  exit 1
fi
if [ $status -ne 0 ]; then
  cat "$log"
  exit $status
fi
echo "clang-tidy: $(grep -c '^clang-tidy' "$log") files, no finding"
