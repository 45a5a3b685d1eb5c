#!/usr/bin/env bash
# ctest torch2_hf_from_dataloader (label torch2): accelerate_sim.from_dataloader on real datasets.IterableDataset loaders,
# with the torch-2 reference environment's datasets and torch (golden/setup-reference --torch 2) and the accelerate_sim
# wheel python_package built (its compiled core, this checkout's Python sources). 77 (Skipped) without either.
#   hf_from_dataloader_test.sh ROOT WHEEL_DIR
set -euo pipefail
root="$1"
wheels="$2"
venv="${ACCEL_SIM_REFERENCE_VENV_TORCH2:-$root/build/reference-venv-torch2}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import datasets' 2>/dev/null; then
  echo "SKIP: the torch-2 reference environment with datasets is missing (golden/setup-reference --torch 2)"
  exit 77
fi
wheel=$(ls "$wheels"/accelerate_sim-*.whl 2>/dev/null | head -1 || true)  # no wheel: ls fails, which pipefail would make fatal
[ -n "$wheel" ] || { echo "SKIP: no accelerate_sim wheel in $wheels (ctest -R python_package builds it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" -m zipfile -e "$wheel" "$tmp"
cp "$root"/python/accelerate_sim/*.py "$tmp/accelerate_sim/"
HF_DATASETS_CACHE="$tmp/cache" HF_HUB_OFFLINE=1 ACCEL_SIM_SOURCE_DIR="$root" PYTHONPATH="$tmp" \
  "$venv/bin/python" "$(dirname "$0")/hf_from_dataloader.py"
