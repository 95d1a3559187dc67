#!/usr/bin/env python3
"""Issue 16's short run of examples/char_transformer against its libtorch twin's curve.

Runs the example from the stored initial weights (tests/e2e/data/char_transformer_init.safetensors)
with the settings the stored curve names (tests/e2e/data/char_transformer_curve.txt, written by
bench/char_transformer_twin.cc: the expected values come from libtorch, never from seam), and
checks every validation point:
  - step 0 (the initial weights, forward only): within 0.02% of libtorch's value;
  - later steps: within the tolerance the curve file's `# tolerance` line gives (relative).
The curve file's header says how it was made and why the tolerance is what it is.

usage: char_transformer_curve_test.py EXAMPLE CURVE_FILE INIT_WEIGHTS
"""
import os
import re
import subprocess
import sys

STEP0_TOLERANCE = 2e-4


def read_curve(path):
    args, tolerance, points = None, None, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("# example-args:"):
                args = line.split(":", 1)[1].split()
            elif line.startswith("# tolerance:"):
                tolerance = float(line.split(":", 1)[1].split()[0])
            elif line and not line.startswith("#"):
                step, bits = line.split()
                points[int(step)] = float(bits)
    if args is None or tolerance is None or not points:
        sys.exit(f"{path}: needs '# example-args:', '# tolerance:' and '<step> <bits>' lines")
    return args, tolerance, points


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    example, curve_path, weights = sys.argv[1:]
    args, tolerance, expected = read_curve(curve_path)
    # One thread (unless the caller says otherwise): the run is small, and a thread pool on a
    # shared CI machine only waits for its other half.
    env = dict(os.environ)
    for name, value in (("PJRT_DEVICE", "CPU"), ("SEAM_CPU_THREADS", "1"),
                        ("OPENBLAS_NUM_THREADS", "1"), ("OMP_NUM_THREADS", "1")):
        env.setdefault(name, value)
    command = [example, "--load-weights", weights] + args
    print("running:", " ".join(command), flush=True)
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        print(run.stdout)
        print(run.stderr)
        sys.exit(f"the example exited with {run.returncode}")
    print(run.stdout.split("Metric:")[0])  # the run without the metrics report
    got = {int(m.group(1)): float(m.group(2))
           for m in re.finditer(r"^step (\d+)  val ([0-9.]+) bits/char", run.stdout, re.M)}
    if sorted(got) != sorted(expected):
        sys.exit(f"validation steps differ: seam {sorted(got)}, libtorch {sorted(expected)}")
    failures = []
    print(f"{'step':>6} {'seam':>9} {'libtorch':>9} {'rel.diff':>9}  allowed")
    for step in sorted(expected):
        allowed = STEP0_TOLERANCE if step == 0 else tolerance
        diff = abs(got[step] - expected[step]) / expected[step]
        print(f"{step:>6} {got[step]:>9.4f} {expected[step]:>9.4f} {diff:>9.5f}  {allowed}")
        if diff > allowed:
            failures.append(step)
    if failures:
        sys.exit(f"seam's validation loss leaves libtorch's curve at steps {failures}")
    print("the loss curve follows libtorch's")


if __name__ == "__main__":
    main()
