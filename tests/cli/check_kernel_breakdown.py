#!/usr/bin/env python3
"""check_kernel_breakdown.py EXAMPLE DATA_DIR WORK_DIR SCRIPT: kernel-breakdown.py --dump.

Trains the CNN example (examples/fashion_mnist_cnn) for three epochs of the tiny set with
SEAM_TRACE_TO and SEAM_DUMP_TO, runs SCRIPT (scripts/kernel-breakdown.py) on the trace with
--dump, and checks: the training program is matched to a dump; its products' total is the
step's floating-point work worked out here from the model's layers (not from the dump);
every product and convolution has a GFLOP/s rate and every loop a GB/s one. Exit status 0
when all hold.
"""
import os
import re
import shutil
import subprocess
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def step_flops(batch):
    """2 x multiply-adds of one training step of the model (model.cc): two 3x3 'same'
    convolutions (1 -> 32 channels at 28x28, 32 -> 64 at 14x14, each after a 2x2 pool),
    then linear layers 64*7*7 -> 128 -> 10. Forward, weight gradients, and input gradients
    for all but the first layer (its input is the data)."""
    conv1 = 2 * batch * 32 * 28 * 28 * (1 * 9)
    conv2 = 2 * batch * 64 * 14 * 14 * (32 * 9)
    fc1 = 2 * batch * 128 * (64 * 7 * 7)
    fc2 = 2 * batch * 10 * 128
    return 2 * conv1 + 3 * (conv2 + fc1 + fc2)


def main():
    example, data, work, script = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    trace, dump = os.path.join(work, "steps.json"), os.path.join(work, "dump")
    env = dict(os.environ, PJRT_DEVICE="CPU", SEAM_CPU_THREADS="1", SEAM_TRACE_TO=trace,
               SEAM_DUMP_TO=dump)
    run = subprocess.run([example, "--data", data, "--epochs", "3"], env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    if run.returncode != 0:
        fail("the example failed (%d):\n%s" % (run.returncode, run.stdout))
    out = subprocess.run([sys.executable, script, trace, "--skip", "1", "--top", "1000", "--dump",
                          dump], text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=120)
    if out.returncode != 0:
        fail("kernel-breakdown.py failed (%d):\n%s" % (out.returncode, out.stdout))
    programs = re.split(r"(?m)^(?=program \d+:)", out.stdout)
    expected = step_flops(64)
    for text in programs:
        total = re.search(r"^  products .* ([\d.]+) GFLOP, +([\d.]+) GFLOP/s$", text, re.M)
        if total is None or abs(float(total.group(1)) * 1e9 - expected) > 0.01e9:
            continue
        if "plan: " not in text or "no dump names" in text:
            fail("the training program was not matched to a dump:\n" + text)
        kernels = re.findall(r"^  ((?:fused loop|dot_general|dot update|transposed dot|"
                             r"convolution|\w+) #\d+) .*$", text, re.M)
        for line in text.splitlines():
            name = re.match(r"^  ([a-z_ ]+) #\d+ ", line)
            if not name:
                continue
            kind = name.group(1)
            unit = ("GFLOP/s" if kind in ("dot_general", "dot update", "transposed dot",
                                          "convolution") else "GB/s")
            if not re.search(r"\d " + re.escape(unit) + "$", line):
                fail("no %s rate on: %s" % (unit, line))
        if not any(k.startswith("convolution") for k in kernels):
            fail("no convolution listed:\n" + text)
        print("ok: the training step's products are %s GFLOP (expected %.3f), %d kernels with "
              "rates" % (total.group(1), expected / 1e9, len(kernels)))
        return
    fail("no program's products total %.2f GFLOP (the training step's):\n%s" %
         (expected / 1e9, out.stdout))


if __name__ == "__main__":
    main()
