#!/bin/sh
# inputs_check.sh CUZK MODEL_DIR: `cuzk verify --print-inputs` for generated
# PoRep (2 KiB, V1_1 and V1), WindowPoSt (V1_1 and V1: partition 1 with
# two sectors, then with one, whose slot 1 repeats it), WinningPoSt (the
# challenged sector of three) and SnapDeals (2 KiB, 8 MiB: 4 partitions)
# requests, each compared by inputs_check.py with values computed without
# cuzk. Exit 77 (ctest: skipped) without python3 or the reference model.
set -u
cuzk=$1 model=$2
here=$(dirname "$0")
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
[ -f "$model/graph_check.py" ] || { echo "skipped: $model/graph_check.py is absent"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
check() { # check MODE REQUEST
  "$cuzk" verify --print-inputs "--$1" "$2" > "$dir/printed" || { cat "$dir/printed"; exit 1; }
  python3 "$here/inputs_check.py" "$3" "$model" "$2" "$dir/printed" || exit 1
}
for id in 5 0; do
  "$cuzk" gen c1 --sector-size 2KiB --registered-proof $id --seed 9 --raw \
    --out "$dir/c1-$id.json" > /dev/null 2>&1 || exit 1
  check c1 "$dir/c1-$id.json" porep
done
for id in 10 5; do
  for n in 2 1; do
    "$cuzk" gen post --kind window --sector-size 2KiB --registered-proof $id --sectors $n \
      --partition 1 --seed 4 --out "$dir/window-$id-$n.json" > /dev/null 2>&1 || exit 1
    check post "$dir/window-$id-$n.json" post
  done
done
"$cuzk" gen post --kind winning --sector-size 2KiB --sectors 3 --seed 4 \
  --out "$dir/winning.json" > /dev/null 2>&1 || exit 1
check post "$dir/winning.json" post
for size in 2KiB 8MiB; do
  "$cuzk" gen snap --sector-size $size --seed 6 --out "$dir/snap-$size.json" > /dev/null 2>&1 || exit 1
  check snap "$dir/snap-$size.json" snap
done
echo "every printed input as computed without cuzk"
