#!/usr/bin/env bash
# seam as a user gets it: `cmake --install` of this build into a fresh prefix (then moved,
# to prove the package is relocatable), a consumer project built against it with
# find_package(seam) only, its program run with PJRT_DEVICE=CPU (seam::seam) and through
# the installed libseam_pjrt_cpu.so loaded by path (seam::core), the same program built
# through pkg-config, the installed `seam` command, and every installed public header
# compiled alone with g++ 12 and clang 14, and a plugin built outside the tree: the null
# plugin's folder copied as a plugin author starts, built with find_package(seam) and
# seam_add_plugin() only, checked by the installed `seam plugin check`.
# Usage: package_test.sh <build dir> <c++ compiler of the build>
set -euo pipefail
build=$1
cxx=$2
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/seam-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cmake --install "$build" --prefix "$work/stage" >"$work/install.log" ||
  fail "cmake --install $build failed: $(cat "$work/install.log")"
mv "$work/stage" "$work/prefix"
prefix=$work/prefix
libdir=$(dirname "$(find "$prefix" -name libseam_pjrt_cpu.so -print -quit)")
[[ -d $libdir ]] || fail "no libseam_pjrt_cpu.so under $prefix"
for f in include/seam/tensor.h include/seam/c/pjrt_c_api.h bin/seam; do
  [[ -e $prefix/$f ]] || fail "$f is not installed"
done
if grep -rqF "$build" "$prefix" --include='*.cmake' --include='*.pc'; then
  fail "the installed package names the build directory $build"
fi

# The consumer project, configured against the installed prefix only.
cmake -S "$here/consumer" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
  fail "configuring the consumer failed: $(cat "$work/configure.log")"
cmake --build "$work/consumer" -j2 >"$work/build.log" 2>&1 ||
  fail "building the consumer failed: $(cat "$work/build.log")"

check_sum() {  # <label> <n> <output>
  local want=$((4 * $2 * ($2 + 1) / 2))
  [[ $3 == "sum $want" ]] || fail "$1 with n=$2: expected 'sum $want', got '$3'"
  echo "ok: $1 n=$2 sum $want"
}
for n in 1 300 999; do
  out=$(PJRT_DEVICE=CPU "$work/consumer/app" "$n") || fail "app $n failed"
  check_sum "seam::seam, PJRT_DEVICE=CPU" "$n" "$out"
done
if ldd "$work/consumer/app" | grep -F "$build"; then
  fail "the consumer's program loads a library from the build directory"
fi
out=$(PJRT_DEVICE=LIBRARY PJRT_DYNAMIC_PLUGINS=1 PJRT_LIBRARY_PATH="$libdir/libseam_pjrt_cpu.so" \
  "$work/consumer/core_app" 300) || fail "core_app through the installed plugin failed"
check_sum "seam::core, libseam_pjrt_cpu.so by path" 300 "$out"
if out=$(PJRT_DEVICE=CPU "$work/consumer/core_app" 3 2>&1); then
  fail "core_app (seam::core, no CPU plugin) ran with PJRT_DEVICE=CPU: $out"
fi
[[ $out == *"no in-process CPU plugin"* ]] ||
  fail "core_app with PJRT_DEVICE=CPU: expected the refusal that names the missing plugin, got: $out"
echo "ok: seam::core refuses PJRT_DEVICE=CPU"

# The same program through pkg-config.
export PKG_CONFIG_PATH=$libdir/pkgconfig
read -r -a flags <<<"$(pkg-config --cflags --libs seam)" || fail "pkg-config seam failed"
"$cxx" -std=c++20 -O1 "$here/consumer/main.cc" -o "$work/pc_app" "${flags[@]}" ||
  fail "building with pkg-config's flags (${flags[*]}) failed"
out=$(PJRT_DEVICE=CPU "$work/pc_app" 42) || fail "pc_app failed"
check_sum "pkg-config seam" 42 "$out"

# The installed command finds its libraries and the installed plugin passes the handshake.
out=$("$prefix/bin/seam" plugin inspect "$libdir/libseam_pjrt_cpu.so" 2>&1) ||
  fail "seam plugin inspect failed: $out"
[[ $out == *"handshake      accepted"* ]] || fail "seam plugin inspect: no accepted handshake: $out"
echo "ok: bin/seam plugin inspect"

# Every public header alone, against the installed include directory only.
count=0
while IFS= read -r header; do
  rel=${header#"$prefix/include/"}
  for compiler in g++-12 clang++-14; do
    echo "#include <$rel>" | "$compiler" -std=c++20 -fsyntax-only -Wall -Wextra -Werror \
      -I"$prefix/include" -x c++ - 2>"$work/header.log" ||
      fail "$rel alone does not compile with $compiler: $(cat "$work/header.log")"
  done
  count=$((count + 1))
done < <(find "$prefix/include" -path "$prefix/include/seam/internal" -prune -o -name '*.h' -print | sort)
[[ $count -ge 10 ]] || fail "only $count public headers installed"
for abi in seam/c/pjrt_c_api.h seam/c/pjrt_c_api_profiler.h; do
  gcc-12 -std=c99 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" \
    -x c - <<<"#include <$abi>" || fail "$abi is not C99"
done
echo "ok: $count public headers compile alone with g++-12 and clang++-14"

# A plugin outside the tree: the null plugin's folder copied into a project of its own, which
# knows seam only through find_package(seam) (seam::plugin_kit, seam_add_plugin()).
mkdir -p "$work/plugin_project"
cp -r "$here/../../src/plugins/null" "$work/plugin_project/my_device"
cat >"$work/plugin_project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(my_device_plugin LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(seam CONFIG REQUIRED)
enable_testing()
add_subdirectory(my_device)
CMAKE
cmake -S "$work/plugin_project" -B "$work/plugin_build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" >"$work/plugin_configure.log" 2>&1 ||
  fail "configuring the out-of-tree plugin failed: $(cat "$work/plugin_configure.log")"
cmake --build "$work/plugin_build" -j2 >"$work/plugin_build.log" 2>&1 ||
  fail "building the out-of-tree plugin failed: $(cat "$work/plugin_build.log")"
plugin=$(find "$work/plugin_build" -name 'libseam_pjrt_null.so' -print -quit)
[[ -n $plugin ]] || fail "the out-of-tree build made no libseam_pjrt_null.so"
(cd "$work/plugin_build" && ctest --output-on-failure >"$work/plugin_ctest.log" 2>&1) ||
  fail "the out-of-tree plugin's export check failed: $(cat "$work/plugin_ctest.log")"
grep -q "exports_only_GetPjrtApi.*Passed" "$work/plugin_ctest.log" ||
  fail "seam_add_plugin added no export check out of the tree: $(cat "$work/plugin_ctest.log")"
out=$("$prefix/bin/seam" plugin check "$plugin" 2>&1) ||
  fail "seam plugin check of the out-of-tree plugin failed: $out"
[[ $out =~ checks:\ [1-9][0-9]*\ pass,\ 0\ fail ]] ||
  fail "seam plugin check of the out-of-tree plugin: no passing summary: $out"
echo "ok: a plugin built outside the tree with find_package(seam) passes seam plugin check"
