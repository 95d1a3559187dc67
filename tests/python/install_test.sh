#!/usr/bin/env bash
# The Python package as a user installs it (docs/python.md): a fresh virtual environment
# that sees the system's NumPy, `cmake --install` of this build into it, then `import seam`
# from the environment's interpreter, with nothing of the build tree on the path or linked.
# Usage: install_test.sh <build dir> <python interpreter>
set -euo pipefail
build=$1
python=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/seam-python-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$python" -m venv --system-site-packages --without-pip "$work/env" ||
  fail "python3 -m venv failed (python3-venv installed?)"
cmake --install "$build" --prefix "$work/env" >"$work/install.log" ||
  fail "cmake --install failed: $(cat "$work/install.log")"
ext=$(find "$work/env" -name '_C*.so' -path '*site-packages/seam/*' -print -quit)
[[ -n $ext ]] || fail "no seam/_C*.so under $work/env's site-packages"
if ldd "$ext" | grep -F "$build"; then
  fail "the installed extension loads a library from the build directory"
fi
ldd "$ext" | grep -q "not found" && fail "the installed extension misses a library: $(ldd "$ext")"
out=$(cd "$work" && env -u PYTHONPATH -u PJRT_DEVICE "$work/env/bin/python" -c '
import seam, sys
assert seam.__file__.startswith(sys.prefix), (seam.__file__, sys.prefix)
print((seam.arange(4) * 2).tolist())
' 2>"$work/stderr") || fail "import from the venv failed: $(cat "$work/stderr")"
[[ $out == "[0, 2, 4, 6]" ]] || fail "expected [0, 2, 4, 6], got $out"
# The CPU plugin's warning where OpenBLAS runs generic kernels on this CPU is not the import's.
[[ $(grep -v '^seam W cpu plugin: OpenBLAS runs its generic ' "$work/stderr") == "Defaulting to PJRT_DEVICE=CPU" ]] ||
  fail "expected the one-line default-device warning on stderr, got: $(cat "$work/stderr")"
echo "ok: seam installed into a venv and imported from it ($ext)"
