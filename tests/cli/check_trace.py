#!/usr/bin/env python3
"""check_trace.py EXAMPLE DATA_DIR WORK_DIR: the step timeline of two Fashion-MNIST steps.

Runs the example for two training steps with --trace, then with SEAM_TRACE_TO (written at
exit), and checks each file: valid Chrome-trace JSON; two steps in time order; the four
crossings of the seam inside the steps on the host thread's track, every framework span
properly nested on its track; the plugin's compile passes inside a Compile crossing and
its kernel runs inside a device run, on device threads. Exit status 0 when all hold.
"""
import json
import os
import subprocess
import sys

CROSSINGS = ("TransferToDevice", "Compile", "ExecuteComputation", "TransferFromDevice")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(example, data, env_extra, args):
    env = dict(os.environ, PJRT_DEVICE="CPU", **env_extra)
    proc = subprocess.run([example, "--data", data, "--epochs", "3", "--steps", "2"] + args,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=120)
    if proc.returncode != 0:
        fail("the example failed (%d):\n%s" % (proc.returncode, proc.stdout))
    # --steps 2 on a set of one batch: two epochs, not three.
    if "epoch 2 " not in proc.stdout or "epoch 3 " in proc.stdout:
        fail("--steps 2 did not stop after two steps:\n" + proc.stdout)
    return proc.stdout


def load(path):
    try:
        with open(path) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s is not valid JSON: %s" % (path, e))
    events = trace.get("traceEvents")
    if not isinstance(events, list) or not events:
        fail("%s: no traceEvents array" % path)
    for e in events:
        if e.get("ph") not in ("X", "M"):
            fail("unexpected event phase: %r" % e)
        if not isinstance(e.get("name"), str) or not e["name"]:
            fail("an event without a name: %r" % e)
        if e["ph"] == "X":
            for key in ("ts", "dur", "pid", "tid"):
                if not isinstance(e.get(key), (int, float)):
                    fail("complete event without a numeric %s: %r" % (key, e))
            if e["dur"] < 0:
                fail("negative duration: %r" % e)
    return trace, events


def begin(e):
    return round(e["ts"] * 1000)  # ns: the file writes microseconds to the nanosecond


def end(e):
    return begin(e) + round(e["dur"] * 1000)


def inside(child, parent):
    return begin(parent) <= begin(child) and end(child) <= end(parent)


def names_of(events, kind):
    return {(e["pid"], e.get("tid")): e["args"]["name"] for e in events
            if e["ph"] == "M" and e["name"] == kind}


def check_nesting(spans, what):
    """Spans on one track: each pair is disjoint or one holds the other."""
    spans = sorted(spans, key=lambda e: (begin(e), -end(e)))
    stack = []
    for e in spans:
        while stack and not inside(e, stack[-1]):
            if begin(e) < end(stack[-1]):
                fail("%s: '%s' at %.3f overlaps '%s' at %.3f without nesting in it"
                     % (what, e["name"], e["ts"], stack[-1]["name"], stack[-1]["ts"]))
            stack.pop()
        stack.append(e)


def check(path, full):
    trace, events = load(path)
    processes = names_of(events, "process_name")
    threads = names_of(events, "thread_name")
    framework = [pid for (pid, _), name in processes.items() if name == "seam framework"]
    plugin = [pid for (pid, _), name in processes.items() if name == "plugin cpu"]
    if len(framework) != 1 or len(plugin) != 1:
        fail("expected one framework and one 'plugin cpu' process, got %r" % processes)
    fw, pl = framework[0], plugin[0]
    spans = [e for e in events if e["ph"] == "X"]
    host = [e for e in spans if e["pid"] == fw and threads.get((fw, e["tid"]), "").startswith("host")]
    devices = [e for e in spans if e["pid"] == fw and threads.get((fw, e["tid"]), "").endswith(" runs")]
    plugin_spans = [e for e in spans if e["pid"] == pl]

    for tid in {e["tid"] for e in host}:
        check_nesting([e for e in host if e["tid"] == tid], "host thread %d" % tid)

    steps = sorted((e for e in host if e["cat"] == "step" and e["name"].startswith("step ")),
                   key=lambda e: e["ts"])
    if len(steps) != 2:
        fail("expected 2 step spans, got %r" % [s["name"] for s in steps])
    numbers = [int(s["name"].split()[1]) for s in steps]
    if numbers[1] != numbers[0] + 1:
        fail("steps out of order: %r" % numbers)
    if begin(steps[1]) < end(steps[0]):
        fail("step %d begins before step %d ends" % (numbers[1], numbers[0]))
    for step in steps:
        for part in ("recording", "barrier"):
            if not any(e["name"] == part and e["tid"] == step["tid"] and inside(e, step)
                       for e in host):
                fail("%s has no '%s' span inside it" % (step["name"], part))

    for crossing in CROSSINGS:
        found = [e for e in host if e["name"] == crossing or
                 (crossing == "ExecuteComputation" and e["name"] == "ExecuteReplicated")]
        if not found:
            fail("no %s span" % crossing)
        if not any(inside(e, s) and e["tid"] == s["tid"] for e in found for s in steps):
            fail("no %s span inside a step" % crossing)
    executes = [e for e in host if e["name"] == "ExecuteComputation"]
    per_step = [[e for e in executes if inside(e, s)] for s in steps]
    if not all(per_step) or begin(per_step[1][0]) < end(per_step[0][-1]):
        fail("each step must execute once, step 2 after step 1")
    if not any(e["name"] == "cache lookup" for e in host):
        fail("no cache lookup span")

    compiles = [e for e in host if e["name"] == "Compile"]
    passes = [e for e in plugin_spans if e["cat"] == "compile"]
    if not passes:
        fail("no compile pass of the plugin")
    for p in passes:
        if not any(inside(p, c) for c in compiles):
            fail("compile pass '%s' at %.3f is outside every Compile crossing" % (p["name"], p["ts"]))
    kernels = [e for e in plugin_spans if e["cat"] == "kernel"]
    if not kernels:
        fail("no kernel run of the plugin")
    for k in kernels:
        track = threads.get((pl, k["tid"]), "")
        if not track.startswith("device 0"):
            fail("kernel '%s' on track '%s', not a device thread's" % (k["name"], track))
        if not any(inside(k, r) for r in devices):
            fail("kernel '%s' at %.3f is outside every device run" % (k["name"], k["ts"]))
        if not any(inside(k, r) and r["tid"] == k["tid"] for r in plugin_spans if r["cat"] == "run"):
            fail("kernel '%s' at %.3f is outside its thread's run" % (k["name"], k["ts"]))
    if full:
        other = trace.get("otherData", {})
        if other.get("clock") != "CLOCK_MONOTONIC" or "cpu" not in other.get("plugin_events_dropped", {}):
            fail("otherData lacks the clock or the plugin's drop count: %r" % other)
    print("%s: %d events, %d kernels, %d compile passes, steps %r: ok"
          % (path, len(spans), len(kernels), len(passes), numbers))


def main():
    example, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    flag_path = os.path.join(work, "trace_flag.json")
    env_path = os.path.join(work, "trace_env.json")
    for path in (flag_path, env_path):
        if os.path.exists(path):
            os.remove(path)
    out = run(example, data, {}, ["--trace", flag_path])
    if "trace of 2 step(s) written to " + flag_path not in out:
        fail("the example did not report the trace:\n" + out)
    check(flag_path, full=True)
    run(example, data, {"SEAM_TRACE_TO": env_path}, [])
    check(env_path, full=False)


if __name__ == "__main__":
    main()
