#!/usr/bin/env bash
# Fuzzes the decoders of untrusted input (tests/fuzz/fuzz_decoders.c) with
# libFuzzer, clang and ASan + UBSan, for SECONDS (default 60). Seeds come from
# a tiny circuit's real files, so the fuzzer starts from valid structure.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
out=build-fuzz
mkdir -p "$out/corpus"
command -v clang >/dev/null || { echo "fuzz: clang not found (apt-get install clang)"; exit 1; }

srcs="$(ls src/{util,ff,ec,poly,hash,r1cs,gadgets,groth16,filecoin}/*.c) src/daemon/config.c"
# CZ_FF_PORTABLE: under ASan clang cannot find registers for the widest
# field asm; the decoders' logic is what is fuzzed here, and the asm and
# portable field paths are tested against each other by tests/ff.
clang -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DCZ_FF_PORTABLE -march=x86-64-v3 -madx -D_GNU_SOURCE -DCZ_VERSION='"fuzz"' -Iinclude -Isrc \
  $srcs tests/fuzz/fuzz_decoders.c -lyajl -lcrypto -lpthread -lm -o "$out/fuzz_decoders"

# Seeds: parameters, verifying key and circuit of a 2^3-constraint circuit.
make build >/dev/null
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
rm -rf "$seeddir"
# C1 output (selector 0x10: auto-detect; 0x18: raw only) and base64 (0x11).
{ printf '\x10'; cat tests/vectors/c1_small.json; } >"$out/corpus/c1raw"
{ printf '\x18'; cat tests/vectors/c1_small.json; } >"$out/corpus/c1raw8"
{ printf '\x10'; cat tests/vectors/c1_small_envelope.json; } >"$out/corpus/c1env"
{ printf '\x11'; printf 'Zm9vYmE='; } >"$out/corpus/b64"
# PoSt: a 2 KiB WindowPoSt vanilla proof (0x13), the real 32 GiB one when
# ../shared/realdata has it (0x1b), a request file (0x14).
postdir=$(mktemp -d)
build/cuzk gen post --kind window --sector-size 2KiB --out "$postdir/req.json" \
  --vproof-dir "$postdir" >/dev/null 2>&1
{ printf '\x13'; cat "$postdir/sector-1.vproof"; } >"$out/corpus/post2k"
{ printf '\x14'; cat "$postdir/req.json"; } >"$out/corpus/postreq"
golden=../shared/realdata/curio-testgolden/post.vproof
[ -f "$golden" ] && { printf '\x1b'; cat "$golden"; } >"$out/corpus/post32g"
rm -rf "$postdir"
# Daemon configuration (selector 0x12; 0x1a also prints and re-parses it).
build/cuzk daemon --print-config >"$seeddir.toml"
{ printf '\x12'; cat "$seeddir.toml"; } >"$out/corpus/toml"
{ printf '\x1a'; cat "$seeddir.toml"; } >"$out/corpus/toml8"
rm -f "$seeddir.toml"

"$out/fuzz_decoders" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=4096 \
  -print_final_stats=1 "$out/corpus"
