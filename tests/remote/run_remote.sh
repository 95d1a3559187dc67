#!/bin/bash
# run_remote.sh SEAM SERVER_ENV [--each-test] COMMAND...: runs COMMAND (a test program) with
# the remote client against a `seam serve` started here on 127.0.0.1, on a port the server
# picks. With --each-test, COMMAND is a googletest program whose tests must each run in a
# process of their own (as ctest runs them): it is run once per test (--gtest_filter),
# every run a new client of the same server, and fails when any of them fails.
#   SEAM        the seam command line (bin/seam)
#   SERVER_ENV  extra VAR=VALUE words for the server, space-separated ("" for none); the
#               server always gets PJRT_DEVICE=CPU
# COMMAND runs with SEAM_CLIENT=remote, SEAM_REMOTE_ADDRESS set and PJRT_DEVICE unset (a
# remote client needs none). The server is stopped afterwards whatever happens (SIGTERM,
# then SIGKILL after 5 s); a server that died during the test fails it. Exit status:
# COMMAND's, or 1 when the server failed.
set -u
seam=$1
server_env=$2
shift 2

dir=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server" 2>/dev/null
  fi
  [ -n "$server" ] && wait "$server" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

# shellcheck disable=SC2086  # SERVER_ENV is a list of words
env -u SEAM_CLIENT PJRT_DEVICE=CPU $server_env "$seam" serve --address 127.0.0.1:0 \
  >"$dir/out" 2>"$dir/err" &
server=$!

address=""
for _ in $(seq 300); do  # up to 30 s
  address=$(sed -n 's/^seam serve: listening on \([0-9.]*:[0-9]*\) .*/\1/p' "$dir/out")
  [ -n "$address" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$address" ]; then
  echo "run_remote.sh: seam serve did not start; its output:" >&2
  cat "$dir/out" "$dir/err" >&2
  exit 1
fi
echo "run_remote.sh: seam serve at $address (pid $server)"

client() { env -u PJRT_DEVICE SEAM_CLIENT=remote SEAM_REMOTE_ADDRESS="$address" "$@"; }
if [ "$1" = "--each-test" ]; then
  shift
  rc=0
  tests=$("$1" --gtest_list_tests | awk '/^[^ ]/ { suite = $1 } /^  / { print suite $1 }')
  [ -n "$tests" ] || { echo "run_remote.sh: $1 lists no tests" >&2; exit 1; }
  for test in $tests; do
    client "$@" --gtest_filter="$test" || { echo "run_remote.sh: FAILED: $test" >&2; rc=1; }
  done
else
  client "$@"
  rc=$?
fi

if ! kill -0 "$server" 2>/dev/null; then
  echo "run_remote.sh: seam serve ended during the test; its output:" >&2
  cat "$dir/out" "$dir/err" >&2
  exit 1
fi
exit $rc
