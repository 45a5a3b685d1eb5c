#!/usr/bin/env bash
# Set up, build, and run every test (ctest): unit, golden, CLI, LibTorch oracle, properties.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/setup-test-extras.sh
# The torch2 label (the real torch 2, golden/setup-reference --torch 2) is heavy: it runs only when labels are asked
# for (-L), e.g. scripts/test.sh -L torch2.
select=(-LE torch2)
for arg in "$@"; do
  case "$arg" in -LE* | --label-exclude*) ;; -L* | --label-regex*) select=() ;; esac
done
ctest --test-dir build --output-on-failure -j "$(nproc)" ${select[@]+"${select[@]}"} "$@"
