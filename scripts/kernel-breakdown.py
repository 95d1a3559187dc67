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

With --dump DIR (the directory SEAM_DUMP_TO wrote during the same run, docs/ir.md "The
optimized dump"), each kernel also gets its work and rate at its best time: products and
convolutions their floating-point operations (2 per multiply-add) in GFLOP/s, loops and the
other kernels the bytes they read and write in memory in GB/s (a fused loop's inputs and
outputs, without the chunk-local outputs that never leave the cache; a dot update or an
interleaved loop is counted with its product's operations only). The products' total rate
follows their sums. A program is matched to the dump whose plan names every one of its
kernels.
"""
import glob
import math
import os
import re
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


DTYPE_BYTES = {"pred": 1, "s8": 1, "u8": 1, "bf16": 2, "f16": 2, "s16": 2, "f32": 4, "s32": 4,
               "u32": 4, "f64": 8, "s64": 8, "u64": 8}
VALUE = re.compile(r"^\s*(%\w+) = (\w+)\((.*) : (\w+)\[([\d,]*)\]$")
FUSION = re.compile(r"^# fusion\.(\d+) = \{[^}]*\} kind=\w+ elements=(\d+) inputs=\{([^}]*)\} "
                    r"outputs=\{([^}]*)\}(?:.*chunk_local=\{([^}]*)\})?")


def attribute(text, name):
    match = re.search(name + r"=\{([\d,]*)\}", text)
    return [int(x) for x in match.group(1).split(",") if x] if match else []


class Dump:
    """One optimized dump: its values' shapes, its loops, and its special steps."""

    def __init__(self, path):
        self.path = path
        self.values = {}  # %name -> (op, dtype, dims, operands and attributes text)
        self.loops = {}  # group -> (inputs, outputs that reach memory)
        self.product_of = {}  # a dot update's or transposed product's value -> its dot_general
        for line in open(path):
            match = VALUE.match(line)
            if match:
                name, op, rest, dtype, dims = match.groups()
                self.values[name] = (op, dtype, [int(d) for d in dims.split(",") if d], rest)
                continue
            match = FUSION.match(line)
            if match:
                group, _, inputs, outputs, local = match.groups()
                local = set((local or "").split())
                self.loops[int(group)] = (inputs.split(), [o for o in outputs.split()
                                                           if o not in local])
            if line.startswith("# steps:"):
                for value, dot in re.findall(r"(%\d+) \(dot update: [^)]*dot (%\d+)", line):
                    self.product_of[value] = dot
                for value, dot in re.findall(r"(%\d+) \(transpose of dot_general (%\d+)", line):
                    self.product_of[value] = dot

    def bytes_of(self, name):
        op, dtype, dims, _ = self.values[name]
        return math.prod(dims) * DTYPE_BYTES.get(dtype, 4)

    def flops(self, name):
        """2 x multiply-adds of a dot_general or convolution value, else None."""
        name = self.product_of.get(name, name)
        op, _, dims, rest = self.values[name]
        operands = re.findall(r"%\w+", rest.split(")")[0])
        if op == "dot_general":
            lhs = self.values[operands[0]][2]
            return 2 * math.prod(dims) * math.prod(lhs[d] for d in attribute(rest, "lhs_contracting"))
        if op == "convolution":
            rhs = self.values[operands[1]][2]
            features = rhs[attribute(rest, "kernel_output_feature_dim")[0]]
            return 2 * math.prod(dims) * (math.prod(rhs) // features if features else 0)
        return None

    def work(self, kernel):
        """(amount, unit) of a kernel label such as `fused loop #5` or `dot update #95`."""
        label, _, index = kernel.rpartition(" #")
        if label == "fused loop":
            inputs, outputs = self.loops[int(index)]
            return sum(self.bytes_of(v) for v in inputs + outputs), "B"
        name = "%" + index
        flops = self.flops(name)
        if flops is not None:
            return flops, "FLOP"
        operands = re.findall(r"%\w+", self.values[name][3].split(")")[0])
        return self.bytes_of(name) + sum(self.bytes_of(o) for o in operands
                                         if o in self.values), "B"

    def names(self, kernel):
        label, _, index = kernel.rpartition(" #")
        if not index.isdigit():
            return False
        if label == "fused loop":
            return int(index) in self.loops
        name = "%" + index
        if label in ("dot update", "transposed dot"):
            return name in self.product_of
        return name in self.values and self.values[name][0] == label


def load_dumps(directory):
    dumps = [Dump(p) for p in sorted(glob.glob(os.path.join(directory, "*.optimized.txt")))]
    if not dumps:
        sys.exit(f"{directory}: no *.optimized.txt (was it SEAM_DUMP_TO of the same run?)")
    return dumps


def rate(work, best_ms):
    amount, unit = work
    if best_ms <= 0:
        return "-"
    per_second = amount / (best_ms / 1000) / 1e9
    return f"{per_second:7.1f} G{unit}/s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--skip", type=int, default=3, help="first runs of each program to drop")
    parser.add_argument("--top", type=int, default=25, help="kernels to list per program")
    parser.add_argument("--dump", help="SEAM_DUMP_TO's directory of the same run: work and rates")
    args = parser.parse_args()
    dumps = load_dumps(args.dump) if args.dump else []
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
        dump = next((d for d in dumps if all(d.names(n) for n in medians)), None)
        if dumps:
            print(f"  plan: {dump.path if dump else 'no dump names every kernel'}")
        print(f"  {'kernel':32s} {'median ms':>10s} {'best ms':>9s} {'share':>6s}"
              + ("  rate at best" if dump else ""))
        for name, ms in sorted(medians.items(), key=lambda x: -x[1])[:args.top]:
            at = f"  {rate(dump.work(name), min(times[name]))}" if dump else ""
            print(f"  {name:32s} {ms:10.2f} {min(times[name]):9.2f} {100 * ms / total:5.1f}%{at}")
        by_kind = collections.defaultdict(lambda: [0.0, 0.0, 0])
        for name, ms in medians.items():
            entry = by_kind[kind_of(name)]
            entry[0] += ms
            entry[1] += min(times[name])
            entry[2] += 1
        for kind in ("products", "loops", "other"):
            ms, best, count = by_kind[kind]
            line = (f"  {kind:9s} {count:4d} kernels  median sum {ms:8.2f} ms "
                    f"({100 * ms / total:4.1f}%)  best sum {best:8.2f} ms")
            if dump and kind == "products" and count:
                flops = sum(dump.work(n)[0] for n in medians if kind_of(n) == kind)
                line += f"  {flops / 1e9:.2f} GFLOP, {rate((flops, 'FLOP'), best).strip()}"
            print(line)


if __name__ == "__main__":
    main()
