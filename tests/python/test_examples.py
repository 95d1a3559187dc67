"""examples/python/fashion_mnist.py runs and learns (a short run: the default ten epochs
reach a test accuracy above 0.88, in about 30 s, too long for the suite)."""

import os
import re
import subprocess
import sys

import pytest

SOURCE = os.environ.get("SEAM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = "/usr/share/datasets/fashion-mnist"


@pytest.mark.parametrize("extra", [[], ["--compile"]])
def test_fashion_mnist_short_run(extra):
    if not os.path.exists(os.path.join(DATA, "t10k-labels-idx1-ubyte.gz")):
        pytest.skip(f"dataset-fashion-mnist is not installed ({DATA}): the example is skipped")
    env = dict(os.environ, PJRT_DEVICE="CPU", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run(
        [sys.executable, os.path.join(SOURCE, "examples", "python", "fashion_mnist.py"),
         "--epochs", "1", "--steps", "150"] + extra,
        env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr
    accuracy = float(re.search(r"test accuracy: ([0-9.]+)", out.stdout).group(1))
    assert accuracy > 0.7, out.stdout
    assert "Counter: MarkStep" in out.stdout
