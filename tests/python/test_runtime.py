"""The step barrier from Python: seam.compile replays without retracing, metrics, traces,
and the GIL released while seam waits (a data thread runs during a sync)."""

import json
import threading
import time

import numpy as np

import seam
import seam.nn as nn
import seam.nn.functional as F

rng = np.random.default_rng(1)


def make_problem():
    seam.manual_seed(21)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = seam.optim.SGD(model.parameters(), lr=0.05)
    x = seam.tensor(rng.standard_normal((32, 8)).astype(np.float32))
    y = seam.tensor(rng.integers(0, 3, 32).astype(np.int32))
    return model, opt, x, y


def test_compile_replays_without_retracing():
    model, opt, x, y = make_problem()
    calls = []

    @seam.compile
    def step(x, y):
        calls.append(1)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    compiles_before = seam.metrics.counter_value("UncachedCompile")
    losses = [step(x, y).item() for _ in range(8)]
    # The first call sees parameters still on the host (their transfer is part of its plan),
    # so the plan settles from the second call; then two equal plans and replays.
    assert step.traced_calls <= 3 and step.replayed_calls == 8 - step.traced_calls
    assert step.replayed_calls >= 5, step.last_reason
    assert len(calls) == step.traced_calls  # replays do not run the Python function
    assert seam.metrics.counter_value("UncachedCompile") - compiles_before <= 3
    assert losses[-1] < losses[0]

    # The same steps uncompiled give the same losses.
    model2, opt2, _, _ = make_problem()
    eager = []
    for _ in range(8):
        opt2.zero_grad()
        loss = F.cross_entropy(model2(x), y)
        loss.backward()
        opt2.step()
        seam.sync()
        eager.append(loss.item())
    np.testing.assert_allclose(losses, eager, rtol=1e-6)


def test_compile_rejects_non_tensor_arguments():
    step = seam.compile(lambda x: x * 2)
    try:
        step(3)
    except ValueError as e:
        assert "must be tensors" in str(e)
    else:
        raise AssertionError("expected ValueError")


def test_sync_metrics_and_report():
    before = seam.metrics.counter_value("MarkStep")
    t = seam.ones(4) * 3
    assert t.has_pending_ops()
    seam.sync()
    assert not t.has_pending_ops()
    seam.wait_device_ops()
    assert seam.metrics.counter_value("MarkStep") == before + 1
    report = seam.metrics.report()
    assert "Metric: ExecuteTime\n  TotalSamples: " in report
    assert f"Counter: MarkStep\n  Value: {before + 1}\n" in report
    assert seam.metrics.metric_total_samples("CompileTime") >= 1
    assert "Memory: CPU:0" in report


def test_trace_to_a_file(tmp_path):
    path = tmp_path / "steps.json"
    seam.trace.start(str(path))
    assert seam.trace.active()
    (seam.ones(8) * 2).numpy()
    seam.trace.stop()
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {e.get("name") for e in events}
    assert "ExecuteComputation" in names or any("Execute" in str(n) for n in names)


def test_a_python_thread_runs_while_seam_syncs():
    # A step long enough to measure (a chain of 384x384 products), then a thread counting
    # in pure Python while the main thread is inside sync() and numpy().
    a = seam.tensor(rng.standard_normal((384, 384)).astype(np.float32) / 20)
    t = a
    for _ in range(40):
        t = (t @ a).tanh()
    (t * 1).numpy()  # compile once, so the timed sync is a run

    counter = [0]
    stop = threading.Event()

    def data_thread():
        while not stop.is_set():
            counter[0] += 1

    t2 = a
    for _ in range(40):
        t2 = (t2 @ a).tanh()
    worker = threading.Thread(target=data_thread)
    worker.start()
    time.sleep(0.01)
    start_count = counter[0]
    start = time.perf_counter()
    t2.numpy()
    elapsed = time.perf_counter() - start
    during = counter[0] - start_count
    stop.set()
    worker.join()
    # With the GIL held the thread would get at most a switch interval (5 ms) of the run;
    # released, it counts through most of it.
    assert elapsed > 0.02, f"the step took only {elapsed * 1e3:.1f} ms: too short to measure"
    rate = during / elapsed
    assert rate > 20000, f"{during} counts in {elapsed * 1e3:.1f} ms"


def test_two_threads_train_their_own_models():
    # Each thread records and syncs its own steps (seam.sync() syncs the calling thread's
    # tensors); the results equal the same training run alone.
    x = seam.tensor(rng.standard_normal((16, 8)).astype(np.float32))
    y = seam.tensor(rng.integers(0, 3, 16).astype(np.int32))

    seam.manual_seed(5)
    start = {k: v.numpy() for k, v in nn.Linear(8, 3).state_dict().items()}

    def train(out):
        model = nn.Linear(8, 3)  # (its own draws are replaced: the seed counter is shared)
        model.load_state_dict({k: seam.tensor(v) for k, v in start.items()})
        opt = seam.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(15):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            seam.sync()
        out.append(model.weight.numpy())

    alone = []
    train(alone)
    results = [[], []]
    threads = [threading.Thread(target=train, args=(results[i],)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert len(r) == 1
        np.testing.assert_array_equal(r[0], alone[0])
