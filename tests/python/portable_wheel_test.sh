#!/usr/bin/env bash
# Issue 49: the portable wheel as a pip user gets it. Builds it (scripts/build-portable-wheel.sh: zig from PyPI,
# glibc 2.28, no compiled Python module), checks `auditwheel show`'s tag, installs it into a fresh venv over Debian's
# python3 with no compiler, cmake or -dev header reachable on PATH, and runs what the issue names: the console script,
# `import` + what_if, from_dataloader with the user's torch (Debian's python3-torch), the built-in help pages, and
# launch's refusal (the rank executable links LibTorch: not in this wheel). The install time is printed, not asserted.
#   portable_wheel_test.sh SOURCE_ROOT BUILD_DIR
set -uo pipefail
root=$1
build=$2
fail() { echo "portable_wheel: FAIL: $*"; exit 1; }
out=$build/portable
bash "$root/scripts/build-portable-wheel.sh" "$out" >"$out.log" 2>&1 || { tail -30 "$out.log"; fail "build"; }
wheel=$(ls "$out"/dist/accelerate_sim-*-py3-none-manylinux_2_28_x86_64.whl) || fail "no wheel in $out/dist"
echo "portable_wheel: $(basename "$wheel"): $(stat -c %s "$wheel") bytes"
show=$("$out/tools/bin/auditwheel" show "$wheel" 2>&1) || fail "auditwheel show: $show"
echo "$show" | tr '\n' ' ' | sed 's/  */ /g; s/^/portable_wheel: auditwheel: /'
echo
echo "$show" | tr '\n' ' ' | grep -Eq 'consistent with the following platform tag: "manylinux_2_(1[0-9]|2[0-8])_x86_64"' ||
  fail "auditwheel does not place the wheel at manylinux_2_28 or older"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A PATH with python and the shell's basics only: no gcc, g++, cc, c++, cmake, zig or pkg-config.
mkdir "$tmp/bin"
for t in sh bash env uname cat ls rm mkdir cp mv ln head tail sed grep date awk cmp; do ln -s "$(command -v "$t")" "$tmp/bin/$t"; done
export PATH="$tmp/venv/bin:$tmp/bin"
for t in gcc g++ cc c++ cmake zig pkg-config; do ! command -v "$t" >/dev/null || fail "$t is reachable on PATH"; done
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv" || fail "venv"
start=$(date +%s.%N)
"$tmp/venv/bin/pip" install -q --no-index --no-deps "$wheel" || fail "pip install of the wheel"
end=$(date +%s.%N)
echo "portable_wheel: pip install took $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"
cd "$tmp" || exit 1

"$tmp/venv/bin/accel-sim" --ranks 64 --dataset-len 1001 | grep -q "23 samples are seen twice (ids 0-22)" ||
  fail "accel-sim --ranks 64 --dataset-len 1001 (1001 = 15 x 64 + 41: even_batches repeats ids 0-22)"
"$tmp/venv/bin/python" - <<'PY' || fail "the Python API"
import sys
import accelerate_sim
assert accelerate_sim._core.__name__ == "accelerate_sim._core_exe", accelerate_sim._core  # no compiled module
assert "torch" not in sys.modules, "import accelerate_sim imports torch"
assert accelerate_sim.what_if(num_processes=64, dataset_len=1001)["scenarios"][0]["duplicated"] == 23
import torch
from torch.utils.data import DataLoader
# 1001 samples in batches of 8 on 4 ranks: 126 batches, even_batches fills 32 rounds: 128 x 8 yielded.
report = accelerate_sim.from_dataloader(DataLoader(list(range(1001)), batch_size=8, shuffle=True), num_processes=4)
assert report["scenarios"][0]["duplicated"] == 128 * 8 - 1001, report["scenarios"][0]["duplicated"]
seed, draws = accelerate_sim._core.rng_state_draws(torch.get_rng_state().numpy().tobytes())
assert seed == torch.initial_seed(), (seed, torch.initial_seed())
print("portable_wheel: what_if, from_dataloader (torch %s) and rng_state_draws (%d words drawn) answer" % (torch.__version__, draws))
PY
cmp -s <("$tmp/venv/bin/accel-sim" help resume --page) "$root/docs/resume.md" || fail "help resume --page is not docs/resume.md"
"$tmp/venv/bin/python" -c "import accelerate_sim.torch113_shims" || fail "import accelerate_sim.torch113_shims"
launch=$("$tmp/venv/bin/accel-sim" launch --nproc 2 --dataset-len 8 2>&1)
[ $? -eq 2 ] && echo "$launch" | grep -q "accel-sim-rank" || fail "launch without a rank executable: $launch"
echo "portable_wheel: launch refuses, exit 2: $launch"
echo "portable_wheel: ok"
