#!/bin/bash
# core_symbols_test.sh LIBSEAM_CORE SEAM_CLI: libseam_core.so, the library ordinary programs
# link, holds no symbol of the remote server (src/runtime/serve and the generated service of
# src/proto/remote.proto), neither defined nor used: only `seam serve` links the server
# (docs/architecture.md, "The runtime's libraries"). Two controls keep the check honest: the
# library's symbols are read (the remote client's are there), and the `seam` command, which
# links the server, shows the same pattern does find it.
set -uo pipefail
core=$1
cli=$2
server='seam::runtime::(RemoteService|RemoteSessions|StallWatch|RateLimitedLog)\b|seam::remote::Remote::(Service|AsyncService|CallbackService|StreamedUnaryService|SplitStreamedService|StreamedService|With[A-Za-z]*Method)\b'
client='seam::runtime::RemoteComputationClient\b'

# Every symbol of the file, defined or undefined: the dynamic table and, where present, the
# full one.
symbols() {
  nm -C -D "$1" 2>/dev/null
  nm -C "$1" 2>/dev/null
}

fail=0
core_symbols=$(symbols "$core")
if ! grep -Eq "$client" <<<"$core_symbols"; then
  echo "FAIL: no symbol of the remote client in $core: its symbols were not read"
  fail=1
fi
cli_symbols=$(symbols "$cli")
if ! grep -Eq "$server" <<<"$cli_symbols"; then
  echo "FAIL: no remote-server symbol in $cli either: the pattern finds nothing"
  fail=1
fi
found=$(grep -E "$server" <<<"$core_symbols" | sort -u)
if [ -n "$found" ]; then
  echo "FAIL: $core holds $(wc -l <<<"$found") symbol(s) of the remote server, e.g.:"
  head -n 10 <<<"$found"
  fail=1
fi
if [ "$fail" = 0 ]; then
  echo "OK: $(wc -l <<<"$core_symbols") symbols of $(basename "$core") read, none of the remote server"
fi
exit "$fail"
