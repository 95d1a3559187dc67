#!/usr/bin/env bash
# preemption_test.sh SEAM EXAMPLE DATA: a SIGTERM as a preemption notice (docs/distributed.md,
# "Preemption") on a set of four batches per epoch, 3 epochs (12 steps). The example, run with
# --save, stops at one step every rank agrees on, saves the middle of the epoch there and
# exits with 143; --resume then ends with epoch 3's files equal byte for byte to an
# uninterrupted run's:
#   L: a 2-process data-parallel job whose launch gets SIGTERM (sent by rank 1 as it launches
#      its 6th step: SEAM_TEST_SIGTERM_AT_STEP=6, SEAM_TEST_SIGTERM_PID=launch's pid);
#   R: the same job where only rank 1 gets SIGTERM, under --max-restarts 1 (no restart);
#   S: a single process signalling itself at its 6th step: it stops at step 6 (or 7);
#   and the CNN example alone (2 epochs of 8 steps, SIGTERM at its 5th step).
# Without --save (not activated) SIGTERM still ends the example at once.
# Processes on 127.0.0.1 only; each run is bounded (60 s); the folder is removed on exit.
set -u
seam=$1
example=$2
data=$3
source "$(dirname "$0")/script_lib.sh"
cat >"$work/rank.sh" <<SCRIPT
#!/usr/bin/env bash
# rank.sh DIR [launch|rank]: rank 1 sends SIGTERM at its 6th step to launch (its parent) or
# to itself.
if [ "\$RANK" = 1 ] && [ -n "\${2:-}" ]; then
  export SEAM_TEST_SIGTERM_AT_STEP=6
  if [ "\$2" = launch ]; then export SEAM_TEST_SIGTERM_PID=\$PPID; fi
fi
exec "$example" --data-parallel --data "$data" --epochs 3 --save "\$1" --resume "\$1"
SCRIPT
chmod +x "$work/rank.sh"
export PJRT_DEVICE=CPU
unset SEAM_TEST_SIGTERM_AT_STEP SEAM_TEST_SIGTERM_PID SEAM_TEST_KILL_AT_STEP

same_end() {  # same_end A B: epoch 3's files of folders A and B are equal
  for f in model optimizer; do
    cmp "$work/$1/epoch-3/$f.safetensors" "$work/$2/epoch-3/$f.safetensors" ||
      fail "$2: epoch 3's $f.safetensors differs from $1's (the uninterrupted run)"
  done
}

timeout -s KILL 60 "$seam" launch -n 2 -- "$work/rank.sh" "$work/U" >"$work/whole.log" 2>&1 ||
  fail "the uninterrupted job failed"

# preempted NAME MODE: the job of folder NAME is preempted as MODE says, then resumed.
preempted() {
  local name=$1 mode=$2 log="$work/$1.log"
  timeout -s KILL 60 "$seam" launch -n 2 --max-restarts 1 -- "$work/rank.sh" "$work/$name" \
    "$mode" >"$log" 2>&1
  local rc=$?
  [ $rc -eq 143 ] || fail "job $name exited with $rc, not 143"
  ! grep -q "restarting the job" "$log" || fail "job $name: launch restarted a preempted job"
  if [ "$mode" = launch ]; then
    grep -q "seam launch: received SIGTERM and forwarded it to every rank" "$log" ||
      fail "job $name: launch did not say it forwarded SIGTERM"
  else
    # Both ranks leave together (each waits for the other at exit): either may end first.
    grep -q "seam launch: rank [01] exited with status 143 (preempted" "$log" ||
      fail "job $name: launch did not name a preempted rank"
  fi
  local s0 s1
  s0=$(sed -n 's/^\[rank 0\] preempted: every rank stops at step \([0-9]*\) .*/\1/p' "$log")
  s1=$(sed -n 's/^\[rank 1\] preempted: every rank stops at step \([0-9]*\) .*/\1/p' "$log")
  [ -n "$s0" ] && [ "$s0" = "$s1" ] ||
    fail "job $name: the ranks did not stop at one step (rank 0: '$s0', rank 1: '$s1')"
  [ "$s0" -ge 6 ] && [ "$s0" -lt 12 ] || fail "job $name: stopped at step $s0, not mid-training"
  local saved
  saved=$(cat "$work/$name/latest")
  [[ $saved == epoch-*-step-* ]] || fail "job $name: latest names '$saved', not a mid-epoch save"
  grep -q "^\[rank 0\] saved $work/$name/$saved; exiting with status 143" "$log" ||
    fail "job $name: rank 0 did not say it saved $saved"
  timeout -s KILL 60 "$seam" launch -n 2 -- "$work/rank.sh" "$work/$name" >"$log" 2>&1 ||
    fail "job $name: the resumed job failed"
  for r in 0 1; do
    grep -q "^\[rank $r\] resumed from $work/$name in epoch" "$log" ||
      fail "job $name: rank $r did not resume in the middle of an epoch"
  done
  same_end U "$name"
  echo "job $name: both ranks stopped at step $s0 ($saved), resumed, identical"
}
preempted L launch
preempted R rank

# One process, no coordinator: it stops at the first step after the signal, step 6.
run1() { timeout -s KILL 60 "$example" --data "$data" --epochs 3 --save "$work/$1" --resume "$work/$1"; }
run1 U1 >"$work/U1.log" 2>&1 || fail "the uninterrupted single process failed"
SEAM_TEST_SIGTERM_AT_STEP=6 run1 S >"$work/S.log" 2>&1
rc=$?
[ $rc -eq 143 ] || fail "the single process exited with $rc, not 143"
# The signal reaches the process's signal thread a moment after the hook sends it: the
# process stops at step 6, or 7 when step 6 ended first.
k=$(sed -n 's/^preempted: every rank stops at step [67] (epoch 2, step \([23]\) of 4)$/\1/p' \
  "$work/S.log")
[ -n "$k" ] || fail "the single process did not stop at step 6 or 7"
[ "$(cat "$work/S/latest")" = "epoch-2-step-$k" ] || fail "S/latest is not epoch-2-step-$k"
run1 S >"$work/S.log" 2>&1 || fail "the resumed single process failed"
grep -q "^resumed from $work/S in epoch 2 after step $k of 4" "$work/S.log" ||
  fail "the single process did not resume after step $k of epoch 2"
same_end U1 S
# Without --save the example does not activate it: SIGTERM ends the process as before.
SEAM_TEST_SIGTERM_AT_STEP=6 timeout -s KILL 60 "$example" --data "$data" --epochs 3 \
  >"$work/off.log" 2>&1
rc=$?
[ $rc -eq 143 ] || fail "without --save, SIGTERM gave status $rc, not 143 (killed by SIGTERM)"
! grep -q "preempted:\|^epoch 2 " "$work/off.log" ||
  fail "without --save, the process went on after SIGTERM"

# The CNN example (batch norm's statistics in the checkpoint): 8 steps per epoch, 2 epochs,
# SIGTERM at its 5th step.
cnn="$(dirname "$example")/fashion_mnist_cnn"
if [ -x "$cnn" ]; then
  cnn1() { timeout -s KILL 60 "$cnn" --data "$data" --epochs 2 --save "$work/$1" --resume "$work/$1"; }
  cnn1 CU >"$work/CU.log" 2>&1 || fail "the uninterrupted CNN run failed"
  SEAM_TEST_SIGTERM_AT_STEP=5 cnn1 CS >"$work/CS.log" 2>&1
  rc=$?
  [ $rc -eq 143 ] || fail "the CNN run exited with $rc, not 143"
  case "$(cat "$work/CS/latest")" in
    epoch-1-step-5 | epoch-1-step-6) ;;
    *) fail "CS/latest is $(cat "$work/CS/latest"), not epoch-1-step-5 or -6" ;;
  esac
  cnn1 CS >"$work/CS.log" 2>&1 || fail "the resumed CNN run failed"
  for f in model optimizer; do
    cmp "$work/CU/epoch-2/$f.safetensors" "$work/CS/epoch-2/$f.safetensors" ||
      fail "the resumed CNN's epoch 2 $f.safetensors differs from the uninterrupted run's"
  done
fi
echo "PASS: SIGTERM to launch, to one rank and to a single process: one agreed step, exit 143," \
  "a mid-epoch checkpoint, and a resumed run identical byte for byte"
