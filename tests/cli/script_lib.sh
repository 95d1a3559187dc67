# Sourced by this folder's shell tests: a work folder `$work` removed when the test exits,
# and fail MESSAGE, which prints it and every *.log of the work folder, then exits 1.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*"
  cat "$work"/*.log 2>/dev/null
  exit 1
}
