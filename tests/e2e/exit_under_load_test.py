#!/usr/bin/env python3
"""Exit with device work in flight, under load (issue 31, "Exit").

Runs tests/e2e/exit_program RUNS times in each mode, PARALLEL runs at a time (more runs
than cores: the machine is loaded), and fails on any run that a signal ended, that exited
with a status other than 0, that never printed its last-step line, or that took more than
10 s from launching its last step to exiting.

    exit_under_load_test.py PROGRAM [--runs N] [--parallel P] [--modes a,b,...]
                            [--plugin LIBRARY]

A mode is lazy, eager, compiled, replicated (lazy with two in-process devices and an
all_reduce; CPU_NUM_DEVICES=2), or plugin (lazy on the CPU plugin loaded by path from
--plugin: PJRT_DEVICE=LIBRARY).
"""
import argparse
import os
import subprocess
import sys
import time

EXIT_BOUND_S = 10.0
RUN_TIMEOUT_S = 120.0


def command_for(program, mode, plugin):
    env = dict(os.environ, PJRT_DEVICE="CPU")
    if mode == "plugin":
        env.update(PJRT_DEVICE="LIBRARY", PJRT_DYNAMIC_PLUGINS="1", PJRT_LIBRARY_PATH=plugin)
        return [program, "lazy"], env
    if mode == "replicated":
        env["CPU_NUM_DEVICES"] = "2"
        return [program, "lazy", "--replicas", "2"], env
    return [program, mode], env


def finish(mode, proc, started, failures):
    try:
        out, err = proc.communicate(timeout=max(1.0, RUN_TIMEOUT_S - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        failures.append(f"{mode}: still running after {RUN_TIMEOUT_S:.0f} s (killed)")
        return
    exited = time.monotonic()
    if proc.returncode < 0:
        failures.append(f"{mode}: ended by signal {-proc.returncode}\n{err[-2000:]}")
        return
    if proc.returncode != 0:
        failures.append(f"{mode}: exit status {proc.returncode}\n{err[-2000:]}")
        return
    marks = [line for line in out.splitlines() if line.startswith("last step launched at ")]
    if not marks:
        failures.append(f"{mode}: no last-step line in its output\n{out[-500:]}")
        return
    # time.monotonic() is CLOCK_MONOTONIC on Linux, the clock the program prints.
    last_step = int(marks[-1].split()[-1]) / 1e9
    if exited - last_step > EXIT_BOUND_S:
        failures.append(f"{mode}: exited {exited - last_step:.1f} s after its last step")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("program")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--parallel", type=int, default=3)
    parser.add_argument("--modes", default="lazy,eager")
    parser.add_argument("--plugin", default="")
    args = parser.parse_args()
    modes = args.modes.split(",")
    failures = []
    queue = [mode for mode in modes for _ in range(args.runs)]
    running = []
    begin = time.monotonic()
    while queue or running:
        while queue and len(running) < args.parallel:
            mode = queue.pop(0)
            cmd, env = command_for(args.program, mode, args.plugin)
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            running.append((mode, proc, time.monotonic()))
        mode, proc, started = running.pop(0)
        finish(mode, proc, started, failures)
    total = len(modes) * args.runs
    print(f"{total} runs ({', '.join(f'{args.runs} {m}' for m in modes)}), {args.parallel} at a "
          f"time, in {time.monotonic() - begin:.1f} s: {len(failures)} failed")
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
