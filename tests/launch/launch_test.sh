#!/usr/bin/env bash
# launch_test.sh CASE SEAM PROBE: one case of the `seam launch` tests, with real processes
# on 127.0.0.1 (tests/launch/CMakeLists.txt lists the cases). Every wait is bounded (a
# launch runs at most 60 s, a wait for output or an exit at most 30 s), and every process a
# case started is killed when it ends, pass or fail.
set -u
case_name=$1
seam=$2
probe=$3
work=$(mktemp -d)
launch_pid=""

cleanup() {
  if [ -n "$launch_pid" ]; then kill -KILL "$launch_pid" 2>/dev/null; fi
  for f in "$work"/pid.*; do
    if [ -f "$f" ]; then kill -KILL "$(cat "$f")" 2>/dev/null; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL ($case_name): $*"
  echo "--- stdout of seam launch"
  cat "$work/out" 2>/dev/null
  echo "--- stderr of seam launch"
  cat "$work/err" 2>/dev/null
  exit 1
}

# seam launch ARGS..., at most 60 s, under the environment changes of the array `with`
# (env's arguments); stdout to $work/out, stderr to $work/err; sets rc and elapsed (s).
with=()
launch() {
  local start=$SECONDS
  timeout -s KILL 60 env "${with[@]}" "$seam" launch "$@" >"$work/out" 2>"$work/err"
  rc=$?
  elapsed=$((SECONDS - start))
}

# seam launch ARGS... in the background, through the commands of the array `wrapper` (no
# `timeout` in between: the signals of a case go to launch itself), with the signals a
# shell ignores in a background job at their defaults; sets launch_pid.
wrapper=()
launch_in_background() {
  "$probe" default-signals "${wrapper[@]}" "$seam" launch "$@" >"$work/out" 2>"$work/err" &
  launch_pid=$!
}

# Waits (at most 30 s) until FILE has COUNT lines matching REGEX.
wait_for_lines() {
  local file=$1 count=$2 regex=$3
  for _ in $(seq 300); do
    if [ "$(grep -cE -- "$regex" "$work/$file")" -ge "$count" ]; then return 0; fi
    sleep 0.1
  done
  fail "waited 30 s for $count lines matching '$regex' in $file"
}

# Waits (at most 30 s) for the background launch to exit; sets rc.
wait_for_launch() {
  for _ in $(seq 300); do
    if ! kill -0 "$launch_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if kill -0 "$launch_pid" 2>/dev/null; then fail "seam launch still runs 30 s later"; fi
  wait "$launch_pid"
  rc=$?
  launch_pid=""
}

expect_rc() { [ "$rc" = "$1" ] || fail "exit status $rc, expected $1"; }
expect_line() { grep -qxF -- "$2" "$work/$1" || fail "$1 has no line '$2'"; }
expect_no_line() { ! grep -qE -- "$2" "$work/$1" || fail "$1 has a line matching '$2'"; }
expect_count() {
  local n
  n=$(grep -cE -- "$2" "$work/$1")
  [ "$n" = "$3" ] || fail "$1 has $n lines matching '$2', expected $3"
}

# A process that runs (a zombie, waiting for a parent to reap it, does not).
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# Waits (at most 30 s) until no process whose pid a child wrote to $work/pid.* runs.
wait_for_no_survivor() {
  local f
  for _ in $(seq 300); do
    local running=0
    for f in "$work"/pid.*; do
      if [ -f "$f" ] && alive "$(cat "$f")"; then running=1; fi
    done
    [ $running = 0 ] && return 0
    sleep 0.1
  done
  expect_no_survivor
}

# No process whose pid a child wrote to $work/pid.* runs any more.
expect_no_survivor() {
  local f
  for f in "$work"/pid.*; do
    [ -f "$f" ] || continue
    if alive "$(cat "$f")"; then fail "$(basename "$f") ($(cat "$f")) still runs"; fi
  done
}

expect_pid_files() {
  local n
  n=$(find "$work" -name 'pid.*' ! -name '*.tmp' | wc -l)
  [ "$n" = "$1" ] || fail "$n pid files, expected $1"
}

# The variables of rank RANK as launch_probe env prints them.
expect_env() {
  local rank=$1 world=$2 local_rank=$3 local_world=$4 port=$5
  local p="[rank $rank] "
  expect_line out "${p}RANK=$rank"
  expect_line out "${p}WORLD_SIZE=$world"
  expect_line out "${p}LOCAL_RANK=$local_rank"
  expect_line out "${p}LOCAL_WORLD_SIZE=$local_world"
  expect_line out "${p}PJRT_LOCAL_PROCESS_RANK=$local_rank"
  expect_line out "${p}PJRT_LOCAL_PROCESS_COUNT=$local_world"
  expect_line out "${p}MASTER_ADDR=127.0.0.1"
  expect_line out "${p}MASTER_PORT=$port"
  expect_line out "${p}XLA_COORDINATOR_PORT=$port"
}

# The one port every rank saw, in both variables.
the_port() {
  local ports
  ports=$(sed -nE 's/^\[rank [0-9]+\] (MASTER_PORT|XLA_COORDINATOR_PORT)=//p' "$work/out" | sort -u)
  [ "$(echo "$ports" | wc -l)" = 1 ] || fail "the ranks saw different ports: $ports"
  echo "$ports"
}

no_ports=(-u XLA_COORDINATOR_PORT -u MASTER_PORT)

case "$case_name" in
  env_2)
    # Inherited values of the variables launch sets never reach the children.
    with=("${no_ports[@]}" CPU_NUM_DEVICES=5 RANK=7 LOCAL_RANK=7 PJRT_LOCAL_PROCESS_RANK=7)
    launch -n 2 --master-port 29501 -- "$probe" env
    expect_rc 0
    expect_env 0 2 0 2 29501
    expect_env 1 2 1 2 29501
    expect_line out "[rank 0] CPU_NUM_DEVICES=5"  # inherited: no --devices-per-process
    expect_count out '.' 20
    ;;
  env_4)  # /usr/bin/env itself, found through PATH
    launch -n 4 --master-port 29502 -- env
    expect_rc 0
    for r in 0 1 2 3; do
      for v in RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r LOCAL_WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 \
        MASTER_PORT=29502 XLA_COORDINATOR_PORT=29502; do
        expect_line out "[rank $r] $v"
      done
    done
    expect_no_line out '^[^[]'
    ;;
  prefix)
    launch -n 3 -- "$probe" lines 5
    expect_rc 0
    for r in 0 1 2; do
      grep -E "^\[rank $r\] out" "$work/out" >"$work/rank$r"
      seq 0 4 | sed "s/.*/[rank $r] out & of rank $r/" | diff - "$work/rank$r" >/dev/null ||
        fail "rank $r's stdout lines are not all there in order"
      expect_line out "[rank $r] split line of rank $r"
      expect_line out "[rank $r] tail of rank $r"
      expect_count err "^\[rank $r\] err [0-4] of rank $r\$" 5
    done
    expect_count out '.' 21
    expect_count err '.' 15
    expect_no_line out 'err'
    ;;
  fail_status)
    launch -n 3 -- "$probe" fail 1 3 "$work"
    expect_rc 1
    expect_line err "seam launch: rank 1 exited with status 3; the other ranks were stopped"
    [ "$elapsed" -lt 30 ] || fail "took $elapsed s: the other ranks were not stopped"
    expect_pid_files 3
    expect_no_line out 'was not stopped'
    expect_no_survivor
    ;;
  preempted)  # a rank's status 143 is a preemption: the others are stopped, launch exits 143
    # and does not restart the job, even with --max-restarts
    launch -n 3 --max-restarts 2 -- "$probe" fail 1 143 "$work"
    expect_rc 143
    expect_line err "seam launch: rank 1 exited with status 143 (preempted: it stopped at its preemption sync point); the job is not restarted"
    expect_no_line err 'restarting'
    [ "$elapsed" -lt 30 ] || fail "took $elapsed s: the other ranks were not stopped"
    expect_pid_files 3
    expect_no_survivor
    ;;
  fail_signal)
    launch -n 2 -- "$probe" kill 1 9 "$work"
    expect_rc 1
    expect_line err "seam launch: rank 1 was killed by signal 9 (SIGKILL); the other ranks were stopped"
    [ "$elapsed" -lt 30 ] || fail "took $elapsed s: the other ranks were not stopped"
    expect_pid_files 2
    expect_no_survivor
    ;;
  cause_first)  # rank 1 killed, rank 0 ended with a status, both before launch looks again:
    # the killed rank is named (launch is stopped while the two end)
    launch_in_background -n 2 -- "$probe" wait-signal "$work"
    wait_for_lines out 2 'ready'
    kill -STOP "$launch_pid"
    kill -TERM "$(cat "$work/pid.0")"
    kill -KILL "$(cat "$work/pid.1")"
    wait_for_no_survivor
    kill -CONT "$launch_pid"
    wait_for_launch
    expect_rc 1
    expect_line err "seam launch: rank 1 was killed by signal 9 (SIGKILL)"
    ;;
  grace_period)  # rank 1 ignores SIGTERM: SIGKILL after the grace period
    launch -n 2 --grace-period 1 -- "$probe" fail 0 4 "$work" ignore-term
    expect_rc 1
    expect_line err "seam launch: rank 0 exited with status 4; the other ranks were stopped (1 rank still running after the 1 s grace period got SIGKILL)"
    [ "$elapsed" -lt 30 ] || fail "took $elapsed s"
    expect_no_survivor
    ;;
  sigint | sigterm)
    sig=$([ "$case_name" = sigint ] && echo INT || echo TERM)
    launch_in_background -n 2 -- "$probe" wait-signal "$work"
    wait_for_lines out 2 'ready'
    kill -"$sig" "$launch_pid"
    wait_for_launch
    expect_rc $([ "$sig" = INT ] && echo 130 || echo 143)
    expect_line out "[rank 0] rank 0 got SIG$sig"
    expect_line out "[rank 1] rank 1 got SIG$sig"
    expect_line err "seam launch: received SIG$sig and forwarded it to every rank"
    expect_no_survivor
    ;;
  second_sigint)  # the children stay after the first Ctrl-C; the second one kills them
    launch_in_background -n 2 --grace-period 600 -- "$probe" wait-signal "$work" stay
    wait_for_lines out 2 'ready'
    kill -INT "$launch_pid"
    wait_for_lines out 2 'got SIGINT$'
    kill -INT "$launch_pid"
    wait_for_launch
    expect_rc 130
    expect_line err "seam launch: received SIGINT and forwarded it to every rank; 2 ranks still running got SIGKILL"
    expect_no_survivor
    ;;
  killed)  # launch dies by SIGKILL: its children die too (PR_SET_PDEATHSIG)
    launch_in_background -n 2 -- "$probe" wait-signal "$work"
    wait_for_lines out 2 'ready'
    kill -KILL "$launch_pid"
    wait_for_launch
    expect_rc 137
    wait_for_no_survivor
    expect_no_line out 'got'
    ;;
  killed_helpers)  # launch dies by SIGKILL: what the ranks started dies too (the guardian)
    mkdir "$work/tmp"
    with=()
    TMPDIR="$work/tmp" launch_in_background -n 2 -- sh -c \
      "sleep 60 & echo \$! > $work/pid.helper.\$RANK; exec $probe wait-signal $work"
    wait_for_lines out 2 'ready'
    [ -f "$work/pid.helper.0" ] && [ -f "$work/pid.helper.1" ] || fail "no helper pid files"
    [ "$(find "$work/tmp" -name 'seam-job-secret-*' | wc -l)" = 1 ] || fail "no secret file"
    kill -KILL "$launch_pid"
    wait_for_launch
    expect_rc 137
    wait_for_no_survivor
    [ -z "$(ls -A "$work/tmp")" ] || fail "left in TMPDIR: $(ls -A "$work/tmp")"
    ;;
  secret)  # each attempt's ranks share a fresh private secret file, removed at the end
    mkdir "$work/tmp"
    with=(TMPDIR="$work/tmp")
    launch -n 2 -- sh -c 'stat -c "mode %a" "$SEAM_JOB_SECRET_FILE"; wc -c < "$SEAM_JOB_SECRET_FILE"; cat "$SEAM_JOB_SECRET_FILE"'
    expect_rc 0
    expect_line out "[rank 0] mode 600"
    expect_line out "[rank 1] 65"
    [ "$(grep -cE '^\[rank [01]\] [0-9a-f]{64}$' "$work/out")" = 2 ] || fail "no secret of 64 hex digits"
    [ "$(grep -E '^\[rank [01]\] [0-9a-f]{64}$' "$work/out" | cut -d' ' -f3 | sort -u | wc -l)" = 1 ] ||
      fail "the ranks got different secrets"
    [ -z "$(ls -A "$work/tmp")" ] || fail "left in TMPDIR: $(ls -A "$work/tmp")"
    # A secret file of the user's: checked first, and handed on unchanged.
    printf 'a-secret-of-the-users-own-0123\n' > "$work/mine"
    chmod 644 "$work/mine"
    with=(SEAM_JOB_SECRET_FILE="$work/mine")
    launch -n 2 -- true
    expect_rc 1
    grep -q "seam launch: The job's secret file SEAM_JOB_SECRET_FILE='$work/mine' has mode 0644" \
      "$work/err" || fail "no refusal of a mode 0644 secret file"
    chmod 600 "$work/mine"
    launch -n 2 -- sh -c 'echo "file $SEAM_JOB_SECRET_FILE"'
    expect_rc 0
    expect_line out "[rank 1] file $work/mine"
    ;;
  nohup)  # started with SIGHUP ignored: launch and the children keep ignoring it
    wrapper=(nohup)
    launch_in_background -n 2 -- "$probe" wait-signal "$work"
    wait_for_lines out 2 'ready, SIGHUP ignored$'
    kill -HUP "$launch_pid"
    sleep 1
    kill -0 "$launch_pid" 2>/dev/null || fail "SIGHUP ended seam launch"
    kill -TERM "$launch_pid"
    wait_for_launch
    expect_rc 143
    expect_line out "[rank 1] rank 1 got SIGTERM"
    expect_no_survivor
    ;;
  port_precedence)  # --master-port > XLA_COORDINATOR_PORT > MASTER_PORT > a free port
    with=(XLA_COORDINATOR_PORT=2222 MASTER_PORT=3333)
    launch -n 2 --master-port 1111 -- "$probe" env
    expect_rc 0
    [ "$(the_port)" = 1111 ] || fail "--master-port does not come first"
    launch -n 2 -- "$probe" env
    [ "$(the_port)" = 2222 ] || fail "XLA_COORDINATOR_PORT does not come before MASTER_PORT"
    with=(XLA_COORDINATOR_PORT= MASTER_PORT=3333)
    launch -n 2 -- "$probe" env
    [ "$(the_port)" = 3333 ] || fail "MASTER_PORT is not used when XLA_COORDINATOR_PORT is empty"
    with=("${no_ports[@]}")
    launch -n 4 -v -- "$probe" env
    expect_rc 0
    port=$(the_port)
    { [ "$port" -ge 1 ] && [ "$port" -le 65535 ]; } || fail "free port '$port'"
    expect_count out "^\[rank [0-3]\] (MASTER_PORT|XLA_COORDINATOR_PORT)=$port\$" 8
    expect_line err "seam launch: node 0 of 1: ranks 0 to 3 of 4; coordinator 127.0.0.1:$port (port from free)"
    with=(MASTER_PORT=http)
    launch -n 1 -- true
    expect_rc 1
    expect_line err "seam launch: MASTER_PORT='http' is not a port (an integer from 1 to 65535)"
    ;;
  devices)
    with=(CPU_NUM_DEVICES=5)
    launch -n 2 --devices-per-process 3 --master-port 29504 -- "$probe" env
    expect_rc 0
    expect_line out "[rank 0] CPU_NUM_DEVICES=3"
    expect_line out "[rank 1] CPU_NUM_DEVICES=3"
    ;;
  multi_host)
    launch -n 2 --nnodes 2 --node-rank 1 --master-addr 127.0.0.1 --master-port 29505 -- \
      "$probe" env
    expect_rc 0
    expect_env 2 4 0 2 29505
    expect_env 3 4 1 2 29505
    expect_no_line out '^\[rank [01]\]'
    ;;
  orphan)  # a child's own child holds the pipes after the child exits: killed, not waited for
    launch -n 2 -- sh -c "sleep 50 & echo \$! > $work/pid.\$RANK; echo started"
    expect_rc 0
    expect_line out "[rank 1] started"
    [ "$elapsed" -lt 30 ] || fail "took $elapsed s"
    expect_pid_files 2
    expect_no_survivor
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "PASS ($case_name)"
