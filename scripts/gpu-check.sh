#!/usr/bin/env bash
# Build, test and benchmark the CUDA back-end in one go (for a GPU machine).
#
#   scripts/gpu-check.sh build DIR   build the GPU tests and bench_gpu into DIR
#   scripts/gpu-check.sh run DIR     run them (tests, compute-sanitizer on small
#                                    sizes when present, then the benchmark);
#                                    DIR may also be a scripts/gpu-carry.sh folder
#                                    (the CMake build's gpu_test_* and cuzk)
#   scripts/gpu-check.sh [DIR]       both
#   scripts/gpu-check.sh sass DIR    opcode counts of the field-rate kernels
#   scripts/gpu-check.sh resources DIR [ARCH...]
#                                    registers, spills and shared memory of the
#                                    hot kernels per architecture (ptxas -v;
#                                    default 75 80 86 89 90 100 120;
#                                    CZ_RES_FILES: the .cu files, default
#                                    msm_g1 msm_g2 ntt batch circuit; no GPU
#                                    needed: src/gpu/README.md's table)
#
# It compiles only what the GPU layer needs (src/util, ff, ec, poly, r1cs,
# groth16, gpu and the test harness) with gcc and nvcc -arch=sm_90, so the
# machine needs no yajl, GMP or OpenSSL; the kernels are the CMake build's.
# Builds are incremental (rm -rf DIR for a clean one). Environment: NVCC
# (default: nvcc on PATH or /usr/local/cuda), NVFLAGS_EXTRA (more nvcc flags,
# e.g. a -D for an experiment), CZ_BENCH_ARGS (default: the full benchmark),
# CZ_SANITIZER=0 (skip compute-sanitizer), CZ_TESTS="gpu_ntt circuit_gpu"
# (only those tests, in that order), CZ_TEST_TIMEOUT=120 (seconds per test),
# OUT (logs are written there; default DIR/out). The device tool brings back
# at most 8 files, which is why the logs are few.
set -u
mode=all
case "${1:-}" in build | run | sass | resources) mode=$1; shift ;; esac
dir=${1:-build-gpu-check}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
out=${OUT:-$dir/out}

build() {
    mkdir -p "$dir/obj"
    local cflags="-std=c11 -O2 -march=x86-64-v3 -madx -D_GNU_SOURCE -DCZ_VERSION=\"gpu-check\" -DCZ_VECTOR_DIR=\"$root/tests/vectors\" -I$root/include -I$root/src -I$root/tests -I$root/tests/gpu"
    local nvver
    nvver=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
    # an array: CZ_CUDA_CODE's value holds a space
    local nvflags=(-arch=sm_90 -O3 -std=c++17 "-I$root/include" "-I$root/src" -Xptxas -v
        "-DCZ_CUDA_CODE=\"sm_90 compute_90\"" "-DCZ_CUDA_NVCC=\"$nvver\"" ${NVFLAGS_EXTRA:-})
    local objs=() pids=() f o
    # incremental: a .cu is rebuilt when it or a src/gpu/*.cuh is newer than
    # its object (rm -rf DIR for a clean build)
    local newest_hdr
    newest_hdr=$(ls -t "$root"/src/gpu/*.cuh | head -n 1)
    for f in "$root"/src/gpu/*.cu; do
        o="$dir/obj/$(basename "$f" .cu).cu.o"
        objs+=("$o")
        if [ -f "$o" ] && [ "$o" -nt "$f" ] && [ "$o" -nt "$newest_hdr" ]; then continue; fi
        "$NVCC" "${nvflags[@]}" -c "$f" -o "$o" >"$o.log" 2>&1 &
        pids+=($!)
    done
    local rc=0 p
    for f in "$root"/src/{util,ff,ec,poly,r1cs,groth16}/*.c "$root"/src/gpu/groth16.c "$root"/src/gpu/settings.c "$root"/src/gpu/plan.c "$root"/src/gpu/srs.c "$root"/src/gpu/ntt_layout.c "$root"/src/gpu/witness.c \
        "$root"/tests/harness/harness.c; do
        o="$dir/obj/$(basename "$(dirname "$f")")_$(basename "$f" .c).o"
        [ "$f" = "$root/src/gpu/groth16.c" ] && o="$dir/obj/gpu_groth16_glue.o"
        objs+=("$o")
        gcc $cflags -c "$f" -o "$o" || rc=1
    done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    if [ $rc != 0 ]; then
        cat "$dir"/obj/*.cu.o.log | grep -iE "error" | head -40
        return 1
    fi
    local libs="-L$(dirname "$NVCC")/../lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++ -lm"
    ar rcs "$dir/libgpucheck.a" "${objs[@]}"
    for t in "$root"/tests/gpu/test_*.c; do
        # the tests that need the filecoin layer (OpenSSL, yajl) or the
        # engine: run the CMake build's binaries instead (src/gpu/README.md)
        case "$(basename "$t")" in
        test_gpu_porep.c | test_gpu_setup_porep.c | test_gpu_setup.c | test_gpu_backend.c) continue ;;
        esac
        gcc $cflags "$t" "$dir/libgpucheck.a" $libs -o "$dir/$(basename "$t" .c)" || return 1
    done
    gcc $cflags -DCZ_BENCH_GPU_MAIN "$root/src/cli/bench/gpu.c" "$root/src/cli/bench/common.c" \
        "$root/src/cli/common.c" "$dir/libgpucheck.a" $libs -o "$dir/bench_gpu" || return 1
    grep -hE "Compiling entry|registers|spill" "$dir"/obj/*.cu.o.log >"$dir/ptxas.txt"
    cp "$dir"/obj/*.cu.o.log "$dir/" 2>/dev/null
    echo "built into $dir"
}

run() {
    mkdir -p "$out"
    local fails=0 t
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv \
        2>&1 | tee "$out/device.txt"
    # this script's build names the tests test_*, the CMake build gpu_test_*
    local pre=""
    [ -x "$dir/test_gpu_arith" ] || pre=gpu_
    export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    # CZ_TESTS: which tests, in that order (names after test_, e.g. "gpu_ntt
    # circuit_gpu"); CZ_TEST_TIMEOUT: seconds each may take (a test past it
    # counts as failed, the next one runs)
    local list=()
    if [ -n "${CZ_TESTS:-}" ]; then
        for t in $CZ_TESTS; do list+=("$dir/${pre}test_$t"); done
    else
        list=("$dir"/${pre}test_*)
    fi
    for t in "${list[@]}"; do
        [ -x "$t" ] || { [ -n "${CZ_TESTS:-}" ] && echo "== $(basename "$t"): missing"; continue; }
        echo "== $(basename "$t")"
        local t0=$SECONDS rc
        ${CZ_TEST_TIMEOUT:+timeout "$CZ_TEST_TIMEOUT"} "$t" >>"$out/tests.txt" 2>&1
        rc=$?
        echo "   $(basename "$t"): exit $rc, $((SECONDS - t0)) s" | tee -a "$out/tests.txt"
        if [ $rc != 0 ]; then
            fails=$((fails + 1))
            grep -E "CHECK failed|FAILED" "$out/tests.txt" | tail -n 5
        fi
    done
    # the NTT's 4-pass layout (2^28 otherwise) at small sizes
    echo "== $(basename "$dir/${pre}test_gpu_ntt") with CZ_GPU_NTT_MAXB=5"
    if ! CZ_GPU_NTT_MAXB=5 "$dir/${pre}test_gpu_ntt" 2>&1 | tee -a "$out/tests.txt"; then
        fails=$((fails + 1))
    fi
    if [ "${CZ_SANITIZER:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
        for tool in memcheck racecheck; do
            tests="$dir/${pre}test_gpu_arith $dir/${pre}test_gpu_ntt $dir/${pre}test_gpu_msm"
            tests="$tests $dir/${pre}test_gpu_groth16 $dir/${pre}test_circuit_gpu"
            tests="$tests $dir/${pre}test_gpu_setup"
            [ $tool = racecheck ] && tests="$dir/${pre}test_gpu_ntt" # shared memory: NTT only
            for t in $tests; do
                echo "== compute-sanitizer --tool $tool $(basename "$t") (small sizes)"
                CZ_GPU_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 9 "$t" \
                    >"$out/sanitizer.tmp" 2>&1
                local rc=$?
                cat "$out/sanitizer.tmp" >>"$out/sanitizer.txt"
                rm -f "$out/sanitizer.tmp"
                grep -E "SUMMARY|checks" "$out/sanitizer.txt" | tail -n 2
                [ $rc = 0 ] || fails=$((fails + 1))
            done
        done
    fi
    echo "== bench gpu ${CZ_BENCH_ARGS:-}"
    local bench=("$dir/bench_gpu")
    [ -x "$dir/bench_gpu" ] || bench=("$dir/cuzk" bench gpu)
    "${bench[@]}" ${CZ_BENCH_ARGS:-} 2>&1 | tee "$out/bench.txt"
    [ -f "$dir/ptxas.txt" ] && cp "$dir/ptxas.txt" "$out/"
    echo "gpu-check: $fails failing test run(s)"
    return $((fails > 0))
}

# Opcode counts of the field-rate kernels (is the multiplication IMAD.WIDE?),
# one line per kernel: the loop body holds 2 multiplications.
sass() {
    cuobjdump --dump-sass "$dir/obj/gpu_bench.cu.o" | awk '
        /Function :/ { f = $3 }
        f ~ /k_rate/ && /\/\*[0-9a-f]+\*\// {
            op = $0; sub(/.*\*\/ +/, "", op); sub(/^@!?U?P[0-9T] +/, "", op); split(op, w, " ");
            n[f " " w[1]]++ }
        END { for (k in n) print k, n[k] }' | sort
}

# ptxas's report for the kernels where the time goes, one line per kernel
# and architecture: registers, spill stores / loads (bytes), stack frame,
# static shared memory (the NTT's dynamic tile is sized at run time from the
# device's limit: ntt.cu).
resources() {
    mkdir -p "$dir"
    local archs=("$@") f a
    [ ${#archs[@]} -gt 0 ] || archs=(75 80 86 89 90 100 120)
    for f in ${CZ_RES_FILES:-msm_g1 msm_g2 ntt batch circuit}; do
        for a in "${archs[@]}"; do
            "$NVCC" -arch=sm_$a -O3 -std=c++17 --default-stream per-thread -I"$root/include" \
                -I"$root/src" -DCZ_CUDA_CODE=\"sm_$a\" -DCZ_CUDA_NVCC=\"\" -Xptxas -v -c \
                "$root/src/gpu/$f.cu" -o "$dir/res_${f}_$a.o" >"$dir/res_${f}_$a.log" 2>&1 || {
                cat "$dir/res_${f}_$a.log"
                return 1
            }
            awk -v arch="sm_$a" '
                /Compiling entry function/ { k = $0; sub(/.*function .?/, "", k); sub(/.? for .*/, "", k) }
                /stack frame/ { stack = $1; sst = $5; sld = $9 }
                /Used [0-9]+ registers/ { r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r)
                    sm = 0; if (match($0, /[0-9]+ bytes smem/)) { sm = substr($0, RSTART, RLENGTH); sub(/ .*/, "", sm) }
                    print arch, r, sst, sld, stack, sm, k }' "$dir/res_${f}_$a.log"
        done
    done | c++filt | grep -E 'k_msm_acc|k_msm_digits|k_msm_runsum|k_ntt_rb|k_xyzz_strided|k_pair_level|k_short_rows|k_pieces' |
        sed -E 's/\(.*\)$//; s/cz_gpu:://g; s/ void / /; s/mont<fp_params>/Fp/g; s/mont<fr_params>/Fr/g;
                s/fp2_t/Fp2/g; s/(xyzz|affine)<(Fp2?)>/\2/g' |
        sort -u | awk 'BEGIN { print "arch registers spill_stores spill_loads stack smem kernel" } { print }'
}

case $mode in
sass) sass ;;
resources) resources "$@" ;;
build) build ;;
run) run ;;
all) build && run ;;
esac
