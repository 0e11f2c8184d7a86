#!/usr/bin/env bash
# Installs the Debian packages cuzk's build and tests need. Idempotent: does
# nothing when everything is present. Needs root (or sudo) only to install.
set -euo pipefail

# libgrpc-dev (core C API), libprotobuf-c-dev and protobuf-c-compiler: the daemon's gRPC layer.
packages=(build-essential cmake pkg-config libgmp-dev libssl-dev libyajl-dev libgrpc-dev
          libprotobuf-c-dev protobuf-c-compiler nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm may come from outside Debian's packages; accept working binaries.
if command -v node >/dev/null && command -v npm >/dev/null; then
  filtered=()
  for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || filtered+=("$p"); done
  missing=("${filtered[@]}")
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
