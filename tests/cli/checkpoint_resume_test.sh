#!/usr/bin/env bash
# checkpoint_resume_test.sh EXAMPLE DATA: the example's checkpoints (docs/checkpoints.md).
#   1. An uninterrupted run of 3 epochs with --save A.
#   2. A run with --save B killed with SIGKILL during the save of epoch 2 (the test hook
#      SEAM_TEST_KILL_BEFORE_RENAME=4: epoch 1 writes model, optimizer and latest; the 4th
#      atomic write is epoch 2's model): B/latest must still name epoch-1, whose files load.
#   3. --resume B --save B to epoch 3: its parameters and optimizer state must equal run 1's
#      byte for byte (the files are compared whole), and its save of epoch 2 must have
#      removed the temporary file the killed run left (docs/checkpoints.md, "Leftovers").
# Each run is bounded (60 s); the folder is removed on exit.
set -u
example=$1
data=$2
source "$(dirname "$0")/script_lib.sh"
run() {  # run NAME ARGS...: the example on the tiny set, output to NAME.log; sets rc
  local name=$1
  shift
  PJRT_DEVICE=CPU timeout -s KILL 60 "$example" --data "$data" --epochs 3 "$@" >"$work/$name.log" 2>&1
  rc=$?
}
run whole --save "$work/A"
[ $rc -eq 0 ] || fail "the uninterrupted run exited with $rc"
[ "$(cat "$work/A/latest")" = "epoch-3" ] || fail "A/latest is '$(cat "$work/A/latest")'"

SEAM_TEST_KILL_BEFORE_RENAME=4 run killed --save "$work/B"
[ $rc -eq 137 ] || fail "the run killed during its second save exited with $rc, not 137 (SIGKILL)"
[ "$(cat "$work/B/latest")" = "epoch-1" ] || fail "after the kill B/latest is '$(cat "$work/B/latest")'"
[ ! -e "$work/B/epoch-2/model.safetensors" ] || fail "the torn save left epoch-2/model.safetensors"
ls "$work/B/epoch-2/"model.safetensors.tmp.* >/dev/null 2>&1 ||
  fail "the kill did not happen between writing and renaming (no temporary file)"

run resumed --resume "$work/B" --save "$work/B"
[ $rc -eq 0 ] || fail "the resumed run exited with $rc"
grep -q "resumed from $work/B after epoch 1" "$work/resumed.log" || fail "no resume line"
grep -q "^epoch 1 " "$work/resumed.log" && fail "the resumed run trained epoch 1 again"
ls "$work/B/epoch-2/"*.tmp.* >/dev/null 2>&1 &&
  fail "the killed save's temporary file is still there: $(ls "$work/B/epoch-2/" | tr "\n" " ")"
for f in model optimizer; do
  cmp "$work/A/epoch-3/$f.safetensors" "$work/B/epoch-3/$f.safetensors" ||
    fail "epoch 3's $f.safetensors differs between the uninterrupted and the resumed run"
done
echo "PASS: killed during the save of epoch 2, resumed from epoch 1, its leftover removed, epoch 3 identical byte for byte"
