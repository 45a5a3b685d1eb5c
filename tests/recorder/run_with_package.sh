#!/usr/bin/env bash
# Runs a recorder test (tests/recorder/*.py) with build/reference-venv's python (Debian's torch 1.13 + Accelerate
# 1.15.0) and this checkout's accelerate_sim .py files. The compiled accelerate_sim._core comes from the wheel that
# ctest -R python_package builds (build/python-package/wheelhouse) when it is there; otherwise the package runs the
# built accel-sim executable (the same CLI: accelerate_sim/_core_exe.py, as the portable wheel does), which the output says.
# 77 (Skipped) without the reference venv or without either.
#   run_with_package.sh ROOT ACCEL_SIM_EXE TEST.py [args...]
set -euo pipefail
root="$1"
exe="$2"
shift 2
venv="${ACCEL_SIM_REFERENCE_VENV:-$root/build/reference-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys; sys.path.insert(0, "'"$root"'/golden/reference"); import shims, accelerate' 2>/dev/null; then
  echo "SKIP: the reference environment is missing (golden/setup-reference builds $venv)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wheel=$(ls "$root"/build/python-package/wheelhouse/accelerate_sim-*.whl 2>/dev/null | head -1 || true)
if [ -n "$wheel" ] && "$venv/bin/python" -m zipfile -e "$wheel" "$tmp" 2>/dev/null; then
  echo "accelerate_sim._core: the compiled module of $wheel"
else
  if [ ! -x "$exe" ]; then
    echo "SKIP: neither an accelerate_sim wheel nor the accel-sim executable ($exe)"
    exit 77
  fi
  mkdir -p "$tmp/accelerate_sim"
  echo "accelerate_sim._core: accelerate_sim/_core_exe.py over $exe (no wheel built)"
fi
cp "$root"/python/accelerate_sim/*.py "$tmp/accelerate_sim/"
export ACCEL_SIM_EXE="$exe" ACCEL_SIM_SOURCE_DIR="$root" PYTHONPATH="$tmp:$root/golden/reference" \
  ACCEL_SIM_TEST_TMP="$tmp" ACCEL_SIM_PYTHON="$venv/bin/python" HF_HUB_OFFLINE=1
"$venv/bin/python" "$@"
