#!/bin/bash
# scripts/check-doc-refs.py finds what it is for: a tree whose references all resolve passes,
# and each kind of dangling reference (a quoted section name in a comment wrapped over two
# lines, a section name in a Markdown file, an anchor link) fails, named.
# check-doc-refs: fixtures (the references below are written into a temporary tree)
set -u
script="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/docs" "$dir/src"
printf '# Title\n\n## Fixed cost: the tiny step\n\n- **Limits.** text\n' > "$dir/BENCHMARKS.md"
printf '// see BENCHMARKS.md, "Fixed cost:\n// the tiny step" and BENCHMARKS.md ("Limits")\n' > "$dir/src/a.cc"
printf 'See [3](../BENCHMARKS.md#fixed-cost-the-tiny-step).\n' > "$dir/docs/x.md"
if ! out=$(python3 "$script" "$dir"); then
  echo "FAIL: a tree whose references resolve was refused: $out"; exit 1
fi
echo "$out" | grep -q "3 section references, 0 dangling" || { echo "FAIL: counted wrong: $out"; exit 1; }
printf '// see BENCHMARKS.md, "Session 3:\n// fixed costs"\n' > "$dir/src/b.cc"
printf 'See BENCHMARKS.md, "Gone" and [4](../BENCHMARKS.md#gone-too).\n' >> "$dir/docs/x.md"
if out=$(python3 "$script" "$dir"); then
  echo "FAIL: dangling references passed: $out"; exit 1
fi
for want in 'src/b.cc: BENCHMARKS.md has no section "Session 3: fixed costs"' \
            'docs/x.md: BENCHMARKS.md has no section "Gone"' \
            'docs/x.md: link to #gone-too in BENCHMARKS.md: no such heading'; do
  echo "$out" | grep -qF "$want" || { echo "FAIL: missing '$want' in: $out"; exit 1; }
done
echo "PASS"
