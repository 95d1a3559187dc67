#!/usr/bin/env bash
# check-format.sh [--fix]: every C and C++ file of the tree against .clang-format, with
# Debian 12's clang-format 14 (installed by install-deps.sh). Lists each file that differs
# and exits 1; with --fix, rewrites them instead. Run by ctest (test `format_check`).
set -euo pipefail
cd "$(dirname "$0")/.."

format=${CLANG_FORMAT:-clang-format-14}
command -v "$format" >/dev/null || format=clang-format
if ! "$format" --version | grep -q "version 14\."; then
  echo "check-format: needs clang-format 14 (other versions format differently); found: $("$format" --version)" >&2
  exit 2
fi

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cc' '*.h' '*.c')
else
  mapfile -t files < <(find bench examples include src tests tools -name '*.cc' -o -name '*.h' -o -name '*.c')
fi

if [ "${1:-}" = "--fix" ]; then
  "$format" -i "${files[@]}"
  exit 0
fi

# One clang-format process for the whole tree; it prints a warning per line that differs.
if ! out=$("$format" --dry-run -Werror "${files[@]}" 2>&1); then
  listed=$(echo "$out" | grep -E '^[^:]+:[0-9]+:[0-9]+: error: code should be clang-formatted' |
    cut -d: -f1 | sort -u)
  if [ -n "$listed" ]; then
    echo "$listed" | sed 's|$| is not formatted (scripts/check-format.sh --fix rewrites it)|'
  else
    echo "$out" | head -20  # clang-format itself failed
  fi
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
