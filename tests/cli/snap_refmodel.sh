#!/bin/sh
# snap_refmodel.sh CUZK MODEL_DIR: generated 2 KiB and 8 MiB SnapDeals
# updates (cuzk gen snap) checked by snap_refmodel.py, an independent
# verifier on the reference model (../shared/tools/refmodels/
# post_snap_check.py). Exit 77 (ctest: skipped) without python3 or the model.
set -u
cuzk=$1 model=$2/post_snap_check.py
here=$(dirname "$0")
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
[ -f "$model" ] || { echo "skipped: $model is absent"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
for size in 2KiB 8MiB; do
  "$cuzk" gen snap --sector-size $size --seed 5 --out "$dir/$size.json" || exit 1
  python3 "$here/snap_refmodel.py" "$model" "$dir/$size.json" || exit 1
done
