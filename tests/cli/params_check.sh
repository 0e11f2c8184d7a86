#!/bin/sh
# params_check.sh CUZK: `cuzk params check` on a fabricated directory. The
# expected digests are b2sum's (coreutils, BLAKE2b-512; Filecoin's digest is
# its first 32 hex characters), independent of cuzk's OpenSSL hashing.
set -u
cuzk=$1
command -v b2sum >/dev/null || { echo "skipped: b2sum not found"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
params=$dir/p  # the parameter directory; the outputs stay beside it
mkdir "$params"
fail=0
expect() { # expect STATUS REGEX OUTPUT-FILE: a line of OUTPUT-FILE matches
  if ! grep -Eq -- "$2" "$3"; then echo "FAIL: no line matches /$2/"; fail=1; fi
}
wrong=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk
dev=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk
head -c 3000 /dev/urandom > "$params/$wrong"
head -c 5000 /dev/urandom > "$params/$dev"
echo notes > "$params/notes.txt"
wrong_digest=$(b2sum -l 512 "$params/$wrong" | cut -c1-32)
dev_digest=$(b2sum -l 512 "$params/$dev" | cut -c1-32)
# the development record as `cuzk setup` writes it (docs/DESIGN.md)
printf '%s\nblake2b %s\n' "cuzk development parameters (cuzk setup): NOT a trusted setup; proofs made with this key do not verify on chain" \
  "$dev_digest" > "$params/$dev.dev"

"$cuzk" params check "$params" > "$dir/out1" 2>&1
status=$?
cat "$dir/out1"
[ $status = 1 ] || { echo "FAIL: exit status $status with a wrong digest (expected 1)"; fail=1; }
expect 1 "^  official name, digest WRONG .* $wrong \\(3000 B, digest $wrong_digest\\)\$" "$dir/out1"
expect 1 "expected digest dc1ade9929ade1708238f155343044ac" "$dir/out1"
expect 1 "^  development \\(made by cuzk setup, NOT a trusted setup\\) +$dev \\(5000 B, digest $dev_digest\\)\$" "$dir/out1"
expect 1 "^  unknown \\(not in Filecoin's v28 table\\) +notes.txt \\(6 B\\)\$" "$dir/out1"
expect 1 "^0 official, 1 WRONG digest, 1 development, 1 unknown\$" "$dir/out1"
expect 1 "^WARNING: development keys are NOT a trusted setup" "$dir/out1"
if grep -q '\.dev\|\.blake2b' "$dir/out1"; then echo "FAIL: a record is listed"; fail=1; fi
[ -f "$params/$wrong.blake2b" ] || { echo "FAIL: no digest record written"; fail=1; }

# without the wrong file: exit status 0; the directory from the environment
rm "$params/$wrong"
FIL_PROOFS_PARAMETER_CACHE=$params "$cuzk" params check > "$dir/out2" 2>&1
status=$?
cat "$dir/out2"
[ $status = 0 ] || { echo "FAIL: exit status $status without a wrong digest (expected 0)"; fail=1; }
expect 0 "^parameters in $params " "$dir/out2"
expect 0 "^0 official, 0 WRONG digest, 1 development, 1 unknown\$" "$dir/out2"

# a development record that no longer names the file
head -c 5000 /dev/urandom > "$params/$dev"
"$cuzk" params check "$params" > "$dir/out3" 2>&1
status=$?
cat "$dir/out3"
[ $status = 1 ] || { echo "FAIL: exit status $status for a changed development key"; fail=1; }
expect 1 "^  official name, digest WRONG .* $dev " "$dir/out3"

"$cuzk" params check "$params/none" > "$dir/out4" 2>&1
status=$?
cat "$dir/out4"
[ $status = 1 ] || { echo "FAIL: exit status $status for a missing directory"; fail=1; }
expect 1 "cannot read '$params/none': No such file or directory" "$dir/out4"
[ $fail = 0 ] && echo "params check: every verdict as b2sum says"
exit $fail
