#!/usr/bin/env bash
# ctest torch2_randperm: the core's randperm (PyTorch >= 2.6 loops) against the real torch 2 of the torch-2 reference
# environment (golden/setup-reference --torch 2), at and above the inside-out threshold n = 214,748,364, plus the
# last n below it. Exit 0 when every digest agrees, 1 on any mismatch, 77 (ctest: Skipped) without the environment.
#   randperm_torch2_test.sh ROOT RANDPERM_DIGEST
set -euo pipefail
root="$1"
native="$2"
venv="${ACCEL_SIM_REFERENCE_VENV_TORCH2:-$root/build/reference-venv-torch2}"
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/VERSIONS.json" ]; then
  echo "SKIP: torch-2 reference environment missing (golden/setup-reference --torch 2; looked in $venv)"
  exit 77
fi
# (n, seed): the forward loop's last n; the threshold with two seeds; a larger n with the largest uint64 seed.
pairs=(214748363 7 214748364 0 214748364 42 250000000 18446744073709551615)

start=$SECONDS
ours="$("$native" "${pairs[@]}")"
echo "accel-sim ($((SECONDS - start)) s):"
echo "$ours"
start=$SECONDS
theirs="$("$venv/bin/python" "$(dirname "$0")/randperm_digest.py" "${pairs[@]}")"
echo "torch $("$venv/bin/python" -c 'import torch; print(torch.__version__)') ($((SECONDS - start)) s):"
echo "$theirs"
if [ "$(wc -l <<<"$ours")" -ne $((${#pairs[@]} / 2)) ]; then
  echo "FAIL: expected $((${#pairs[@]} / 2)) digests"
  exit 1
fi
if [ "$ours" != "$theirs" ]; then
  echo "FAIL: the core's randperm differs from torch's:"
  diff <(echo "$ours") <(echo "$theirs") || true
  exit 1
fi
echo "PASS: $((${#pairs[@]} / 2)) randperm digests equal torch's"
