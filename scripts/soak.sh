#!/bin/sh
# scripts/soak.sh — the daemon under mixed traffic for a set time.
#
#   CZ_SOAK_MIN=60 scripts/soak.sh [BUILD_DIR]
#
# Starts `cuzk daemon` (CPU back-end, one synthesis worker and one thread:
# the load stays near one core) on a unix socket in $WORK with HTTP
# /metrics on a loopback port, and drives it with scripts/soak.mjs
# (@grpc/grpc-js from tests/oracle: `npm ci` there first): PoRep C2,
# WinningPoSt, WindowPoSt and SnapDeals at 2 KiB, cancels, duplicates,
# bad requests, GetStatus and /metrics polls. Then SIGTERM: the daemon must
# drain and exit 0. The report (outcomes, latency percentiles per kind, RSS
# and open descriptors over time, the daemon's counters against the
# client's) is printed and kept in $WORK/soak.log; the samples in
# $WORK/soak-samples.json, the daemon's log in $WORK/daemon.log.
#
# Knobs: CZ_SOAK_MIN (minutes of traffic, default 60), CZ_SOAK_LANES
# (requests in flight, default 2), CZ_SOAK_SEED (replays the choices),
# CZ_SOAK_THREADS ([synthesis] threads, default 1), WORK (default
# BUILD_DIR/soak), PARAMS (the 2 KiB keys, default BUILD_DIR/params; made
# with `cuzk setup` when missing: a few minutes on 2 cores).
# Exit 0 when nothing was lost or unexpected and the daemon exited 0.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
cuzk=$build/cuzk
work=${WORK:-$build/soak}
params=${PARAMS:-$build/params}
oracle=$here/tests/oracle
[ -x "$cuzk" ] || { echo "soak: $cuzk not built" >&2; exit 2; }
[ -d "$oracle/node_modules/@grpc/grpc-js" ] || {
  echo "soak: @grpc/grpc-js missing: cd tests/oracle && npm ci" >&2; exit 2; }
mkdir -p "$work" "$params"

# Keys: kept when present (cuzk setup keeps existing files).
for kind in porep winning-post window-post snap; do
  "$cuzk" setup --kind $kind --sector-size 2KiB --out "$params" >"$work/setup-$kind.log" 2>&1 ||
    { echo "soak: cuzk setup --kind $kind failed (see $work/setup-$kind.log)" >&2; exit 1; }
done
"$cuzk" gen c1 --sector-size 2KiB --out "$work/c1.json" >/dev/null
"$cuzk" gen post --kind winning --sector-size 2KiB --sectors 2 --seed 3 --out "$work/winning.json" >/dev/null
"$cuzk" gen post --kind window --sector-size 2KiB --sectors 2 --partition 1 --seed 4 \
  --out "$work/window.json" >/dev/null
"$cuzk" gen snap --sector-size 2KiB --seed 5 --out "$work/snap.json" >/dev/null

sock=$work/cuzk.sock
cat >"$work/cuzk.toml" <<EOF
[daemon]
listen = "unix://$sock"
metrics_listen = "127.0.0.1:0"
drain_timeout = "60s"
[gpus]
backend = "cpu"
[synthesis]
threads = ${CZ_SOAK_THREADS:-1}
[pipeline]
max_parallel_synthesis = 1
[srs]
param_cache = "$params"
[engine]
result_retention = "60s"
EOF
"$cuzk" daemon --config "$work/cuzk.toml" >"$work/daemon.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT INT TERM
port=
for _ in $(seq 1 300); do
  port=$(sed -n 's/.*HTTP \/metrics on .* (port \([0-9]*\)).*/\1/p' "$work/daemon.log")
  [ -n "$port" ] && [ -S "$sock" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "soak: the daemon did not start (see $work/daemon.log)" >&2; exit 1; }
echo "soak: daemon pid $pid, socket $sock, /metrics on port $port, $(nproc) cores, commit" \
  "$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%FT%TZ)"

rc=0
node "$here/scripts/soak.mjs" "$oracle" "$here/proto/cuzk/v1/proving.proto" "$sock" "$port" "$pid" \
  "$work" 2>&1 | tee "$work/soak.log" || rc=1
# tee hides node's status: the report's verdict line says it
grep -q "^soak: .* unexpected outcome\|^soak: the daemon's counters" "$work/soak.log" && rc=1

kill -TERM $pid
trap - EXIT INT TERM
dstatus=0
wait $pid || dstatus=$?
echo "soak: daemon exit status $dstatus after SIGTERM" | tee -a "$work/soak.log"
[ $dstatus -eq 0 ] || rc=1
exit $rc
