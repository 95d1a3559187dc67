"""seam.DataParallel from Python (CPU_NUM_DEVICES=2 in a child process, the client being the
process's): gradients averaged over the replicas inside the step, replicas' parameters
bit-identical, and the result that of full-batch training."""

import os
import subprocess
import sys

CHILD = r"""
import numpy as np
import seam, seam.nn as nn, seam.nn.functional as F

rng = np.random.default_rng(0)
X = rng.standard_normal((8, 4)).astype(np.float32)
Y = rng.integers(0, 3, 8).astype(np.int32)

def train(dp):
    seam.manual_seed(3)
    model = nn.Linear(4, 3)
    opt = seam.optim.SGD(model.parameters(), lr=0.5, momentum=0.5)
    for _ in range(4):
        opt.zero_grad()
        x = dp.shard(X) if dp else seam.tensor(X)
        y = dp.shard(Y) if dp else seam.tensor(Y)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if dp:
            seam.optimizer_step(opt, dp)
        else:
            opt.step()
        seam.sync()
    return model

dp = seam.DataParallel()
assert (dp.replicas, dp.local_replicas) == (2, 2), (dp.replicas, dp.local_replicas)
model = train(dp)
w = dp.gather(model.weight)
b = dp.gather(model.bias)
assert len(w) == 2 and w[0].shape == (3, 4)
assert np.array_equal(w[0], w[1]) and np.array_equal(b[0], b[1])
ref = train(None)
np.testing.assert_allclose(w[0], ref.weight.numpy(), rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(b[0], ref.bias.numpy(), rtol=1e-5, atol=1e-6)
total = seam.all_reduce(dp.shard(np.arange(4, dtype=np.float32)), seam.ReduceOp.SUM)
assert [g.tolist() for g in dp.gather(total)] == [[2.0, 4.0], [2.0, 4.0]]
print("ok", seam.metrics.counter_value("MarkStep") > 0)
"""


def test_data_parallel_over_two_cpu_devices():
    env = dict(os.environ, PJRT_DEVICE="CPU", CPU_NUM_DEVICES="2",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "ok True"
