#!/usr/bin/env bash
# The clang-tidy header filter is anchored at the checkout's own path: for a checkout under a
# folder named src/ (…/src/seam-checkout) it still takes the project's headers only, never
# the C ABI header or a header outside the checkout whose path contains /src/.
set -euo pipefail
script="$(cd "$(dirname "$0")/../.." && pwd)/scripts/run-clang-tidy.sh"
failures=0
check() {  # check ROOT PATH yes|no
  local filter
  filter=$(bash "$script" --header-filter-for "$1")
  if printf '%s\n' "$2" | grep -Eq -- "$filter"; then got=yes; else got=no; fi
  if [ "$got" != "$3" ]; then
    echo "FAIL: root $1, header $2: matched=$got, expected $3 (filter $filter)"
    failures=$((failures + 1))
  fi
}
for root in /home/u/src/seam-checkout /work/src/a+b.c /tmp/x; do
  check "$root" "$root/src/lazy/tensor_internal.h" yes
  check "$root" "$root/tools/process_group.h" yes
  check "$root" "$root/examples/char_transformer/model.h" yes
  check "$root" "$root/include/seam/tensor.h" yes
  check "$root" "$root/include/seam/c/pjrt_c_api.h" no
  check "$root" "/usr/include/absl/src/status.h" no
  check "$root" "$root-other/src/lazy/tensor.h" no
done
# The regex characters of a path are literal: "a+b.c" does not match "aab_c".
check /work/src/a+b.c "/work/src/aab_c/src/x.h" no
if [ "$failures" -ne 0 ]; then echo "$failures failed"; exit 1; fi
echo "tidy header filter: all cases passed"
