#!/usr/bin/env bash
# Packs what a GPU machine without our build dependencies needs to run the
# CMake build's binaries: `cuzk`, the GPU tests, and the non-libc shared
# libraries they load (OpenSSL, yajl, gRPC, protobuf-c, ...), into one
# folder. The CUDA runtime is linked statically; libc, libm, libstdc++ and
# the loader come from the target (Debian 12 binaries run on newer glibc).
#
#   scripts/gpu-carry.sh BUILD_DIR DEST     e.g. scripts/gpu-carry.sh build .carry/d
#
# Then, on the GPU machine: LD_LIBRARY_PATH=DEST DEST/cuzk ...
# (scripts/gpu-device-run.sh does that). DEST is emptied first.
# CZ_CARRY_TESTS="circuit_gpu gpu_keyload ..." packs only those GPU tests
# (the names after gpu_test_): all of them and the tree pass the device
# tool's 64 MiB limit. CZ_CARRY_PACK=1 packs DEST into DEST.tar.xz instead
# (about a third of the size: every GPU test and cuzk fit); unpack it there
# with `tar xJf DEST.tar.xz -C $(dirname DEST)`.
set -eu
build=${1:?usage: gpu-carry.sh BUILD_DIR DEST}
dest=${2:?usage: gpu-carry.sh BUILD_DIR DEST}
rm -rf "$dest"
mkdir -p "$dest"
bins=("$build/cuzk")
if [ -n "${CZ_CARRY_TESTS+x}" ]; then
    for t in $CZ_CARRY_TESTS; do bins+=("$build/tests/gpu_test_$t"); done
else
    for t in "$build"/tests/gpu_test_*; do bins+=("$t"); done
fi
for b in "${bins[@]}"; do
    [ -x "$b" ] || { echo "gpu-carry: $b missing (build it first)" >&2; exit 1; }
    cp "$b" "$dest/"
    strip "$dest/$(basename "$b")" # debug info is not needed on the device: the 64 MiB carry limit
    ldd "$b" | awk '/=> \// { print $3 }' | while read -r lib; do
        case $(basename "$lib") in
        libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | \
            libstdc++.so* | libgcc_s.so*) ;;
        *) cp -n "$lib" "$dest/" ;;
        esac
    done
done
if [ "${CZ_CARRY_PACK:-0}" = 1 ]; then
    rm -f "$dest.tar.xz"
    tar -C "$(dirname "$dest")" -cf - "$(basename "$dest")" | xz -T0 -6 >"$dest.tar.xz"
    rm -rf "$dest"
    du -sh "$dest.tar.xz"
    exit 0
fi
du -sh "$dest"
# every card's code (the default -DCZ_CUDA_ARCHS=all) is ~30 MB per binary
if [ "$(du -sm "$dest" | cut -f1)" -gt 60 ]; then
    echo "gpu-carry: $dest is over the device tool's 64 MiB: build for the one card" \
        "(cmake -DCZ_CUDA_ARCHS=90) or carry fewer tests (CZ_CARRY_TESTS)" >&2
fi
