#!/usr/bin/env bash
# Issue 20: the Python package end to end. Builds the wheel from the checkout (pip wheel ., scikit-build-core +
# nanobind pinned in pyproject.toml, ACCEL_SIM_PYTHON=ON: no LibTorch), installs it into a fresh venv over Debian's
# python3 (system site-packages: python3-torch, python3-pytest), checks the acceptance commands and runs the pytest
# suite python/tests, whose assert_loader_matches tests import the real Accelerate 1.15.0 from the reference
# environment (golden/setup-reference).
#
# Exit 77 (ctest: Skipped, never passed) when a prerequisite is missing: Debian's python3 with venv, its headers
# (python3-dev), pytest, the build requirements from PyPI (fetched once into <work>/wheelhouse, then offline), or
# the reference environment (then the rest still runs, and fails if it fails).
set -u
root=$1
work=$2
py=${ACCEL_SIM_TEST_PYTHON:-/usr/bin/python3}
skip() { echo "python: NOT RUN: $*"; exit 77; }
[ -x "$py" ] || py=$(command -v python3) || skip "no python3"
"$py" -c 'import venv, ensurepip' 2>/dev/null || skip "$py has no venv/ensurepip (apt-get install python3-venv)"
"$py" -c 'import os, sysconfig; assert os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' \
  2>/dev/null || skip "Python.h missing for $py (apt-get install python3-dev)"
"$py" -c 'import pytest' 2>/dev/null || skip "pytest missing for $py (apt-get install python3-pytest)"

mkdir -p "$work"
requires=$("$py" - "$root/pyproject.toml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
print(" ".join(re.findall(r'"([^"]+==[^"]+)"', re.search(r"requires = \[(.*?)\]", text, re.S).group(1))))
PY
)
# The build requirements once from PyPI (the only network this test uses), then every build offline from them.
if [ ! -f "$work/wheelhouse/.complete" ]; then
  rm -rf "$work/wheelhouse"
  "$py" -m venv "$work/fetch-venv" >/dev/null || skip "cannot create a venv"
  # shellcheck disable=SC2086
  "$work/fetch-venv/bin/pip" download -q -d "$work/wheelhouse" $requires ||
    skip "cannot download the build requirements ($requires) from PyPI"
  touch "$work/wheelhouse/.complete"
fi

# Unix Makefiles with 2 jobs: the build needs no ninja (scikit-build-core would otherwise fetch it from PyPI when the
# system has none), and leaves the shared cores to others.
export CMAKE_GENERATOR="Unix Makefiles" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
if [ -f "$work/skbuild/CMakeCache.txt" ] && ! grep -q "^CMAKE_GENERATOR:INTERNAL=Unix Makefiles$" "$work/skbuild/CMakeCache.txt"; then
  rm -rf "$work/skbuild"
fi
# The build requirements live in a venv of their own that is kept: scikit-build-core clears its build folder when
# the build environment moves (as pip's isolated one does every time), so with this one and build-dir kept in
# $work, a rerun recompiles only what changed.
build_venv="$work/build-venv"
if [ ! -x "$build_venv/bin/pip" ] || ! "$build_venv/bin/python" -c 'import scikit_build_core, nanobind' 2>/dev/null; then
  rm -rf "$build_venv"
  "$py" -m venv "$build_venv" || skip "cannot create a venv"
  # shellcheck disable=SC2086
  "$build_venv/bin/pip" install -q --no-index --find-links "$work/wheelhouse" $requires ||
    { echo "python: FAIL: cannot install the build requirements from $work/wheelhouse"; exit 1; }
fi
venv="$work/venv"
rm -rf "$venv" "$work/wheels"
"$py" -m venv --system-site-packages "$venv" || skip "cannot create a venv"
start=$(date +%s.%N)
if ! "$build_venv/bin/pip" wheel -q --no-build-isolation --no-deps --no-index -w "$work/wheels" \
     --config-settings=build-dir="$work/skbuild" "$root"; then
  echo "python: FAIL: pip wheel . failed"
  exit 1
fi
end=$(date +%s.%N)
wheel=$(ls "$work"/wheels/accelerate_sim-*.whl)
echo "python: wheel $(basename "$wheel"): $(stat -c %s "$wheel") bytes, built in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
"$py" - "$wheel" <<'PY' || { echo "python: FAIL: the wheel's contents"; exit 1; }
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
print("python: wheel files:", ", ".join(n for n in names if not n.endswith((".dist-info/RECORD",))))
assert not [n for n in names if ("torch" in n.lower() or "gloo" in n.lower()) and not n.endswith("/torch113_shims.py")], \
    "LibTorch/gloo in the wheel"
assert "accelerate_sim/torch113_shims.py" in names, "no torch-1.13 import shims"
assert any(n.endswith(".data/scripts/accel-sim") for n in names), "no accel-sim console script"
assert any(n.startswith("accelerate_sim/_core.") for n in names), "no accelerate_sim._core"
PY
"$venv/bin/pip" install -q --no-index --no-deps "$wheel" || { echo "python: FAIL: pip install of the wheel"; exit 1; }

# The acceptance commands, from outside the checkout.
cd "$work" || exit 1
out=$("$venv/bin/accel-sim" --ranks 64 --dataset-len 1001) || { echo "python: FAIL: accel-sim console script"; exit 1; }
echo "$out" | head -4
dup=$("$venv/bin/python" -c "import accelerate_sim; print(accelerate_sim.what_if(num_processes=64, dataset_len=1001)['scenarios'][0]['duplicated'])")
[ "$dup" = "23" ] || { echo "python: FAIL: what_if(num_processes=64, dataset_len=1001) duplicated = '$dup', want 23"; exit 1; }
echo "python: accelerate_sim.what_if(num_processes=64, dataset_len=1001) duplicated = $dup"
# Issue 49: the help pages are built in (a pip user has no docs/), and the torch-1.13 shims import from the package.
cmp -s <("$venv/bin/accel-sim" help resume --page) "$root/docs/resume.md" ||
  { echo "python: FAIL: accel-sim help resume --page is not docs/resume.md"; exit 1; }
"$venv/bin/python" -c "import accelerate_sim.torch113_shims as s; print('python: torch113_shims installed', s.SHIMS)" ||
  { echo "python: FAIL: import accelerate_sim.torch113_shims"; exit 1; }
"$venv/bin/python" -X importtime -c "import accelerate_sim" 2>&1 | tail -1 | sed 's/^/python: import time (us): /'
"$venv/bin/python" -c "import sys, accelerate_sim; assert 'torch' not in sys.modules, 'import accelerate_sim imports torch'" ||
  { echo "python: FAIL: import accelerate_sim imports torch"; exit 1; }

ref_missing=0
venv_ref="${ACCEL_SIM_REFERENCE_VENV:-$root/build/reference-venv}"
[ -f "$venv_ref/VERSIONS.json" ] || ref_missing=1
ACCEL_SIM_SOURCE_DIR="$root" ACCEL_SIM_REFERENCE_VENV="$venv_ref" PATH="$venv/bin:$PATH" \
  "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider "$root/python/tests"
rc=$?
[ $rc -eq 0 ] || exit 1
if [ $ref_missing -eq 1 ]; then
  skip "the reference environment ($venv_ref) is missing: assert_loader_matches was not run on the real Accelerate (golden/setup-reference)"
fi
exit 0
