#!/usr/bin/env bash
# Installs the Debian 12 packages simtrain builds with, skipping those already present. Run as root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libsimgrid-dev                  # the simulation kernel (SimGrid 3.32)
  libboost-program-options-dev    # command-line parsing
  libfmt-dev nlohmann-json3-dev libtomlplusplus-dev zlib1g-dev
  libjemalloc-dev                 # the allocator simtrain links: SimGrid allocates per simulated activity
  doctest-dev                     # unit tests
  protobuf-compiler libprotobuf-dev  # Chakra execution traces (simulator/trace/chakra_et.proto)
  gnuplot-nox                     # plots of studies
  python3                         # validation and benchmark scripts
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
