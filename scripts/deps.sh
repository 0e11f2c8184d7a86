#!/usr/bin/env bash
# scripts/deps.sh [build|test]: installs the Debian packages cuzk needs, and
# does nothing when they are present (make demo and make test call it).
#
#   build (default)  compiler, CMake and the libraries of the build
#   test             the same, plus Node.js and npm for the test oracles
#                    (tests/oracle: npm ci) and ca-certificates for npm's
#                    registry
#
# As root it runs apt-get itself (a bare Debian image has no sudo); as
# another user it uses sudo. Elsewhere than Debian/Ubuntu it prints the
# package names and leaves the installing to you.
set -euo pipefail

kind=${1:-build}
# libgrpc-dev (core C API), libprotobuf-c-dev and protobuf-c-compiler: the
# daemon's gRPC layer; libgmp-dev: the tests' reference arithmetic.
packages=(build-essential cmake pkg-config libgmp-dev libssl-dev libyajl-dev libgrpc-dev
          libprotobuf-c-dev protobuf-c-compiler)
case "$kind" in
  build) ;;
  test) packages+=(nodejs npm ca-certificates) ;;
  *) echo "usage: scripts/deps.sh [build|test]" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  echo "deps: not a Debian system; install the equivalents of: ${packages[*]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm may come from outside Debian's packages (NodeSource, nvm):
# working binaries are enough.
if command -v node >/dev/null && command -v npm >/dev/null; then
  kept=()
  for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || kept+=("$p"); done
  missing=("${kept[@]}")
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all packages present ($kind)"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "deps: missing ${missing[*]}; as root run:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
echo "deps: installing ${missing[*]}"
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
"${apt[@]}" update -qq
"${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}"
