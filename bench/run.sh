#!/usr/bin/env bash
# Builds and runs accel-sim's benchmarks, then times the CLI itself:
#
#   bench/run.sh [GOOGLE-BENCHMARK FLAGS...]     e.g. bench/run.sh --benchmark_filter=Randperm
#
# 1. accel_bench (Google Benchmark): ids/s (sequential; torch-exact shuffles), R=64 x N=1e6 simulate and
#    what-if, the R=4096 x N=1e9 coverage audits (time and peak RSS, each in a child process), skip of
#    500k batches.
# 2. `accel-sim --ranks 64 --dataset-len 1001` as a whole process (hyperfine when installed, else a loop).
# 3. The CLI's R=4096 x N=1e9, batch 32 what-if, sequential and shuffled: wall time and peak RSS
#    (/usr/bin/time).
# Builds into build/ (Release, at most 2 jobs). Timings are only as quiet as the machine: the load
# average is printed first; rerun when it is near 0 for figures worth quoting.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ACCEL_SIM_BUILD:-$root/build}"
cd "$root"

echo "bench: $(uptime | sed 's/.*load/load/')"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j 2 --target accel_bench accel-sim >/dev/null

echo
echo "== Google Benchmark (items_per_second = ids/s; peak_rss_GiB from the audit's child process)"
"$build/bench/accel_bench" --benchmark_counters_tabular=false "$@"

echo
echo "== accel-sim --ranks 64 --dataset-len 1001, whole process"
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 20 --runs 300 "$build/accel-sim --ranks 64 --dataset-len 1001"
else
  runs=300
  start=$(date +%s%N)
  for _ in $(seq $runs); do "$build/accel-sim" --ranks 64 --dataset-len 1001 >/dev/null; done
  end=$(date +%s%N)
  echo "mean $(( (end - start) / runs / 1000 )) us over $runs runs (install hyperfine for a spread)"
fi

echo
echo "== accel-sim what-if, R=4096 x N=1e9, batch 32 (wall, peak RSS)"
timed() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "  %e s wall, peak RSS %M KiB" "$@" >/dev/null
  else
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    echo "  $(( (end - start) / 1000000 )) ms wall (no /usr/bin/time for the peak RSS)"
  fi
}
echo "sequential:"
timed "$build/accel-sim" --ranks 4096 --dataset-len 1000000000 --batch-size 32
echo "shuffled (SeedableRandomSampler, torch 2.6: inside-out randperm):"
timed "$build/accel-sim" --ranks 4096 --dataset-len 1000000000 --batch-size 32 --shuffle --seed 1
echo "shuffled, torch 1.13 (forward randperm):"
timed "$build/accel-sim" --ranks 4096 --dataset-len 1000000000 --batch-size 32 --shuffle --seed 1 --torch-version 1.13
