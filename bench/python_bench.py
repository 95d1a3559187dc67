#!/usr/bin/env python3
"""Issue 35's Python benchmarks: what the package `seam` costs on top of the C++ API.

Measures, in one interpreter, one thread everywhere, and prints a table with the issue's goals:
  - the tiny MLP training step (16-16-4, batch 4, SGD lr 0.01, cross entropy; a sync and a
    loss read per step) from Python, beside PyTorch eager in the same interpreter and beside
    the same step from C++ (bench/train_step_bench's BM_SeamMlpStep/0, run as a child);
  - the same step through `seam.compile` (beside BM_CompiledMlpStep/0);
  - the medium MLP step (784-512-512-10, batch 256; bench/mlp_shapes.h size 2) from Python
    beside BM_SeamMlpStep/2;
  - the cost of one op from Python: a 1,000-op elementwise chain recorded and synced, per op
    (the goal's figure), and beside it the same chain replayed by seam.compile (no recording),
    so the difference is what recording from Python costs.
Each figure is the best of --rounds rounds (the median is printed beside it). With --cpu-time
every figure is the process's CPU time instead of wall time (Python's time.process_time and
Google Benchmark's cpu_time, both process-wide): steadier on a machine shared with other work.

Usage (from the repository root, after building seam_python and train_step_bench):
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 SEAM_CPU_THREADS=1 PJRT_DEVICE=CPU \\
    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--build build] [--quick]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "SEAM_CPU_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("PJRT_DEVICE", "CPU")

import numpy as np  # noqa: E402

import seam  # noqa: E402
import seam.nn as snn  # noqa: E402
import seam.nn.functional as SF  # noqa: E402

TINY = ([16, 16, 4], 4)
MEDIUM = ([784, 512, 512, 10], 256)


def labels(count, classes):
    return np.array([(i * 7 + 3) % classes for i in range(count)], dtype=np.int32)


def mlp(module, sizes):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(module.Linear(sizes[i], sizes[i + 1]))
        if i + 2 < len(sizes):
            layers.append(module.ReLU())
    return module.Sequential(*layers)


CLOCK = time.perf_counter  # time.process_time with --cpu-time


def time_per_call(fn, seconds, warmup=3):
    """Seconds per call of fn, best and median of 5 slices of about seconds/5 each."""
    for _ in range(warmup):
        fn()
    t0 = CLOCK()
    fn()
    one = max(CLOCK() - t0, 1e-7)
    n = max(1, int(seconds / 5 / one))
    slices = []
    for _ in range(5):
        t0 = CLOCK()
        for _ in range(n):
            fn()
        slices.append((CLOCK() - t0) / n)
    return min(slices), statistics.median(slices)


def seam_step(shape):
    sizes, batch = shape
    seam.manual_seed(1)
    model = mlp(snn, sizes)
    opt = seam.optim.SGD(model.parameters(), lr=0.01)
    x = seam.randn(batch, sizes[0])
    y = seam.tensor(labels(batch, sizes[-1]))

    def step():
        loss = SF.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        seam.sync()
        return loss.item()

    return step


def seam_compiled_step(shape):
    sizes, batch = shape
    seam.manual_seed(1)
    model = mlp(snn, sizes)
    opt = seam.optim.SGD(model.parameters(), lr=0.01)
    x = seam.randn(batch, sizes[0])
    y = seam.tensor(labels(batch, sizes[-1]))

    @seam.compile
    def train(xb, yb):
        loss = SF.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    def step():
        return train(x, y).item()

    return step, train


def torch_step(shape):
    import torch

    torch.set_num_threads(1)
    sizes, batch = shape
    torch.manual_seed(1)
    model = mlp(torch.nn, sizes)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(batch, sizes[0])
    y = torch.from_numpy(labels(batch, sizes[-1]).astype(np.int64))

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def chain_cost(ops, seconds, scalar):
    """Seconds per op of recording an `ops`-long elementwise chain from Python and syncing it,
    and the same chain's sync alone (recorded once, then replayed by seam.compile)."""
    a = seam.randn(64)
    b = seam.randn(64)

    def record(x, y):
        t = x
        if scalar:
            for _ in range(ops):
                t = t * 0.5
        else:
            for _ in range(ops):
                t = t + y
        return t

    def recorded():
        out = record(a, b)
        seam.sync()
        return out

    compiled = seam.compile(record)

    def replayed():
        out = compiled(a, b)
        seam.sync()
        return out

    best, med = time_per_call(recorded, seconds)
    rbest, rmed = time_per_call(replayed, seconds)
    return best / ops, med / ops, rbest / ops, rmed / ops, compiled.replayed_calls


def cpp_steps(build, key="real_time"):
    """real_time (or cpu_time) per step (seconds) of the C++ twins, from
    bench/train_step_bench."""
    exe = os.path.join(build, "bench", "train_step_bench")
    if not os.access(exe, os.X_OK):
        return {}
    out = subprocess.run(
        [exe, "--benchmark_filter=BM_(Seam|Compiled)MlpStep/(0|2)/",
         "--benchmark_format=json", "--benchmark_repetitions=3", "--benchmark_min_time=0.3"],
        check=True, capture_output=True, text=True).stdout
    best = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"].split("/process_time")[0]
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        t = b[key] * scale
        best[name] = min(best.get(name, t), t)
    return best


def fmt(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.3f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--quick", action="store_true", help="short timings (a smoke run)")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--cpu-time", action="store_true",
                        help="process CPU time instead of wall time, for both languages")
    args = parser.parse_args()
    global CLOCK
    if args.cpu_time:
        CLOCK = time.process_time
    seconds = 0.2 if args.quick else 2.0
    rows = []

    tiny = time_per_call(seam_step(TINY), seconds)
    step, compiled = seam_compiled_step(TINY)
    tiny_c = time_per_call(step, seconds)
    if compiled.replayed_calls == 0:
        sys.exit("python_bench: the compiled tiny step never replayed")
    medium = time_per_call(seam_step(MEDIUM), seconds * 2, warmup=2)
    torch_tiny = None
    if not args.no_torch:
        try:
            torch_tiny = time_per_call(torch_step(TINY), seconds)
        except ImportError:
            print("python_bench: PyTorch not importable; no PyTorch column", file=sys.stderr)
    per_op = chain_cost(1000, seconds, scalar=False)
    per_op_s = chain_cost(1000, seconds, scalar=True)
    cpp = cpp_steps(args.build, "cpu_time" if args.cpu_time else "real_time")

    def row(what, value, other_name, other, goal, ok):
        rows.append((what, f"{fmt(value[0])} (median {fmt(value[1])})", other_name,
                     fmt(other) if other is not None else "–", goal,
                     "–" if ok is None else ("met" if ok else "NOT met")))

    row("tiny step, Python", tiny, "PyTorch eager", torch_tiny and torch_tiny[0],
        "≤ 0.5× PyTorch", None if torch_tiny is None else tiny[0] <= 0.5 * torch_tiny[0])
    c0 = cpp.get("BM_SeamMlpStep/0")
    row("tiny step, Python", tiny, "C++ BM_SeamMlpStep/0", c0, "≤ C++ + 12 µs",
        None if c0 is None else tiny[0] <= c0 + 12e-6)
    cc0 = cpp.get("BM_CompiledMlpStep/0")
    row("tiny step, seam.compile", tiny_c, "C++ BM_CompiledMlpStep/0", cc0, "≤ 10 µs",
        tiny_c[0] <= 10e-6)
    c2 = cpp.get("BM_SeamMlpStep/2")
    row("medium step, Python", medium, "C++ BM_SeamMlpStep/2", c2, "≤ 1.05× C++",
        None if c2 is None else medium[0] <= 1.05 * c2)
    row("per op, t + u (1,000-op chain + sync)", per_op[:2], "replayed chain, per op",
        per_op[2], "≤ 1 µs", per_op[0] <= 1e-6)
    row("per op, t * 0.5 (1,000-op chain + sync)", per_op_s[:2], "replayed chain, per op",
        per_op_s[2], "≤ 1 µs", per_op_s[0] <= 1e-6)

    print(f"python_bench: Python {sys.version.split()[0]}, numpy {np.__version__}, threads "
          f"OPENBLAS={os.environ['OPENBLAS_NUM_THREADS']} OMP={os.environ['OMP_NUM_THREADS']} "
          f"SEAM_CPU={os.environ['SEAM_CPU_THREADS']}, load {os.getloadavg()[0]:.2f}, "
          f"{'process CPU time' if args.cpu_time else 'wall time'}")
    print("| measured | seam from Python (best) | beside | its time (best) | goal | status |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if torch_tiny is not None:
        print(f"tiny step: Python / PyTorch eager = {tiny[0] / torch_tiny[0]:.3f}×")
    if c0 is not None:
        print(f"tiny step: Python − C++ = {(tiny[0] - c0) * 1e6:.2f} µs")
    if c2 is not None:
        print(f"medium step: Python / C++ = {medium[0] / c2:.3f}×")
    print(f"per op (recording, the replayed chain's run subtracted): t + u "
          f"{(per_op[0] - per_op[2]) * 1e6:.3f} µs, t * 0.5 {(per_op_s[0] - per_op_s[2]) * 1e6:.3f} µs")


if __name__ == "__main__":
    main()
