#!/usr/bin/env bash
# What pipelined remote executes save (BENCHMARKS.md, "Pipelined executes"): the tiny and
# medium MLP steps (train_step_bench) and 100 eager adds (frontend_bench) through the remote
# client, pipelined (SEAM_REMOTE_PIPELINE=1) and waiting (0), once straight over loopback and
# once through bench/latency_proxy.py holding each piece DELAY_US (default 250) each way.
# Everything listens on 127.0.0.1 only; the server and the relay are stopped on exit.
#   bench/remote_pipeline_bench.sh [BUILD_DIR] [DELAY_US]
set -euo pipefail

build=${1:-build}
delay=${2:-250}
bin=$build/bench
here=$(dirname "$0")
export PJRT_DEVICE=CPU SEAM_CPU_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
. "$here/blas_core.sh"
bench_blas_core "$bin/train_step_bench" --benchmark_filter=none

tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# Waits (at most 10 s) for "listening on 127.0.0.1:PORT" in file $1; prints PORT.
port_of() {
  for _ in $(seq 100); do
    local port
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$1" | head -1)
    if [ -n "$port" ]; then echo "$port"; return 0; fi
    sleep 0.1
  done
  echo "remote_pipeline_bench: nothing listened (see $1)" >&2
  return 1
}

"$build/tools/seam" serve --address 127.0.0.1:0 > "$tmp/serve.log" 2>&1 &
pids+=($!)
server=$(port_of "$tmp/serve.log")
python3 "$here/latency_proxy.py" 0 "$server" "$delay" > "$tmp/relay.log" &
pids+=($!)
relay=$(port_of "$tmp/relay.log")

for link in "loopback:$server" "relay ${delay}us:$relay"; do
  for pipeline in 1 0; do
    echo "== ${link%%:*}, SEAM_REMOTE_PIPELINE=$pipeline"
    export SEAM_CLIENT=remote SEAM_REMOTE_ADDRESS=127.0.0.1:${link##*:}
    export SEAM_REMOTE_PIPELINE=$pipeline
    "$bin/train_step_bench" --benchmark_min_time=1 \
      --benchmark_filter='BM_SeamMlpStep/[02]/|BM_CompiledMlpStep/[02]/'
    "$bin/frontend_bench" --benchmark_min_time=1 --benchmark_filter=BM_EagerAddChain
  done
done
