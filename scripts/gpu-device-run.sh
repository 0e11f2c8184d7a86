#!/usr/bin/env bash
# On a GPU machine, from the repository root, everything the CUDA back-end
# is checked with: scripts/gpu-check.sh run on the CMake build's binaries
# (GPU tests, compute-sanitizer at small sizes, `cuzk bench gpu`), then the
# `cuzk` command end to end on the 2 KiB PoRep (the key loaded from its file
# to the device and timed, CUDA back-end with the points on the device only
# and streaming from host points, against the CPU), then the daemon with one CUDA
# back-end context and with two on device 0 under `cuzk bench`. Binaries
# come from scripts/gpu-carry.sh.
#
#   scripts/gpu-device-run.sh DIR     DIR = the folder gpu-carry.sh filled
#
# Environment: CZ_BENCH_ARGS (passed to `cuzk bench gpu`; default the full
# benchmark), CZ_SKIP_CHECK=1 (skip gpu-check.sh). Logs go to $OUT (default
# DIR/out): gpu-check.sh's, cli.txt, daemon.txt.
set -u
dir=$(cd "${1:?usage: gpu-device-run.sh DIR}" && pwd)
out=${OUT:-$dir/out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cz=$dir/cuzk
work=$(mktemp -d)
step() { echo "== $*"; }
fail() { echo "FAILED: $*"; echo "$*" >>"$work/fails"; }

if [ "${CZ_SKIP_CHECK:-0}" != 1 ]; then
    CZ_GPU_PROVE_PROFILE=1 OUT=$out "$(dirname "$0")/gpu-check.sh" run "$dir" || fail "gpu-check.sh"
fi

{
    step "setup 2KiB (on the GPU: the same bytes as the CPU's, tests/CMakeLists.txt)"
    CZ_GPU_SETUP_PROFILE=1 /usr/bin/time -f "setup: %e s, peak %M KiB" "$cz" setup \
        --sector-size 2KiB --out "$work/p" --backend cuda || fail "setup --backend cuda"
    sha256sum "$work"/p/*.params "$work"/p/*.vk | grep -q \
        "^d085712a54ab21b84a1c8b8cf59ff08784650371169f98afae0a3db20fa05b0a " ||
        fail "setup 2KiB: the .params is not the recorded one"
    "$cz" gen c1 --sector-size 2KiB --seed 5 --miner-id 1000 --sector-num 9 --out "$work/c1.json"
    # the key from its file to the device: the same points as the host decoder's, then timed
    # (checked and recorded, then trusted; the old host decode + upload beside it)
    params=$(ls "$work"/p/*.params)
    step "keyload: test on the 2 KiB key, bench"
    CZ_KEYLOAD_PARAMS=$params "$dir/gpu_test_gpu_keyload" || fail "gpu_test_gpu_keyload (2 KiB key)"
    "$cz" bench gpu --only keyload --params "$params" --host || fail "bench keyload"
    rm -f "$params.xxh64" # the prove below loads checked again
    for b in cuda cpu; do
        step "prove --backend $b"
        /usr/bin/time -f "prove $b: %e s, peak %M KiB" "$cz" prove --c1 "$work/c1.json" \
            --params "$work/p" --out "$work/proof.$b" --miner-id 1000 --backend $b || fail "prove $b"
    done
    step "prove --backend cuda, device capped at 1536 MiB (streaming)"
    CZ_GPU_MEM_LIMIT=1536MiB /usr/bin/time -f "prove streaming: %e s, peak %M KiB" "$cz" prove \
        --c1 "$work/c1.json" --params "$work/p" --out "$work/proof.stream" --miner-id 1000 \
        --backend cuda || fail "prove streaming"
    for b in cuda cpu stream; do
        step "verify proof.$b"
        "$cz" verify --c1 "$work/c1.json" --vk "$work/p" --proof "$work/proof.$b" --miner-id 1000 ||
            fail "verify $b"
    done
} 2>&1 | tee "$out/cli.txt"

# The daemon with one CUDA context, then with two contexts on device 0
# ([gpus] devices = [0, 0]: the multi-device path on one GPU).
for devices in "[0]" "[0, 0]"; do
    {
        step "daemon (cuda, devices = $devices) + bench"
        rm -rf "$work/d"
        mkdir -p "$work/d"
        printf '[daemon]\nlisten = "unix://%s/cuzk.sock"\n[gpus]\nbackend = "cuda"\ndevices = %s\n[srs]\nparam_cache = "%s/p"\n' \
            "$work/d" "$devices" "$work" >"$work/d/cuzk.toml"
        "$cz" daemon --config "$work/d/cuzk.toml" >"$work/d/daemon.log" 2>&1 &
        dpid=$!
        for i in $(seq 50); do [ -S "$work/d/cuzk.sock" ] && break; sleep 0.2; done
        a="unix://$work/d/cuzk.sock"
        "$cz" bench single -a "$a" --c1 "$work/c1.json" --miner-id 1000 -o "$work/proof.daemon" ||
            fail "bench single ($devices)"
        "$cz" verify --c1 "$work/c1.json" --vk "$work/p" --proof "$work/proof.daemon" \
            --miner-id 1000 || fail "verify daemon ($devices)"
        "$cz" bench batch -a "$a" --c1 "$work/c1.json" --miner-id 1000 -c 16 -j 4 ||
            fail "bench batch ($devices)"
        "$cz" bench status -a "$a"
        "$cz" bench metrics -a "$a" | grep -E "^cuzk_backend" || fail "backend metrics ($devices)"
        kill -TERM $dpid
        wait $dpid
        echo "daemon exit: $?; log tail:"
        tail -n 25 "$work/d/daemon.log"
    } 2>&1 | tee -a "$out/daemon.txt"
done
fails=$(cat "$work/fails" 2>/dev/null | wc -l)
echo "gpu-device-run: $fails failure(s)"
rm -rf "$work"
exit $((fails > 0))
