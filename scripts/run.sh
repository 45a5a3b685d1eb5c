#!/usr/bin/env bash
# Set up, build, and run the main job: the what-if for 64 ranks over 1001 samples (or the given flags).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --target accel-sim >&2
if [ $# -eq 0 ]; then set -- --ranks 64 --dataset-len 1001; fi
exec build/accel-sim "$@"
