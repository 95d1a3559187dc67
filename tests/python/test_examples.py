"""examples/python runs and learns (short runs: the default ten epochs of fashion_mnist.py
reach a test accuracy above 0.88 in about 30 s, too long for the suite), and its
--data-parallel run under `seam launch -n 2` keeps both ranks' parameters bit-identical."""

import os
import re
import subprocess
import sys

import pytest

SOURCE = os.environ.get("SEAM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("SEAM_BINARY_DIR", os.path.join(SOURCE, "build"))
DATA = "/usr/share/datasets/fashion-mnist"


def run_example(args, launcher=(), extra_env=None, timeout=240):
    if not os.path.exists(os.path.join(DATA, "t10k-labels-idx1-ubyte.gz")):
        pytest.skip(f"dataset-fashion-mnist is not installed ({DATA}): the example is skipped")
    env = dict(os.environ, PJRT_DEVICE="CPU", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    env.update(extra_env or {})
    cmd = list(launcher) + [sys.executable] + [os.path.join(SOURCE, "examples", "python", args[0])]
    out = subprocess.run(cmd + list(args[1:]), env=env, capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("args,least", [
    (["fashion_mnist.py", "--epochs", "1", "--steps", "150"], 0.7),
    (["fashion_mnist.py", "--epochs", "1", "--steps", "150", "--compile"], 0.7),
    (["cnn.py", "--epochs", "1", "--steps", "40"], 0.5),
])
def test_short_runs_learn(args, least):
    out = run_example(args)
    accuracy = float(re.search(r"test accuracy: ([0-9.]+)", out).group(1))
    assert accuracy > least, out
    if args[0] == "fashion_mnist.py":
        assert "Counter: MarkStep" in out


def test_data_parallel_under_seam_launch():
    seam_tool = os.path.join(BINARY, "tools", "seam")
    if not os.path.exists(seam_tool):
        pytest.skip(f"the seam command is not built ({seam_tool}): seam launch is skipped")
    out = run_example(["fashion_mnist.py", "--epochs", "1", "--steps", "20", "--data-parallel"],
                      launcher=[seam_tool, "launch", "-n", "2", "--"])
    digests = dict(re.findall(r"\[rank (\d)\] rank \d: parameter digests (\[.*\])", out))
    assert set(digests) == {"0", "1"}, out
    assert digests["0"] == digests["1"], digests
    losses = re.findall(r"\[rank (\d)\] epoch 1: mean loss ([0-9.]+)", out)
    assert len(losses) == 2 and losses[0][1] == losses[1][1], losses
