#!/usr/bin/env bash
# A PoRep C2 of a full-size sector on a bare GPU machine, every step timed,
# in one go (about 10 minutes for 32 GiB on an H200):
#   1. development parameters made on the GPU (`cuzk setup --backend cuda`,
#      NOT a trusted setup) and the pre-compiled circuit next to them;
#   2. a sparse synthetic C1 output (`cuzk gen c1`);
#   3. `cuzk bench-porep`: one proof alone (cold: SRS load, key to the
#      device), then N together (steady state), every proof self-verified,
#      GPU steps per partition, peak host and device memory, the timeline as
#      Chrome trace-event JSON;
#   4. `cuzk prove` once more and `cuzk verify` of its proof;
#   5. the daemon with the CUDA back-end: `cuzk bench single` and `cuzk
#      verify` of its proof (CZ_SKIP_DAEMON=1 skips it);
#   6. with CZ_POST=1 (or "winning", or "window": one of the two), PoSt at
#      CZ_POST_SIZE (default SIZE): the WinningPoSt key made on the GPU beside
#      the PoRep key, `cuzk bench-post` of WinningPoSt latency (cold, key
#      resident) and of one WinningPoSt submitted during a backlog of 2 PoRep
#      proofs of step 2's C1 (CZ_SKIP_BACKLOG=1 skips it), both again per cap
#      of CZ_BACKLOG_CAPS="12GiB 24GiB" (the device capped there; CAP+syncN
#      sets CZ_GPU_SYNC=N too: "12GiB+sync3"); then the PoRep key removed (the disk holds one
#      large key), the WindowPoSt key made and `cuzk bench-post` of a
#      WindowPoSt partition of CZ_WINDOW_SECTORS sectors (default 2349, a
#      full 32 GiB partition), and (with "winning" too) one WinningPoSt
#      during a backlog of CZ_WINDOW_BACKLOG (default 4) such partitions,
#      resident and per cap. The 32 GiB WindowPoSt key (60.8 GB) and its
#      circuit (8.4 GB) do not both fit a 64 GiB disk: when the setup is
#      refused for space, the circuit it wrote stays on the disk and the key
#      goes to /dev/shm (memory; enlarged when it is too small and the
#      mount allows), the circuit linked beside it;
#   7. with CZ_SNAP=1, SnapDeals at SIZE: the PoRep and PoSt keys removed,
#      the EmptySectorUpdate key made on the GPU, a synthetic update (`cuzk
#      gen snap`), `cuzk bench-porep --snap` (one alone, then CZ_PROOFS
#      together), `cuzk prove --snap` + `cuzk verify --snap`; with CZ_POST
#      naming winning, the WinningPoSt key made again and one WinningPoSt
#      during a backlog of 2 updates, resident and per cap.
# CZ_SKIP_POREP=1 skips steps 1-5 (PoSt's backlog then has no C1: run it
# with them).
# Binaries come from scripts/gpu-carry.sh (run on the build machine).
#
#   scripts/gpu-porep-full.sh DIR [SIZE]   DIR = the folder gpu-carry.sh filled,
#                                          SIZE = 32GiB (default), 512MiB, 2KiB ...
#
# Environment: WORK (default /tmp/cuzk-full: parameters ~53 GB at 32 GiB),
# CZ_PROOFS (default 3), OUT (logs and the trace; default DIR/out),
# CZ_SKIP_PROVE=1 (skip step 4, and step 7's prove + verify),
# CZ_PROVE_MEM_LIMIT=22GiB (step 4 with the device capped there: the key
# streams from host memory, as on a 24 GB card), CZ_SKIP_BENCH=1 (skip step
# 3, step 6's uncapped WindowPoSt bench and step 7's uncapped SnapDeals
# bench: the caps and backlogs still run), CZ_BENCH_WORKERS="16 6" (bench-porep
# once per --synthesis-workers value; default once with its default),
# CZ_MEM_CAPS="48GiB 24GiB" (bench-porep once more per cap, the device
# capped there: each card size's memory plan, logged by the engine; a
# streamed 32 GiB proof takes about a minute, so few caps fit one call; a
# cap written CAP+stream runs with CZ_GPU_ABC_STREAM=1 (the default: a, b, c
# from the circuit streamed to the device), a plain CAP with
# CZ_GPU_ABC_STREAM=0 (a, b, c on the CPU cores); +nocarry sets
# CZ_GPU_MSM_CARRY=0, the H MSM as one sum per chunk, instead of the default
# carried sum; +pack sets CZ_GPU_WITNESS_PACK=1, the packed witness:
# "24GiB+stream+pack"; +wN runs N prove workers, the units one pass can
# serve: "16GiB+stream+w4"; +leanN forces the lean plan with chunks of 2^N
# points, CZ_GPU_STREAM_LEAN=1 CZ_GPU_STREAM_CHUNK=2^N: "24GiB+stream+lean24"; +syncN sets
# CZ_GPU_SYNC=N, how host threads wait for the device: "24GiB+stream+sync3")), CZ_BENCH_MEMORY=100GiB
# (bench-porep's host memory budget, --memory-budget; default physical
# memory less the engine's safety margin, 15 % of it: 107 GiB of 128), CZ_GPU_WORKERS=4 (the capped runs' --gpu-workers: prove
# workers per GPU, the units one pass over a streamed key can serve),
# CZ_SYNTH_NICE=10 (--synthesis-nice for the uncapped bench-porep and the
# WinningPoSt backlogs; a cap written CAP+nice uses it, default 10),
# CZ_BACKLOG_NICE="10" (each resident WinningPoSt backlog once more per
# value, the backlog's synthesis workers at that nice: a pair to compare),
# CZ_OTHER_CAPS="16GiB 24GiB" (step 6's WindowPoSt partition and step 7's
# SnapDeals bench once more per cap, the device capped there),
# CZ_PARTITIONS_AHEAD=6 (the capped runs' --partitions-ahead: the run-ahead
# bound, so more GPU workers need not hold more witnesses), CZ_REUSE_KEY=1 (skip step 1's setup when WORK already
# holds the PoRep key: a call made while the machine is still warm).
# The binaries must fit the device tool's 64 MiB: build them for the one
# card (-DCZ_CUDA_ARCHS=90, or 80-virtual to run the PTX a 3090 / A100
# would get through the driver's compiler); every card's code makes a
# 48 MB cuzk and 30 MB per GPU test.
set -u
dir=$(cd "${1:?usage: gpu-porep-full.sh DIR [SIZE]}" && pwd)
size=${2:-32GiB}
out=${OUT:-$dir/out}
work=${WORK:-/tmp/cuzk-full}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cz=$dir/cuzk
fails=0
step() { echo "== $(date -u +%H:%M:%S) $*"; }
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
timed() { /usr/bin/time -f "   ($1: %e s wall, peak %M KiB)" "${@:2}"; }
# capenv: the environment of a cap entry (CZ_MEM_CAPS, CZ_BACKLOG_CAPS): its
# CZ_GPU_MEM_LIMIT, and CZ_GPU_SYNC=N where it is written CAP+syncN ("12GiB+sync3").
cap_env() {
    capenv=("CZ_GPU_MEM_LIMIT=${1%%+*}")
    [[ "$1" =~ \+sync([0-9]) ]] && capenv+=("CZ_GPU_SYNC=${BASH_REMATCH[1]}")
    return 0
}
# One WinningPoSt ($work/win.json) during a backlog: backlog WHAT TAG PARAMS
# BENCH-POST-ARGS..., key resident and per cap of CZ_BACKLOG_CAPS; the
# trace goes to trace-backlog[-TAG][-CAP].json.
backlog() {
    local what=$1 tag=${2:+-$2} params=$3
    shift 3
    if [ "${CZ_SKIP_BACKLOG:-0}" != 1 ]; then
        step "bench-post: WinningPoSt $psize during a backlog of $what"
        timed "bench-post backlog$tag" "$cz" bench-post --params "$params" --backend cuda \
            --winning "$work/win.json" --runs 1 "$@" --trace "$out/trace-backlog$tag.json" \
            ${CZ_SYNTH_NICE:+--synthesis-nice "$CZ_SYNTH_NICE"} ||
            fail "bench-post backlog$tag"
        for nice in ${CZ_BACKLOG_NICE:-}; do
            step "bench-post: WinningPoSt $psize during a backlog of $what, synthesis at nice $nice"
            timed "bench-post backlog$tag nice $nice" "$cz" bench-post --params "$params" \
                --backend cuda --winning "$work/win.json" --runs 1 "$@" \
                --trace "$out/trace-backlog$tag-nice$nice.json" --synthesis-nice "$nice" ||
                fail "bench-post backlog$tag (nice $nice)"
        done
    fi
    for cap in ${CZ_BACKLOG_CAPS:-}; do
        step "bench-post: WinningPoSt $psize during a backlog of $what, device capped at $cap"
        cap_env "$cap"
        timed "bench-post backlog$tag $cap" env "${capenv[@]}" \
            "$cz" bench-post --params "$params" --backend cuda --winning "$work/win.json" \
            --runs 1 "$@" ${CZ_SYNTH_NICE:+--synthesis-nice "$CZ_SYNTH_NICE"} \
            --trace "$out/trace-backlog$tag-${cap//+/-}.json" || fail "bench-post backlog$tag ($cap)"
    done
}

{
    nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv 2>&1
    df -h "$work" | tail -1
    if [ "${CZ_SKIP_POREP:-0}" != 1 ]; then
        # a warm machine may still hold another kind's key: the disk holds one
        rm -f "$work"/p/*empty-sector-update* "$work"/p/*proof-of-spacetime*
        # a call cut off mid-setup leaves its process on the device and its
        # temporary (25 GB and more) on the disk, where the next setup then
        # finds no room
        if pgrep -x cuzk >/dev/null; then
            echo "killing the cuzk processes an earlier call left: $(pgrep -x cuzk | tr '\n' ' ')"
            pkill -9 -x cuzk
            sleep 2
        fi
        rm -f "$work"/p/*.tmp-*
        if [ "${CZ_REUSE_KEY:-0}" = 1 ] && ls "$work"/p/*stacked-proof-of-replication*.params \
            >/dev/null 2>&1; then
            step "setup $size: the key a warm machine kept (CZ_REUSE_KEY=1)"
        else
            step "setup $size on the GPU"
            timed setup "$cz" setup --sector-size "$size" --backend cuda --out "$work/p" || fail setup
        fi
        ls -l "$work/p"
        step "gen c1 $size"
        timed gen "$cz" gen c1 --sector-size "$size" --seed 11 --miner-id 1000 --sector-num 7 \
            --out "$work/c1.json" || fail "gen c1"
        [ "${CZ_SKIP_BENCH:-0}" = 1 ] && CZ_BENCH_WORKERS=none
        for w in ${CZ_BENCH_WORKERS:-default}; do
            [ "$w" = none ] && continue
            step "bench-porep ($size, ${CZ_PROOFS:-3} together after one alone, synthesis workers $w)"
            args=(${CZ_BENCH_MEMORY:+--memory-budget "$CZ_BENCH_MEMORY"}
                ${CZ_SYNTH_NICE:+--synthesis-nice "$CZ_SYNTH_NICE"})
            [ "$w" = default ] || args+=(--synthesis-workers "$w")
            timed bench-porep "$cz" bench-porep --c1 "$work/c1.json" --params "$work/p" \
                --miner-id 1000 --proofs "${CZ_PROOFS:-3}" --backend cuda "${args[@]}" \
                --trace "$out/trace-$w.json" || fail "bench-porep ($w)"
        done
        for cap in ${CZ_MEM_CAPS:-}; do
            # CAP+stream: a, b, c from the circuit streamed to the device
            # (CZ_GPU_ABC_STREAM=1) where they would be evaluated on the CPU;
            # +nocarry: the H MSM as one sum per chunk (CZ_GPU_MSM_CARRY=0);
            # +pack: the packed witness (CZ_GPU_WITNESS_PACK=1); +nice: the
            # synthesis workers at nice ${CZ_SYNTH_NICE:-10} (--synthesis-nice);
            # +leanN: the lean plan forced, in chunks of 2^N points; +syncN:
            # CZ_GPU_SYNC=N (how host threads wait for the device)
            cap_env "$cap"
            abc=0 carry=1 pack=${CZ_GPU_WITNESS_PACK:-0} nice=0
            workers=${CZ_GPU_WORKERS:-} force=()
            [[ "$cap" =~ \+w([0-9]+) ]] && workers=${BASH_REMATCH[1]}
            [[ "$cap" =~ \+lean([0-9]+) ]] &&
                force=(CZ_GPU_STREAM_LEAN=1 CZ_GPU_STREAM_CHUNK=$((1 << BASH_REMATCH[1])))
            [[ "$cap" == *+stream* ]] && abc=1
            [[ "$cap" == *+nocarry* ]] && carry=0
            [[ "$cap" == *+pack* ]] && pack=1
            [[ "$cap" == *+nice* ]] && nice=${CZ_SYNTH_NICE:-10}
            nice_arg=$([ "$nice" = 0 ] || echo "$nice")
            step "bench-porep ($size, ${capenv[*]}, streamed circuit $abc, carried H MSM $carry, packed witness $pack, synthesis nice $nice, GPU workers ${workers:-default}${force[*]:+, ${force[*]}})"
            timed "bench-porep $cap" env "${capenv[@]}" CZ_GPU_ABC_STREAM=$abc \
                CZ_GPU_MSM_CARRY=$carry CZ_GPU_WITNESS_PACK="$pack" "${force[@]}" \
                "$cz" bench-porep --c1 "$work/c1.json" --params "$work/p" --miner-id 1000 \
                --proofs "${CZ_PROOFS:-3}" --backend cuda --trace "$out/trace-${cap//+/-}.json" \
                ${workers:+--gpu-workers "$workers"} \
                ${CZ_PARTITIONS_AHEAD:+--partitions-ahead "$CZ_PARTITIONS_AHEAD"} \
                ${nice_arg:+--synthesis-nice "$nice_arg"} \
                ${CZ_BENCH_MEMORY:+--memory-budget "$CZ_BENCH_MEMORY"} || fail "bench-porep ($cap)"
        done
        if [ "${CZ_SKIP_PROVE:-0}" != 1 ]; then
            step "prove + verify${CZ_PROVE_MEM_LIMIT:+ (device capped at $CZ_PROVE_MEM_LIMIT)}"
            timed prove env ${CZ_PROVE_MEM_LIMIT:+CZ_GPU_MEM_LIMIT=$CZ_PROVE_MEM_LIMIT} "$cz" prove \
                --c1 "$work/c1.json" --params "$work/p" --miner-id 1000 --backend cuda \
                --out "$work/proof.bin" || fail prove
            "$cz" verify --c1 "$work/c1.json" --vk "$work/p" --proof "$work/proof.bin" \
                --miner-id 1000 || fail verify
        fi
        if [ "${CZ_SKIP_DAEMON:-0}" != 1 ]; then
            step "daemon (cuda) + bench single + verify"
            mkdir -p "$work/d"
            printf '[daemon]\nlisten = "unix://%s/cuzk.sock"\n[gpus]\nbackend = "cuda"\n[srs]\nparam_cache = "%s/p"\n' \
                "$work/d" "$work" >"$work/d/cuzk.toml"
            "$cz" daemon --config "$work/d/cuzk.toml" >"$out/daemon.log" 2>&1 &
            dpid=$!
            for _ in $(seq 100); do [ -S "$work/d/cuzk.sock" ] && break; sleep 0.2; done
            a="unix://$work/d/cuzk.sock"
            timed "bench single" "$cz" bench single -a "$a" --c1 "$work/c1.json" --miner-id 1000 \
                -o "$work/proof.daemon" || fail "bench single"
            "$cz" verify --c1 "$work/c1.json" --vk "$work/p" --proof "$work/proof.daemon" \
                --miner-id 1000 || fail "verify daemon"
            "$cz" bench status -a "$a"
            kill -TERM $dpid
            wait $dpid
            echo "daemon exit: $?"
        fi
    fi
    post=${CZ_POST:-0}
    [ "$post" = 1 ] && post="winning window"
    psize=${CZ_POST_SIZE:-$size}
    if [[ " $post " == *" winning "* ]]; then
        step "setup winning-post $psize on the GPU"
        timed "setup winning" "$cz" setup --kind winning-post --sector-size "$psize" \
            --backend cuda --out "$work/p" || fail "setup winning-post"
        "$cz" gen post --kind winning --sector-size "$psize" --sectors 3 --seed 4 \
            --out "$work/win.json" || fail "gen post winning"
        step "bench-post: WinningPoSt $psize"
        timed "bench-post winning" "$cz" bench-post --params "$work/p" --backend cuda \
            --winning "$work/win.json" --runs 5 || fail "bench-post winning"
        for cap in ${CZ_BACKLOG_CAPS:-}; do
            step "bench-post: WinningPoSt $psize, device capped at $cap"
            cap_env "$cap"
            timed "bench-post winning $cap" env "${capenv[@]}" "$cz" bench-post \
                --params "$work/p" --backend cuda --winning "$work/win.json" --runs 5 ||
                fail "bench-post winning ($cap)"
        done
        [ -f "$work/c1.json" ] && backlog "2 PoRep $size proofs" "" "$work/p" \
            --backlog-c1 "$work/c1.json" --backlog 2 --miner-id 1000
    fi
    if [[ " $post " == *" window "* ]]; then
        rm -f "$work"/p/*stacked-proof-of-replication*
        wdir=$work/p
        step "setup window-post $psize on the GPU"
        timed "setup window" "$cz" setup --kind window-post --sector-size "$psize" \
            --backend cuda --out "$wdir" 2>&1 | tee "$work/setup-window.txt"
        rc=${PIPESTATUS[0]}
        if [ "$rc" != 0 ] && grep -q "the key needs .* free" "$work/setup-window.txt"; then
            wdir=/dev/shm/cuzk-window
            mkdir -p "$wdir"
            czc=$(sed -nE 's/^circuit (.*\.czc): .*/\1/p' "$work/setup-window.txt" | head -1)
            ln -sf "$czc" "$wdir/$(basename "$czc")"
            avail=$(df --output=avail -k /dev/shm | tail -1)
            [ "$avail" -lt $((64 << 20)) ] && mount -o remount,size=$((100 << 30)) /dev/shm
            df -h /dev/shm | tail -1
            step "setup window-post $psize on the GPU, the key in $wdir (memory)"
            timed "setup window" "$cz" setup --kind window-post --sector-size "$psize" \
                --backend cuda --out "$wdir" || fail "setup window-post"
        elif [ "$rc" != 0 ]; then
            fail "setup window-post"
        fi
        timed "gen window" "$cz" gen post --kind window --sector-size "$psize" \
            --sectors "${CZ_WINDOW_SECTORS:-2349}" --seed 4 --partition 1 \
            --out "$work/window.json" || fail "gen post window"
        if [ "${CZ_SKIP_BENCH:-0}" != 1 ]; then
            step "bench-post: WindowPoSt $psize partition"
            timed "bench-post window" "$cz" bench-post --params "$wdir" --backend cuda \
                --window "$work/window.json" --runs 3 --trace "$out/trace-window.json" ||
                fail "bench-post window"
        fi
        for cap in ${CZ_OTHER_CAPS:-}; do
            step "bench-post: WindowPoSt $psize partition, device capped at $cap"
            timed "bench-post window $cap" env CZ_GPU_MEM_LIMIT="$cap" "$cz" bench-post \
                --params "$wdir" --backend cuda --window "$work/window.json" --runs 3 \
                --trace "$out/trace-window-$cap.json" || fail "bench-post window ($cap)"
        done
        if [[ " $post " == *" winning "* ]]; then
            # the WinningPoSt key beside the WindowPoSt key
            for f in "$work"/p/*proof-of-spacetime*; do
                [ -e "$wdir/$(basename "$f")" ] || ln -s "$f" "$wdir/"
            done
            backlog "${CZ_WINDOW_BACKLOG:-4} WindowPoSt $psize partitions" window "$wdir" \
                --window "$work/window.json" --backlog-window --backlog "${CZ_WINDOW_BACKLOG:-4}"
        fi
        free -g
        [ "$wdir" = "$work/p" ] || rm -rf "$wdir"
    fi
    if [ "${CZ_SNAP:-0}" = 1 ]; then
        rm -f "$work"/p/*stacked-proof-of-replication* "$work"/p/*proof-of-spacetime*
        step "setup snap $size on the GPU"
        timed "setup snap" "$cz" setup --kind snap --sector-size "$size" --backend cuda \
            --out "$work/p" || fail "setup snap"
        timed "gen snap" "$cz" gen snap --sector-size "$size" --out "$work/snap.json" ||
            fail "gen snap"
        if [ "${CZ_SKIP_BENCH:-0}" != 1 ]; then
            step "bench-porep --snap ($size, ${CZ_PROOFS:-3} together after one alone)"
            timed "bench snap" "$cz" bench-porep --snap "$work/snap.json" --params "$work/p" \
                --proofs "${CZ_PROOFS:-3}" --backend cuda --trace "$out/trace-snap.json" ||
                fail "bench-porep --snap"
        fi
        for cap in ${CZ_OTHER_CAPS:-}; do
            step "bench-porep --snap ($size), device capped at $cap"
            timed "bench snap $cap" env CZ_GPU_MEM_LIMIT="$cap" "$cz" bench-porep \
                --snap "$work/snap.json" --params "$work/p" --proofs "${CZ_PROOFS:-3}" \
                --backend cuda --trace "$out/trace-snap-$cap.json" ||
                fail "bench-porep --snap ($cap)"
        done
        if [ "${CZ_SKIP_PROVE:-0}" != 1 ]; then
            step "prove --snap + verify --snap"
            timed "prove snap" "$cz" prove --snap "$work/snap.json" --params "$work/p" \
                --backend cuda --out "$work/snap.proof" || fail "prove --snap"
            "$cz" verify --snap "$work/snap.json" --vk "$work/p" --proof "$work/snap.proof" ||
                fail "verify --snap"
        fi
        if [[ " $post " == *" winning "* ]]; then
            step "setup winning-post $psize on the GPU again, beside the SnapDeals key"
            timed "setup winning" "$cz" setup --kind winning-post --sector-size "$psize" \
                --backend cuda --out "$work/p" || fail "setup winning-post"
            backlog "2 SnapDeals $size updates" snap "$work/p" --backlog-snap "$work/snap.json" \
                --backlog 2
        fi
    fi
    echo "gpu-porep-full: $fails failure(s)"
} 2>&1 | tee "$out/porep-full.txt"
grep -q "gpu-porep-full: 0 failure" "$out/porep-full.txt"
