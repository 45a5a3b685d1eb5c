#!/usr/bin/env bash
# Installs every dependency from Debian's packages (as root), only when one is missing, then
# configures and builds into build/. Safe to rerun: a no-op when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make libtorch-dev libgloo-dev librapidcheck-dev nlohmann-json3-dev libbenchmark-dev
          libgtest-dev libgmock-dev libcli11-dev libyaml-cpp-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build -j "$(nproc)" "$@"
