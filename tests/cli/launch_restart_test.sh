#!/usr/bin/env bash
# launch_restart_test.sh SEAM EXAMPLE DATA: `seam launch --max-restarts` with the example's
# checkpoints (docs/checkpoints.md), on a set of four batches per epoch. A 2-process
# data-parallel job of 3 epochs runs once uninterrupted (--save U); then two jobs
# (--save X --resume X) each lose a rank on their first attempt and must be restarted once,
# resume after epoch 1 and end with epoch 3's files equal to the uninterrupted job's byte
# for byte:
#   R: rank 0 killed with SIGKILL in the middle of saving epoch 2
#      (SEAM_TEST_KILL_BEFORE_RENAME=4);
#   M: rank 1 killed with SIGKILL in the middle of epoch 2, as it launches its 6th step
#      (the 2nd of epoch 2: SEAM_TEST_KILL_AT_STEP=6).
# Processes on 127.0.0.1 only; each launch is bounded (120 s); the folder is removed on exit.
set -u
seam=$1
example=$2
data=$3
source "$(dirname "$0")/script_lib.sh"
cat >"$work/rank.sh" <<SCRIPT
#!/usr/bin/env bash
# rank.sh DIR [save|step]: the first attempt of the job loses rank 0 during its 4th atomic
# write (save: epoch 2's model file), or rank 1 at its 6th step (step: mid-epoch 2).
if [ "\$SEAM_RESTART_COUNT" = 0 ]; then
  if [ "\${2:-}" = save ] && [ "\$RANK" = 0 ]; then export SEAM_TEST_KILL_BEFORE_RENAME=4; fi
  if [ "\${2:-}" = step ] && [ "\$RANK" = 1 ]; then export SEAM_TEST_KILL_AT_STEP=6; fi
fi
exec "$example" --data-parallel --data "$data" --epochs 3 --save "\$1" --resume "\$1"
SCRIPT
chmod +x "$work/rank.sh"
export PJRT_DEVICE=CPU
unset SEAM_TEST_KILL_BEFORE_RENAME SEAM_TEST_KILL_AT_STEP

timeout -s KILL 120 "$seam" launch -n 2 -- "$work/rank.sh" "$work/U" >"$work/whole.log" 2>&1 ||
  fail "the uninterrupted job failed"

# restarted NAME MODE RANK: the job of folder NAME, whose rank RANK dies as MODE says.
restarted() {
  local name=$1 mode=$2 rank=$3 log="$work/$1.log"
  timeout -s KILL 120 "$seam" launch -n 2 --max-restarts 1 -- "$work/rank.sh" "$work/$name" \
    "$mode" >"$log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || fail "job $name exited with $rc"
  grep -q "seam launch: rank $rank was killed by signal 9 (SIGKILL)" "$log" ||
    fail "job $name: launch did not name the killed rank $rank"
  grep -q "seam launch: restarting the job (restart 1 of 1)" "$log" ||
    fail "job $name: launch did not restart the job"
  # The first attempt finished epoch 1; killed at a step, it did not finish epoch 2.
  local first
  first=$(sed -n '/restarting the job/q;p' "$log")
  grep -q "^\[rank 0\] epoch 1 " <<<"$first" || fail "job $name: epoch 1 did not finish first"
  if [ "$mode" = step ] && grep -q "^\[rank 0\] epoch 2 " <<<"$first"; then
    fail "job $name: epoch 2 finished before the kill"
  fi
  for r in 0 1; do
    grep -q "^\[rank $r\] resumed from $work/$name after epoch 1" "$log" ||
      fail "job $name: rank $r did not resume after epoch 1"
  done
  for f in model optimizer; do
    cmp "$work/U/epoch-3/$f.safetensors" "$work/$name/epoch-3/$f.safetensors" ||
      fail "job $name: epoch 3's $f.safetensors differs from the uninterrupted job's"
  done
}
restarted R save 0
restarted M step 1
echo "PASS: rank 0 killed while saving epoch 2, rank 1 killed mid-epoch 2; each job restarted" \
  "once and ended with epoch 3 identical byte for byte"
