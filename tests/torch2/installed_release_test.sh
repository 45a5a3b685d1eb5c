#!/usr/bin/env bash
# ctest torch2_installed_release (label torch2, issue 45): the Accelerate a user has installed is the one simulated.
# In the torch-2 reference environment (1.15.0) and in its 1.16.0 release venv (golden/reference/setup-releases-torch2
# 1.16.0), a real 2-process job is recorded (tests/torch2/installed_release_job.py, gloo on the CPU): from_dataloader
# must name the installed release, and `accel-sim diff --recorded` must find the recording identical with no flag
# (it reads the recording's reference.accelerate_version and torch). 77 (Skipped) without the venvs or the wheel.
#   installed_release_test.sh ROOT WHEEL_DIR ACCEL_SIM
set -uo pipefail
root="$1"
wheels="$2"
bin="$3"
base="${ACCEL_SIM_REFERENCE_VENV_TORCH2:-$root/build/reference-venv-torch2}"
venvs=("$base" "${ACCEL_SIM_REFERENCE_VENV_RELEASES:-$root/build}/reference-venv-torch2-accelerate-1.16.0")
for v in "${venvs[@]}"; do
  [ -x "$v/bin/python" ] || { echo "SKIP: $v is missing (golden/reference/setup-torch2, setup-releases-torch2 1.16.0)"; exit 77; }
done
wheel=$(ls "$wheels"/accelerate_sim-*.whl 2>/dev/null | head -1 || true)
[ -n "$wheel" ] || { echo "SKIP: no accelerate_sim wheel in $wheels (ctest -R python_package builds it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${venvs[0]}/bin/python" -m zipfile -e "$wheel" "$tmp/pkg"
cp "$root"/python/accelerate_sim/*.py "$tmp/pkg/accelerate_sim/"
pass=0
fail=0
for v in "${venvs[@]}"; do
  release=$("$v/bin/python" -c 'import accelerate; print(accelerate.__version__)')
  out=$(PYTHONPATH="$tmp/pkg" timeout 300 "$v/bin/python" "$root/tests/recorder/launch.py" --nproc 2 -- \
    "$root/tests/torch2/installed_release_job.py" "$tmp/rec-$release" 2>&1)
  if echo "$out" | grep -q "from_dataloader simulates Accelerate $release"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL $release: from_dataloader did not simulate the installed release"; echo "$out" | tail -5; fi
  diff_out=$("$bin" diff --recorded "$tmp/rec-$release" 2>&1)
  if [ $? -eq 0 ] && echo "$diff_out" | grep -q "identical: 2004 batches on 2 ranks"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL $release: diff --recorded: $diff_out"; fi
done
echo "installed_release: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
