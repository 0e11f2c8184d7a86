#!/bin/sh
# post_refmodel.sh CUZK MODEL_DIR: a generated 32 GiB WindowPoSt vanilla
# proof checked by the independent reference model
# (../shared/tools/refmodels/post_snap_check.py, which decodes a bincode
# FallbackPoStSectorProof, recomputes comm_r and every Merkle path with its
# own Poseidon, and derives the challenges for sector 1 and randomness 0 --
# hence those options). Exit 77 (ctest: skipped) without python3 or the model.
set -u
cuzk=$1 model=$2/post_snap_check.py
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
[ -f "$model" ] || { echo "skipped: $model is absent"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$cuzk" gen post --kind window --sector-size 32GiB --first-sector 1 --seed 7 \
  --randomness 0000000000000000000000000000000000000000000000000000000000000000 \
  --out "$dir/req.json" --vproof-dir "$dir" || exit 1
python3 "$model" "$dir/sector-1.vproof" > "$dir/model.txt" || { cat "$dir/model.txt"; exit 1; }
cat "$dir/model.txt"
ok=$(grep -Ec '^(comm_r == Poseidon2\(comm_c, comm_r_last\): True|challenge [0-9] root ok True index [0-9]+ derived [0-9]+ True)$' "$dir/model.txt")
[ "$ok" = 11 ] || { echo "FAIL: $ok of 11 model checks passed"; exit 1; }
echo "the model accepts the generated proof (comm_r and 10 paths and challenges)"
