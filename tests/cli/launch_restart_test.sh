#!/usr/bin/env bash
# launch_restart_test.sh SEAM EXAMPLE DATA: `seam launch --max-restarts` with the example's
# checkpoints (docs/checkpoints.md). A 2-process data-parallel job of 3 epochs runs once
# uninterrupted (--save U); a second job (--save R --resume R) has rank 0 killed with
# SIGKILL in the middle of saving epoch 2 (SEAM_TEST_KILL_BEFORE_RENAME=4, first attempt
# only); launch must restart the whole job once, the new job must resume after epoch 1,
# and epoch 3's files must equal the uninterrupted job's byte for byte. Processes on
# 127.0.0.1 only; each launch is bounded (120 s); the folder is removed on exit.
set -u
seam=$1
example=$2
data=$3
source "$(dirname "$0")/script_lib.sh"
cat >"$work/rank.sh" <<SCRIPT
#!/usr/bin/env bash
# rank.sh DIR [kill]: with "kill", the first attempt's rank 0 dies during its 4th atomic
# write (epoch 2's model file).
if [ "\${2:-}" = kill ] && [ "\$RANK" = 0 ] && [ "\$SEAM_RESTART_COUNT" = 0 ]; then
  export SEAM_TEST_KILL_BEFORE_RENAME=4
fi
exec "$example" --data-parallel --data "$data" --epochs 3 --save "\$1" --resume "\$1"
SCRIPT
chmod +x "$work/rank.sh"
export PJRT_DEVICE=CPU
unset SEAM_TEST_KILL_BEFORE_RENAME

timeout -s KILL 120 "$seam" launch -n 2 -- "$work/rank.sh" "$work/U" >"$work/whole.log" 2>&1 ||
  fail "the uninterrupted job failed"
timeout -s KILL 120 "$seam" launch -n 2 --max-restarts 1 -- "$work/rank.sh" "$work/R" kill \
  >"$work/restarted.log" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "the restarted job exited with $rc"
grep -q "seam launch: rank 0 was killed by signal 9 (SIGKILL)" "$work/restarted.log" ||
  fail "launch did not name the killed rank"
grep -q "seam launch: restarting the job (restart 1 of 1)" "$work/restarted.log" ||
  fail "launch did not restart the job"
grep -q "^\[rank 0\] resumed from $work/R after epoch 1" "$work/restarted.log" ||
  fail "rank 0 did not resume after epoch 1"
grep -q "^\[rank 1\] resumed from $work/R after epoch 1" "$work/restarted.log" ||
  fail "rank 1 did not resume after epoch 1"
for f in model optimizer; do
  cmp "$work/U/epoch-3/$f.safetensors" "$work/R/epoch-3/$f.safetensors" ||
    fail "epoch 3's $f.safetensors differs between the uninterrupted and the restarted job"
done
echo "PASS: rank 0 killed while saving epoch 2, job restarted once, epoch 3 identical byte for byte"
