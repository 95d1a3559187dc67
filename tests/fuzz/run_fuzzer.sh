#!/usr/bin/env bash
# run_fuzzer.sh replay FUZZER CORPUS            every corpus file once
# run_fuzzer.sh fixed  FUZZER CORPUS WORK_DIR   a fixed-seed, fixed-count run from the corpus
# run_fuzzer.sh open   FUZZER CORPUS WORK_DIR   open-ended (make fuzz); stop with Ctrl-C
# New inputs go to WORK_DIR/corpus, never into the committed corpus. A crash, a leak, a
# sanitizer report or a timeout fails the run and leaves the input in WORK_DIR.
set -euo pipefail
mode=$1
fuzzer=$(realpath "$2")
corpus=$(realpath "$3")
common=(-max_len=4096 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1)
case $mode in
  replay)
    exec "$fuzzer" "${common[@]}" "$corpus"/*
    ;;
  fixed|open)
    work=$4/fuzz-$mode
    rm -rf "$work"
    mkdir -p "$work/corpus"
    cp "$corpus"/* "$work/corpus/"
    cd "$work"
    if [ "$mode" = fixed ]; then
      exec "$fuzzer" "${common[@]}" -seed=1 -runs="${SEAM_FUZZ_RUNS:-200000}" corpus
    fi
    exec "$fuzzer" "${common[@]}" corpus
    ;;
  *)
    echo "run_fuzzer.sh: unknown mode '$mode' (replay, fixed or open)" >&2
    exit 2
    ;;
esac
