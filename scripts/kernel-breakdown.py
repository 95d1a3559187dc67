#!/usr/bin/env python3
"""Where a compiled program's run goes, kernel by kernel, from a step timeline.

  SEAM_TRACE_TO=steps.json build/bench/transformer_step_bench 20
  python3 scripts/kernel-breakdown.py steps.json [--skip 3] [--top 25]

The CPU plugin puts one span per kernel (category `kernel`: `dot_general #45`, `fused loop
#19`, `transpose #37`, ...) inside each `run` span (docs/tracing.md). Runs of the same
program have the same sequence of kernel names; this groups the runs by that sequence, drops
the first --skip runs of each program (the first run touches fresh memory), and prints per
program: the median run, then per kernel the median and the best time, with the share of
the sum of the medians; then the sums by kind (products: dot_general, dot update,
transposed dot and convolution, which include the loops interleaved with them, docs/cpu-plugin.md "Product
epilogues"; loops; the rest). Times are wall times of the kernel thread: on a loaded machine
read the best column too.
"""
import argparse
import collections
import json
import statistics
import sys


def kind_of(name):
    if name.startswith(("dot_general", "dot update", "transposed dot", "convolution")):
        return "products"
    if name.startswith("fused loop"):
        return "loops"
    return "other"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--skip", type=int, default=3, help="first runs of each program to drop")
    parser.add_argument("--top", type=int, default=25, help="kernels to list per program")
    args = parser.parse_args()
    with open(args.trace) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    spans = [e for e in events if e.get("ph") == "X"]
    runs = sorted((e for e in spans if e.get("cat") == "run"), key=lambda e: e["ts"])
    kernels = sorted((e for e in spans if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    if not runs:
        sys.exit(f"{args.trace}: no `run` spans (was the trace taken with the CPU plugin?)")
    programs = collections.OrderedDict()  # kernel-name sequence -> list of runs
    for run in runs:
        end = run["ts"] + run["dur"]
        inside = [k for k in kernels if k["pid"] == run["pid"] and k["tid"] == run["tid"]
                  and run["ts"] <= k["ts"] and k["ts"] + k["dur"] <= end]
        key = tuple(k["name"] for k in inside)
        programs.setdefault(key, []).append((run, inside))
    for number, (names, program_runs) in enumerate(programs.items()):
        kept = program_runs[args.skip:] or program_runs
        times = collections.defaultdict(list)
        for _, inside in kept:
            for k in inside:
                times[k["name"]].append(k["dur"] / 1000)
        medians = {n: statistics.median(v) for n, v in times.items()}
        total = sum(medians.values()) or 1.0
        run_ms = statistics.median(r["dur"] / 1000 for r, _ in kept)
        print(f"program {number}: {len(names)} kernels, {len(program_runs)} runs "
              f"({len(kept)} kept), median run {run_ms:.2f} ms, sum of kernel medians "
              f"{total:.2f} ms")
        print(f"  {'kernel':32s} {'median ms':>10s} {'best ms':>9s} {'share':>6s}")
        for name, ms in sorted(medians.items(), key=lambda x: -x[1])[:args.top]:
            print(f"  {name:32s} {ms:10.2f} {min(times[name]):9.2f} {100 * ms / total:5.1f}%")
        by_kind = collections.defaultdict(lambda: [0.0, 0.0, 0])
        for name, ms in medians.items():
            entry = by_kind[kind_of(name)]
            entry[0] += ms
            entry[1] += min(times[name])
            entry[2] += 1
        for kind in ("products", "loops", "other"):
            ms, best, count = by_kind[kind]
            print(f"  {kind:9s} {count:4d} kernels  median sum {ms:8.2f} ms "
                  f"({100 * ms / total:4.1f}%)  best sum {best:8.2f} ms")


if __name__ == "__main__":
    main()
