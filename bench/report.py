#!/usr/bin/env python3
"""Turns the JSON files of bench/run_benchmarks.sh into the issue-6 tables (markdown).

Each figure is the fastest repetition by wall-clock time (the one least disturbed on a
shared machine); ratios compare figures of the same run. The last column is the process CPU
time (every thread: seam's caller and device worker, BLAS and OpenMP threads) of that same
repetition, a steadier measure of work when the machine is oversubscribed.
Usage: report.py OUT_DIR
"""
import glob
import json
import os
import re
import sys

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def load(out_dir):
    """{(family, arg, threads): {"seconds": best, "label": ..., "counters": ...}}"""
    best = {}
    for path in sorted(glob.glob(os.path.join(out_dir, "*.json"))):
        with open(path) as f:
            data = json.load(f)
        match = re.search(r"_t(\d+)\.json$", path)
        threads = int(match.group(1)) if match else 1
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration" or "error_occurred" in b:
                continue
            parts = b["run_name"].split("/")
            family, arg = parts[0], (parts[1] if len(parts) > 1 and parts[1].isdigit() else "")
            seconds = b["real_time"] * UNIT[b["time_unit"]]
            cpu = b["cpu_time"] * UNIT[b["time_unit"]]
            key = (family, arg, threads)
            if key not in best or seconds < best[key]["seconds"]:
                best[key] = {"seconds": seconds, "label": b.get("label", ""), "bench": b,
                             "cpu": cpu}
    return best


def ms(seconds):
    return f"{seconds * 1e3:.3f} ms" if seconds < 0.01 else f"{seconds * 1e3:.1f} ms"


def main():
    out_dir = sys.argv[1]
    best = load(out_dir)
    threads_seen = sorted({k[2] for k in best})
    print("| step | threads | seam | libtorch | floor | gemm-only | seam / libtorch | seam / floor "
          "| process CPU: seam / libtorch |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for threads in threads_seen:
        peaks = [v["bench"]["GFLOP/s"] for (fam, _, t), v in best.items()
                 if fam == "BM_SgemmPeak" and t == threads]
        peak = max(peaks) if peaks else None  # FLOP/s
        for arg in ["1", "2", "3"]:
            seam = best.get(("BM_SeamMlpStep", arg, threads))
            if seam is None:
                continue
            torch = best.get(("BM_TorchMlpStep", arg, threads))
            gemm = best.get(("BM_GemmOnlyStep", arg, threads))
            floor = seam["bench"]["matmul_flops"] / peak if peak else None
            cells = [seam["label"], str(threads), ms(seam["seconds"]),
                     ms(torch["seconds"]) if torch else "n/a",
                     ms(floor) if floor else "n/a",
                     ms(gemm["seconds"]) if gemm else "n/a",
                     f"{seam['seconds'] / torch['seconds']:.2f}x" if torch else "n/a",
                     f"{seam['seconds'] / floor:.2f}x" if floor else "n/a",
                     f"{ms(seam['cpu'])} / {ms(torch['cpu'])} = {seam['cpu'] / torch['cpu']:.2f}x"
                     if torch else "n/a"]
            print("| " + " | ".join(cells) + " |")
    print()
    print("| sgemm peak (best square sgemm this run) | threads | GFLOP/s |")
    print("| --- | --- | --- |")
    for threads in threads_seen:
        for (fam, arg, t), v in sorted(best.items()):
            if fam == "BM_SgemmPeak" and t == threads:
                print(f"| {arg}^3 | {threads} | {v['bench']['GFLOP/s'] / 1e9:.1f} |")
    print()
    print("| fixed cost / front end | threads | seam | libtorch | goal |")
    print("| --- | --- | --- | --- | --- |")
    for threads in threads_seen:
        seam = best.get(("BM_SeamMlpStep", "0", threads))
        torch = best.get(("BM_TorchMlpStep", "0", threads))
        if seam:
            print(f"| whole step, {seam['label']} (process CPU in brackets) | {threads} | "
                  f"{seam['seconds'] * 1e6:.1f} us ({seam['cpu'] * 1e6:.1f} us) | "
                  + (f"{torch['seconds'] * 1e6:.1f} us ({torch['cpu'] * 1e6:.1f} us)"
                     if torch else "n/a") + " | <= 20 us |")
    for (fam, arg, t), v in sorted(best.items()):
        if fam == "BM_TraceAndLaunch":
            print(f"| trace + launch, cached 100-op step, per op (caller's CPU in brackets) "
                  f"| {t} | {v['seconds'] * 1e6 / 100:.3f} us "
                  f"({v['bench'].get('cpu_us_per_op', float('nan')):.3f} us) | | <= 0.3 us |")
        if fam == "BM_TraceOnly":
            print(f"| of which recording the 100 ops (no sync), per op (CPU in brackets) | {t} | "
                  f"{v['seconds'] * 1e6 / 100:.3f} us ({v['cpu'] * 1e6 / 100:.3f} us) | | |")
        if fam == "BM_EagerOp":
            print(f"| eager op, tiny tensors, cache hit, per op | {t} | "
                  f"{v['seconds'] * 1e6 / 100:.3f} us | | <= 2 us |")
    if not any(k[0] == "BM_EagerOp" for k in best):
        print("| eager op | | not built: seam::set_eager is not in this tree | | <= 2 us |")


if __name__ == "__main__":
    main()
