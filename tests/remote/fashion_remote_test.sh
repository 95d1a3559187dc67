#!/usr/bin/env bash
# fashion_remote_test.sh EXAMPLE SEAM DATA: the Fashion-MNIST example through the remote
# client ends like the in-process run: the same test accuracy line and byte-identical
# parameters and optimizer state (the checkpoint files of the last epoch, compared whole).
# Two epochs on DATA; each run bounded (120 s); the folder is removed on exit.
set -u
example=$1
seam=$2
data=$3
source "$(dirname "$0")/../cli/script_lib.sh"
run_remote=$(dirname "$0")/run_remote.sh

PJRT_DEVICE=CPU timeout -s KILL 120 "$example" --data "$data" --epochs 2 --save "$work/local" \
  >"$work/local.log" 2>&1 || fail "the in-process run failed: $(cat "$work/local.log")"
timeout -s KILL 120 bash "$run_remote" "$seam" "" "$example" --data "$data" --epochs 2 \
  --save "$work/remote" >"$work/remote.log" 2>&1 ||
  fail "the remote run failed: $(cat "$work/remote.log")"

local_accuracy=$(grep "^test accuracy:" "$work/local.log")
remote_accuracy=$(grep "^test accuracy:" "$work/remote.log")
[ -n "$local_accuracy" ] || fail "no accuracy line in the in-process run"
[ "$local_accuracy" = "$remote_accuracy" ] ||
  fail "accuracy differs: in process '$local_accuracy', remote '$remote_accuracy'"
for f in model optimizer; do
  cmp "$work/local/epoch-2/$f.safetensors" "$work/remote/epoch-2/$f.safetensors" ||
    fail "epoch 2's $f.safetensors differs between the in-process and the remote run"
done
echo "PASS: remote run identical to the in-process one ($remote_accuracy)"
