#!/usr/bin/env python3
"""program_format_test.py LOSSES SEAM MODEL [--launch]: issue 34's bit-identity check.

Runs LOSSES (program_format_losses) for MODEL with SEAM_PROGRAM_FORMAT=seam and again with
SEAM_PROGRAM_FORMAT=stablehlo on seam's CPU plugin, and requires the same loss bits at every
step. With SEAM_DUMP_TO it also requires that the stablehlo run really sent StableHLO (a
.mlir file per compile, none holding custom_call or seam IR) and that the seam run sent none.
With --launch both runs go through `SEAM launch -n 2` (data parallel over two processes) and
every rank's losses are compared.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

STEPS = 20


def run(args, program_format, dump):
    env = dict(os.environ, PJRT_DEVICE="CPU", SEAM_PROGRAM_FORMAT=program_format,
               SEAM_DUMP_TO=dump)
    command = [args.losses, args.model, str(STEPS)]
    if args.launch:
        command = [args.seam, "launch", "-n", "2", "--"] + command
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    if done.returncode != 0:
        sys.exit(f"{program_format}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    # Under launch every rank's lines arrive, each prefixed by its rank: keep them apart.
    return sorted(lines) if args.launch else lines


def check_dumps(folder, want_mlir):
    mlir = sorted(pathlib.Path(folder).rglob("*.mlir"))
    if not want_mlir:
        if mlir:
            sys.exit(f"SEAM_PROGRAM_FORMAT=seam sent StableHLO: {mlir[0]}")
        return
    if not mlir:
        sys.exit(f"SEAM_PROGRAM_FORMAT=stablehlo wrote no .mlir dump under {folder}")
    for path in mlir:
        text = path.read_text()
        for banned in ("custom_call", "program @", "= parameter("):
            if banned in text:
                sys.exit(f"{path}: the StableHLO sent holds '{banned}'")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("losses")
    parser.add_argument("seam")
    parser.add_argument("model")
    parser.add_argument("--launch", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as seam_dump, tempfile.TemporaryDirectory() as hlo_dump:
        seam = run(args, "seam", seam_dump)
        stablehlo = run(args, "stablehlo", hlo_dump)
        check_dumps(seam_dump, want_mlir=False)
        check_dumps(hlo_dump, want_mlir=True)
    expected = STEPS * (2 if args.launch else 1)
    if len(seam) != expected:
        sys.exit(f"expected {expected} losses, the seam run printed {len(seam)}: {seam}")
    if len(set(seam)) < 2:
        sys.exit(f"the losses do not change from step to step: {seam}")
    if seam != stablehlo:
        for i, (a, b) in enumerate(zip(seam, stablehlo)):
            if a != b:
                sys.exit(f"{args.model}: loss {i} differs: seam IR {a}, StableHLO {b}")
        sys.exit(f"{args.model}: the runs printed different losses")
    print(f"{args.model}: {len(seam)} losses bit-identical through seam IR and StableHLO")


if __name__ == "__main__":
    main()
