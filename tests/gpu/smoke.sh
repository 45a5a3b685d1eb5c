#!/usr/bin/env bash
# GPU smoke test of real ranks over NCCL, for a machine with NVIDIA GPUs (none of the project's CI
# machines has one). Builds accel-sim and accel-sim-rank WITH_NCCL if needed, then runs one rank per GPU
# over NCCL: the transport's self-check and a few loader configs whose traces must equal the simulator's.
# On a one-GPU machine it runs world size 1 over NCCL and the same configs over Gloo with 2 ranks. With
# two or more GPUs it also kills a rank mid-pass and expects the others to name it.
#
# Prints one "PASS name" / "FAIL name" line per check, exits non-zero when any fails; about a minute
# (two at most) once built. Needs the Debian packages of scripts/setup.sh plus the CUDA toolkit and NCCL.
#   tests/gpu/smoke.sh            # BUILD_DIR=build-gpu by default; build/ is reused if it has NCCL
set -u
cd "$(dirname "$0")/../.."
started=$(date +%s)
failures=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | tail -8 | sed 's/^/    /'; failures=$((failures + 1)); }

# Build (only the two executables; tests off, so GoogleTest and RapidCheck are not needed).
build=${BUILD_DIR:-}
if [ -z "$build" ]; then
  if grep -q '^WITH_NCCL:BOOL=ON' build/CMakeCache.txt 2>/dev/null; then build=build; else build=build-gpu; fi
fi
if log=$( { [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DACCEL_SIM_TESTS=OFF -DWITH_NCCL=ON; } 2>&1 &&
          cmake --build "$build" -j "$(nproc)" --target accel-sim accel-sim-rank 2>&1 ); then
  pass "build ($build, WITH_NCCL=ON)"
else
  fail "build ($build, WITH_NCCL=ON)" "$log"
  exit 1
fi
bin=$build/accel-sim

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$gpus" -ge 1 ]; then pass "gpus present ($gpus)"; else fail "gpus present (nvidia-smi lists none)"; exit 1; fi
nproc=$((gpus > 8 ? 8 : gpus))

job() {  # name expected-pattern launch-args...
  local name=$1 pattern=$2
  shift 2
  local out rc
  out=$(timeout 60 "$bin" launch --timeout-s 20 "$@" 2>&1)
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q -- "$pattern" <<<"$out"; then pass "$name"; else fail "$name (exit $rc)" "$out"; fi
}

configs=(
  "map:--dataset-len 37 --batch-size 3"
  "dispatch_map:--dispatch-batches --put-on-device --dataset-len 21 --batch-size 3 --no-even-batches"
  "dispatch_iterable:--dataset iterable --put-on-device --dataset-len 19 --batch-size 2 --skip-batches 1 --epochs 2"
  "shuffle_synced_generator:--shuffle --no-seedable-sampler --torch-seed 7 --epochs 2 --dataset-len 17 --batch-size 2"
)

job "nccl collectives self-check, $nproc rank(s)" "collectives ok (nccl, $nproc ranks)" --nproc "$nproc" --backend nccl --check-collectives
for c in "${configs[@]}"; do
  # shellcheck disable=SC2086
  job "nccl ${c%%:*}, $nproc rank(s)" "^\[rank 0\] identical to the simulator's prediction" --nproc "$nproc" --backend nccl ${c#*:}
done
if [ "$gpus" -eq 1 ]; then
  for c in "${configs[@]}"; do
    # shellcheck disable=SC2086
    job "gloo ${c%%:*}, 2 ranks" "^\[rank 0\] identical to the simulator's prediction" --nproc 2 --backend gloo ${c#*:}
  done
else
  # A rank dies mid-pass: the others must fail naming it, quickly.
  dead=$((nproc - 1))
  t0=$(date +%s)
  out=$(timeout 90 "$bin" launch --nproc "$nproc" --backend nccl --timeout-s 10 --die-at-step 2 --die-rank "$dead" \
        --dataset iterable --put-on-device --dataset-len 40 --batch-size 2 2>&1)
  rc=$?
  took=$(($(date +%s) - t0))
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$took" -lt 60 ] && grep -q "^\[rank 0\] .*rank $dead died" <<<"$out"; then
    pass "nccl killed rank $dead named in ${took}s"
  else
    fail "nccl killed rank $dead named (exit $rc after ${took}s)" "$out"
  fi
fi

echo "smoke: $failures failure(s) in $(($(date +%s) - started)) s"
[ "$failures" -eq 0 ]
