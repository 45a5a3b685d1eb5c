#!/usr/bin/env bash
# ctest transformers_from_trainer (labels torch2;transformers): accelerate_sim.from_trainer / from_training_args on real
# transformers.Trainer objects, in the transformers 5.25 environment golden/reference/setup-transformers builds,
# with the accelerate_sim wheel python_package built (its compiled core, this checkout's Python sources).
# 77 (Skipped) without either.
#   from_trainer_test.sh ROOT WHEEL_DIR
set -euo pipefail
root="$1"
wheels="$2"
venv="${ACCEL_SIM_TRANSFORMERS_VENV:-$root/build/reference-venv-transformers-5.25}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import transformers' 2>/dev/null; then
  echo "SKIP: the transformers environment is missing (golden/reference/setup-transformers)"
  exit 77
fi
wheel=$(ls "$wheels"/accelerate_sim-*.whl 2>/dev/null | head -1 || true)  # no wheel: ls fails, which pipefail would make fatal
[ -n "$wheel" ] || { echo "SKIP: no accelerate_sim wheel in $wheels (ctest -R python_package builds it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" -m zipfile -e "$wheel" "$tmp"
cp "$root"/python/accelerate_sim/*.py "$tmp/accelerate_sim/"
HF_HUB_OFFLINE=1 ACCEL_SIM_SOURCE_DIR="$root" PYTHONPATH="$tmp" OUT_DIR="$tmp/out" \
  "$venv/bin/python" "$(dirname "$0")/from_trainer.py"
