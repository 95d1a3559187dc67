#!/usr/bin/env python3
"""Checks that `make bench` reproduces what BENCHMARKS.md quotes.

Two rules:
  1. every program bench/CMakeLists.txt defines with add_executable is part of the
     `seam_benchmarks` target (`set(seam_benchmarks ...)`, `list(APPEND seam_benchmarks ...)`
     or the `foreach(optional ...)` list of programs built only where their library is), so
     `make bench` builds it;
  2. every benchmark program or script BENCHMARKS.md names (a word ending in `_bench` or
     `_twin`, or `bench/NAME.sh` / `bench/NAME.py`) is run by bench/run_benchmarks.sh,
     directly or through a bench/ script it runs (followed transitively).
Exit status 1 with one line per miss. Usage: check-bench-coverage.py [ROOT] (default: the
tree this script is in).
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
PROGRAM = re.compile(r"\b([a-z][a-z0-9_]*_(?:bench|twin))\b")
SCRIPT = re.compile(r"\b([a-z][a-z0-9_]*\.(?:sh|py))\b")


def cmake_words(text, pattern):
    words = set()
    for match in re.finditer(pattern, text, re.S):
        words.update(re.findall(r"[A-Za-z0-9_]+", match.group(1)))
    return words


def built_programs(bench):
    text = re.sub(r"#[^\n]*", "", (bench / "CMakeLists.txt").read_text())
    defined = set(re.findall(r"add_executable\(\s*([A-Za-z0-9_]+)", text))
    listed = cmake_words(text, r"set\(\s*seam_benchmarks\b([^)]*)\)")
    listed |= cmake_words(text, r"list\(\s*APPEND\s+seam_benchmarks\b([^)]*)\)")
    listed |= cmake_words(text, r"foreach\(\s*optional\b([^)]*)\)")
    return defined, listed


def run_closure(bench):
    """The programs and scripts run_benchmarks.sh runs, following bench/ scripts it runs."""
    seen_scripts, programs, todo = set(), set(), ["run_benchmarks.sh"]
    while todo:
        name = todo.pop()
        if name in seen_scripts or not (bench / name).is_file():
            continue
        seen_scripts.add(name)
        code = "\n".join(line for line in (bench / name).read_text().splitlines()
                         if not line.lstrip().startswith("#"))
        programs.update(PROGRAM.findall(code))
        todo.extend(SCRIPT.findall(code))
    return seen_scripts, programs


def main():
    bench = ROOT / "bench"
    problems = []
    defined, listed = built_programs(bench)
    for name in sorted(defined - listed):
        problems.append(f"bench/CMakeLists.txt: {name} is not part of seam_benchmarks (make bench does not build it)")
    scripts, programs = run_closure(bench)
    quoted = (ROOT / "BENCHMARKS.md").read_text()
    # The changelog at the end is history: commands there need not be reproducible.
    quoted = quoted.split("\n## Changelog", 1)[0]
    named_programs = {p for p in PROGRAM.findall(quoted) if p in defined}
    named_scripts = {s for s in SCRIPT.findall(quoted) if (bench / s).is_file()}
    for name in sorted(named_programs - programs):
        problems.append(f"BENCHMARKS.md quotes {name}, which bench/run_benchmarks.sh does not run")
    for name in sorted(named_scripts - scripts):
        problems.append(f"BENCHMARKS.md quotes bench/{name}, which bench/run_benchmarks.sh does not run")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"check-bench-coverage: {len(defined)} programs built by make bench; "
          f"{len(named_programs)} programs and {len(named_scripts)} scripts quoted, all run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
