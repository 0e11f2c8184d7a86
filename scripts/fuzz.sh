#!/usr/bin/env bash
# Fuzzes the decoders of untrusted input (tests/fuzz/fuzz_decoders.c) with
# libFuzzer, clang and ASan + UBSan. Seeds come from a tiny circuit's real
# files, small C1 documents, a 2 KiB sector's C1 and requests around it
# (tests/fuzz/make_seeds.c), so the fuzzer starts from valid structure.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   no TARGET: one run over every decoder (the first byte of an input picks
#     it) for SECONDS (default 60), corpus build-fuzz/corpus;
#   TARGETs: each decoder alone (CZ_FUZZ_TARGET pins it) for SECONDS, with a
#     corpus of its own (build-fuzz/corpus-TARGET, kept between runs); a line
#     per run (runs, seconds, corpus files and bytes, outcome) is appended to
#     build-fuzz/summary.txt. TARGET is one of: vk params proof g1c g1u g2c
#     g2u r1cs c1 base64 config czc request post postreq snap (SnapDeals
#     partition proof and request file) records (a parameter file's .dev
#     and .blake2b records), or "all" for every one in turn. Run it in the background at the lowest priority with
#     `nice -n 19 scripts/fuzz.sh SECONDS all &`; build-fuzz/summary.txt
#     and build-fuzz/run-TARGET.log tell how far it got. CZ_FUZZ_JOBS=N
#     runs N targets at a time (default 1; each takes one core).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
out=build-fuzz
mkdir -p "$out/corpus"
command -v clang >/dev/null || { echo "fuzz: clang not found (apt-get install clang)"; exit 1; }

# The build directory provides the seeds' tools and the protobuf-c code.
[ -x build/cuzk ] && [ -f build/proto/cuzk/v1/proving.pb-c.c ] || make build >/dev/null
proto=build/proto
srcs="$(ls src/{util,ff,ec,poly,hash,r1cs,gadgets,groth16,engine}/*.c src/filecoin/*/*.c)"
srcs="$srcs src/gpu/gpu_stub.c src/gpu/groth16.c src/gpu/srs.c src/gpu/plan.c src/gpu/settings.c"
srcs="$srcs src/daemon/config.c"
srcs="$srcs src/daemon/wire.c"
srcs="$srcs src/daemon/request.c $proto/cuzk/v1/proving.pb-c.c"
# CZ_FF_PORTABLE: under ASan clang cannot find registers for the widest
# field asm; the decoders' logic is what is fuzzed here, and the asm and
# portable field paths are tested against each other by tests/ff.
cflags="-std=c11 -O1 -g -DCZ_FF_PORTABLE -march=x86-64-v3 -madx -D_GNU_SOURCE"
cflags="$cflags -DCZ_VERSION=\"fuzz\" -Iinclude -Isrc -I$proto"
libs="-lyajl -lcrypto -lprotobuf-c -lpthread -lm"
# shellcheck disable=SC2086
clang $cflags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  $srcs tests/fuzz/fuzz_decoders.c $libs -o "$out/fuzz_decoders"
# shellcheck disable=SC2086
clang $cflags $(ls src/{util,ff,ec,poly,hash,r1cs}/*.c src/filecoin/common/params_table*.c) \
  $proto/cuzk/v1/proving.pb-c.c \
  tests/fuzz/make_seeds.c $libs -o "$out/make_seeds"

# Seeds: parameters, verifying key and circuit of a 2^3-constraint circuit.
seeddir=$(mktemp -d)
build/cuzk bench-groth16 --log-constraints 3 --runs 1 --params "$seeddir/p" \
  --save-r1cs "$seeddir/r" >/dev/null
vk_bytes=$(( 96 * 2 + 192 * 2 + 96 + 192 + 4 + 96 * 5 ))  # alpha..delta, n_ic, ic[5]
for mode in 0 8; do
  { printf "\\x$(printf %02x $((0 + mode)))"; head -c $vk_bytes "$seeddir/p"; } >"$out/corpus/vk$mode"
  { printf "\\x$(printf %02x $((1 + mode)))"; cat "$seeddir/p"; } >"$out/corpus/params$mode"
  { printf "\\x$(printf %02x $((4 + mode)))"; head -c 96 "$seeddir/p"; } >"$out/corpus/g1u$mode"
  { printf "\\x$(printf %02x $((6 + mode)))"; head -c 384 "$seeddir/p" | tail -c 192; } >"$out/corpus/g2u$mode"
done
{ printf '\x07'; cat "$seeddir/r"; } >"$out/corpus/r1cs"
# C1 output (selector 0x10: auto-detect; 0x18: raw only) and base64 (0x11).
{ printf '\x10'; cat tests/vectors/c1_small.json; } >"$out/corpus/c1raw"
{ printf '\x18'; cat tests/vectors/c1_small.json; } >"$out/corpus/c1raw8"
{ printf '\x10'; cat tests/vectors/c1_small_envelope.json; } >"$out/corpus/c1env"
{ printf '\x11'; printf 'Zm9vYmE='; } >"$out/corpus/b64"
# PoSt (decoder 13, 14: selectors 0x15, 0x16; bit 3 set, 0x1d: strict, the
# 32 GiB shape): a 2 KiB WindowPoSt vanilla proof, the real 32 GiB one when
# ../shared/realdata has it, a request file.
# SnapDeals (decoder 15): a 2 KiB partition proof (0x17) and its request (0x1f).
postdir=$(mktemp -d)
build/cuzk gen post --kind window --sector-size 2KiB --out "$postdir/req.json" \
  --vproof-dir "$postdir" >/dev/null 2>&1
{ printf '\x15'; cat "$postdir/sector-1.vproof"; } >"$out/corpus/post2k"
{ printf '\x16'; cat "$postdir/req.json"; } >"$out/corpus/postreq"
golden=../shared/realdata/curio-testgolden/post.vproof
[ -f "$golden" ] && { printf '\x1d'; cat "$golden"; } >"$out/corpus/post32g"
rm -rf "$postdir"
snapdir=$(mktemp -d)
build/cuzk gen snap --sector-size 2KiB --out "$snapdir/req.json" --vproof-dir "$snapdir" \
  >/dev/null 2>&1
{ printf '\x17'; cat "$snapdir/partition-0.vproof"; } >"$out/corpus/snap2k"
{ printf '\x1f'; cat "$snapdir/req.json"; } >"$out/corpus/snapreq"
rm -rf "$snapdir"
# Daemon configuration (selector 0x12; 0x1a also prints and re-parses it).
build/cuzk daemon --example-config >"$seeddir/example.toml"
{ printf '\x12'; cat "$seeddir/example.toml"; } >"$out/corpus/toml"
{ printf '\x1a'; cat "$seeddir/example.toml"; } >"$out/corpus/toml8"
# A 2 KiB sector's C1 (valid: it passes the vanilla verifier), a small
# pre-compiled circuit and cuzk.v1 requests around the C1.
build/cuzk gen c1 --sector-size 2KiB --seed 7 --miner-id 1000 --sector-num 3 \
  --out "$seeddir/c1-2k.json" >/dev/null
{ printf '\x10'; cat "$seeddir/c1-2k.json"; } >"$out/corpus/c1-2k"
"$out/make_seeds" "$out/corpus" "$seeddir/c1-2k.json"
rm -rf "$seeddir"

run() { # run NAME TARGET_NUMBER MAX_LEN
  local name=$1 target=$2 max_len=$3 dir="$out/corpus-$1" log="$out/run-$1.log"
  mkdir -p "$dir"
  # this target's seeds (the selector's target bits are ignored when pinned)
  for f in "$out"/corpus/*; do
    local b
    b=$(head -c1 "$f" | od -An -tu1 | tr -d ' ')
    [ $(( (b & 7) | ((b >> 4 & 1) << 3) )) = "$target" ] && cp -n "$f" "$dir/"
  done
  # a pinned-only target (16 and up) takes the seeds named after it
  [ "$target" -ge 16 ] && cp -n "$out"/corpus/"$name"-* "$dir/" 2>/dev/null
  true
  echo "fuzz: $name (target $target) for $secs s"
  local rc=0
  CZ_FUZZ_TARGET=$target "$out/fuzz_decoders" -max_total_time="$secs" -max_len="$max_len" \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/crash-$name-" "$dir" \
    >"$log" 2>&1 || rc=$?
  local runs time files bytes
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
  time=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log" | tail -1)
  files=$(find "$dir" -type f | wc -l)
  bytes=$(du -sb "$dir" | cut -f1)
  local result=clean
  [ "$rc" = 0 ] || result="FINDING (exit $rc, see $log)"
  printf '%s %s %s: %s runs in %s s, corpus %s files / %s bytes, %s\n' "$(date -u +%F)" \
    "$(git rev-parse --short HEAD)" "$name" "${runs:-?}" "${time:-?}" "$files" "$bytes" \
    "$result" | tee -a "$out/summary.txt"
}

if [ $# = 0 ]; then
  "$out/fuzz_decoders" -max_total_time="$secs" -max_len=262144 -rss_limit_mb=4096 \
    -print_final_stats=1 "$out/corpus"
  exit
fi
names=(vk params proof g1c g1u g2c g2u r1cs c1 base64 config czc request post postreq snap records)
[ "$1" = all ] && set -- "${names[@]}"
for name in "$@"; do
  [[ " ${names[*]} " == *" $name "* ]] || { echo "fuzz: unknown target '$name' (${names[*]})"; exit 2; }
done
jobs=${CZ_FUZZ_JOBS:-1}
for name in "$@"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  case $name in
    vk) run vk 0 65536 ;; params) run params 1 65536 ;; proof) run proof 2 1024 ;;
    g1c) run g1c 3 256 ;; g1u) run g1u 4 256 ;; g2c) run g2c 5 512 ;; g2u) run g2u 6 512 ;;
    r1cs) run r1cs 7 65536 ;; c1) run c1 8 262144 ;; base64) run base64 9 4096 ;;
    config) run config 10 8192 ;; czc) run czc 11 65536 ;; request) run request 12 262144 ;;
    post) run post 13 65536 ;; postreq) run postreq 14 262144 ;;
    snap) run snap 15 65536 ;; records) run records 16 2048 ;;
  esac &
done
wait
