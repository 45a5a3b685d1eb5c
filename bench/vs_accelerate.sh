#!/usr/bin/env bash
# accel-sim against the real HuggingFace Accelerate, side by side on this machine, in one run.
#
#   bench/vs_accelerate.sh [--quick]
#
# For each configuration, the same what-if question (which samples each rank gets, duplicates, drops)
# answered twice, timed as whole processes from the shell:
#   - Accelerate: bench/accelerate_whatif.py in the reference environment (golden/setup-reference): Python
#     start-up, import of torch + accelerate, then every rank's prepare_data_loader(num_processes=R,
#     process_index=r) loader enumerated and its ids counted. When that would take longer than
#     $VS_MAX_SECONDS (default 180; --quick: 20), it measures the first ranks only and extrapolates the
#     rest linearly (every rank does the same work), and says so.
#   - accel-sim: `accel-sim FLAGS` (the full what-if: the configuration plus its even_batches / drop_last /
#     split_batches alternatives, so it does more work than the Accelerate side), the mean of repeated runs
#     (hyperfine when installed).
# The counts of both sides are compared. Build first (scripts/setup.sh or bench/run.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${ACCEL_SIM_BIN:-$root/build/accel-sim}"
venv="${ACCEL_SIM_REFERENCE_VENV:-$root/build/reference-venv}"
max_seconds="${VS_MAX_SECONDS:-180}"
[ "${1:-}" = "--quick" ] && max_seconds="${VS_MAX_SECONDS:-20}"

if [ ! -x "$bin" ]; then
  echo "vs_accelerate: $bin is missing: build it first (scripts/setup.sh)" >&2
  exit 2
fi
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/VERSIONS.json" ]; then
  echo "vs_accelerate: the reference environment (the real Accelerate) is missing at $venv." >&2
  echo "vs_accelerate: create it with: golden/setup-reference   (as root; Debian's python3-torch + accelerate 1.15 from PyPI)" >&2
  exit 2
fi

now_ns() { date +%s%N; }

# Mean wall seconds of one accel-sim process.
time_accel_sim() {
  if command -v hyperfine >/dev/null; then
    local out
    out=$(mktemp)
    hyperfine -N --style none --warmup 3 --min-runs 20 --export-json "$out" -- "$bin $*" >/dev/null 2>&1
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean"])' "$out"
    rm -f "$out"
  else
    local runs=20 t0 t1
    "$bin" "$@" >/dev/null
    t0=$(now_ns)
    for _ in $(seq $runs); do "$bin" "$@" >/dev/null; done
    t1=$(now_ns)
    python3 -c "print(($t1 - $t0) / 1e9 / $runs)"
  fi
}

echo "vs_accelerate: $(uptime | sed 's/.*load/load/') (other work on the machine inflates both sides)"
echo "vs_accelerate: Accelerate $(python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(v["accelerate"], "on torch", v["torch"])' "$venv/VERSIONS.json"); accel-sim $bin"
printf '\n%-34s %14s %12s %10s  %s\n' "configuration" "Accelerate s" "accel-sim s" "ratio" "how Accelerate's time was obtained; counts"

run_config() {  # name flags...
  local name=$1
  shift
  local py_json t0 t1 wall
  t0=$(now_ns)
  py_json=$("$venv/bin/python" "$root/bench/accelerate_whatif.py" "$@" --max-seconds "$max_seconds")
  t1=$(now_ns)
  wall=$(python3 -c "print(($t1 - $t0) / 1e9)")
  local sim_s sim_json
  sim_s=$(time_accel_sim "$@")
  sim_json=$("$bin" "$@" --json)
  python3 - "$name" "$wall" "$sim_s" "$py_json" "$sim_json" <<'PY'
import json, sys
name, wall, sim_s = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
py, sim = json.loads(sys.argv[4]), json.loads(sys.argv[5])
done, ranks = py["ranks_measured"], py["ranks"]
if done == ranks:
    acc = wall
    how = f"full run ({ranks} ranks; {py['import_s']:.1f} s of it importing torch + accelerate)"
else:
    # Start-up and imports once, then the measured ranks' time scaled to every rank.
    per_rank = py["enumerate_s"] / done
    acc = wall + per_rank * (ranks - done)
    how = f"EXTRAPOLATED: measured {done} of {ranks} ranks ({py['enumerate_s']:.1f} s), x{ranks / done:.1f}"
s = sim["scenarios"][0]
agree = "n/a (partial)"
if done == ranks:
    ok = (py["yielded"] == s["samples_yielded"] and py["duplicated"] == s["duplicated"]
          and py["never_seen"] == s["dropped"] + s["not_seen_before_resume"])
    agree = "agree" if ok else f"DIFFER (Accelerate {py}, accel-sim {s['samples_yielded']}/{s['duplicated']}/{s['dropped']})"
print(f"{name:<34} {acc:14.3f} {sim_s:12.4f} {acc / sim_s:9.0f}x  {how}; counts {agree}")
PY
}

run_config "R=64 x N=1001" --ranks 64 --dataset-len 1001
run_config "R=64 x N=1e6, batch 8" --ranks 64 --dataset-len 1000000 --batch-size 8
run_config "R=64 x N=1e6, batch 8, shuffled" --ranks 64 --dataset-len 1000000 --batch-size 8 --shuffle --seed 1
# skip_first_batches(prepared, 500000) on every rank: Accelerate's SkipBatchSampler iterates the skipped
# batches (and BatchSamplerShard the other ranks' batches); accel-sim skips in O(1).
run_config "skip 500k batches (R=8, batch 8)" --ranks 8 --dataset-len 32001024 --batch-size 8 --skip-batches 500000
