#!/usr/bin/env bash
# Set up, build, and run every test (ctest): unit, golden, CLI, LibTorch oracle, properties.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/setup-test-extras.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
