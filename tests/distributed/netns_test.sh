#!/usr/bin/env bash
# netns_test.sh SEAM DP_WORKER: a job of 2 "hosts" x 2 processes, each host a network
# namespace this test makes (ip netns + a veth pair, addresses 192.168.231.1 and .2 that
# exist only inside them), started with `seam launch --nnodes 2 --node-rank R --master-addr
# 192.168.231.1` in each. Every rank must train like one process on the whole batch
# (dp_worker --reference, outside the namespaces) and end with the same parameters.
# Skipped (exit 77, reason printed) where namespaces cannot be made. Every wait is bounded
# (a launch runs at most 120 s); the namespaces and processes are removed on exit.
set -u
seam=$1
worker=$2
steps=5
tag="seam$$"
ns0="${tag}h0"
ns1="${tag}h1"
addr0=192.168.231.1
addr1=192.168.231.2
work=$(mktemp -d)
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  ip netns del "$ns0" 2>/dev/null
  ip netns del "$ns1" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

skip() {
  echo "SKIPPED: $*"
  exit 77
}

if ! command -v ip >/dev/null; then skip "the ip command (iproute2) is not installed"; fi
if ! ip netns add "$ns0" 2>"$work/why"; then
  skip "network namespaces cannot be made here: $(cat "$work/why")"
fi
ip netns add "$ns1" || skip "a second namespace cannot be made"
ip link add "${tag}a" netns "$ns0" type veth peer name "${tag}b" netns "$ns1" 2>"$work/why" ||
  skip "a veth pair cannot be made: $(cat "$work/why")"
ip -n "$ns0" addr add "$addr0/24" dev "${tag}a"
ip -n "$ns1" addr add "$addr1/24" dev "${tag}b"
for ns in "$ns0" "$ns1"; do
  ip -n "$ns" link set lo up
done
ip -n "$ns0" link set "${tag}a" up
ip -n "$ns1" link set "${tag}b" up

fail() {
  echo "FAIL: $*"
  for f in "$work"/*.out "$work"/*.err; do
    echo "--- $f"
    cat "$f"
  done
  exit 1
}

PJRT_DEVICE=CPU timeout -s KILL 60 "$worker" --reference --steps "$steps" >"$work/reference.out" \
  2>"$work/reference.err" || fail "the one-process reference failed"

port=$((20000 + $$ % 20000))
# The job's secret, the same file for both nodes' launchers (docs/distributed.md).
(umask 077 && printf 'netns-test-secret-%s-0123456789\n' "$$" >"$work/secret")
for node in 0 1; do
  ns="${tag}h${node}"
  env -u RANK -u WORLD_SIZE -u LOCAL_RANK -u LOCAL_WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT \
    -u XLA_COORDINATOR_PORT PJRT_DEVICE=CPU DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC=1 \
    SEAM_COORDINATOR_TIMEOUT_SEC=60 SEAM_JOB_SECRET_FILE="$work/secret" \
    timeout -s KILL 120 ip netns exec "$ns" "$seam" launch -n 2 --nnodes 2 --node-rank "$node" \
    --master-addr "$addr0" --master-port "$port" -- "$worker" --steps "$steps" \
    >"$work/node$node.out" 2>"$work/node$node.err" &
  pids+=($!)
done
for i in 0 1; do
  wait "${pids[$i]}" || fail "node $i: seam launch exited with status $?"
done

# Every rank's losses against the reference's (relative 1e-5), and one parameter hash.
ref_losses=$(awk '$1 == "loss" { print $3 }' "$work/reference.out")
hashes=""
for rank in 0 1 2 3; do
  node=$((rank / 2))
  losses=$(awk -v r="[rank $rank]" 'index($0, r " loss ") == 1 { print $5 }' "$work/node$node.out")
  [ "$(echo "$losses" | wc -l)" -eq "$steps" ] || fail "rank $rank printed no $steps losses"
  paste <(echo "$ref_losses") <(echo "$losses") | awk -v rank="$rank" '
    { d = $1 - $2; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1;
      if (d > 1e-5 * m + 1e-6) { print "rank " rank ": loss " $2 " against " $1; bad = 1 } }
    END { exit bad }' || fail "rank $rank's losses differ from one process's"
  hash=$(awk -v r="[rank $rank]" 'index($0, r " params ") == 1 { print $4 }' "$work/node$node.out")
  [ -n "$hash" ] || fail "rank $rank printed no parameter hash"
  hashes="$hashes $hash"
  grep -q "^\[rank $rank\] replicas 4 1 $rank$" "$work/node$node.out" ||
    fail "rank $rank does not hold global replica $rank of 4"
done
[ "$(echo $hashes | tr ' ' '\n' | sort -u | wc -l)" -eq 1 ] ||
  fail "the ranks end with different parameters:$hashes"
echo "PASS: 2 namespaces x 2 processes over $addr0, losses as one process, parameters$hashes"
