#!/usr/bin/env bash
# The long fuzz run on demand (issue 18): builds fuzz_inputs and accel-sim in build/ and runs EXECUTIONS
# (default 100,000) mutated inputs from every golden set with a fresh seed, every 25th also through accel-sim.
#   scripts/fuzz.sh [EXECUTIONS] [SEED]
#   scripts/fuzz.sh --cli [CASES] [SEED] [SURFACE]   command lines over every flag of every command (fuzz_cli, issue
#                                                     31), or whole jobs of one surface (issue 51: trainer, hf, workers,
#                                                     mesh, releases, recorded, config-file; all cycles them)
# For the sanitizer build: FUZZ_BUILD=build/sanitize (after `ctest -L sanitize` configured it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD:-build}
if [ "${1:-}" = --cli ]; then
  nice -n 10 cmake --build "$build" -j 2 --target fuzz_cli accel-sim >/dev/null
  exec "$build/tests/fuzz_cli" "$build/accel-sim" "${2:-1000}" --seed "${3:-$(date +%s%N)}" --surface "${4:-flags}" \
    --corpus golden/cases
fi
nice -n 10 cmake --build "$build" -j 2 --target fuzz_inputs accel-sim >/dev/null
g=golden
corpus="$g/cases:$g/cases-torch2:$g/cases-ddp:$g/cases-trainer:$g/cases-trainer-eval:$(ls -d $g/cases-releases/* | paste -sd:)"
exec bash tests/fuzz/fuzz_test.sh "$build/tests/fuzz_inputs" "$corpus" "${1:-100000}" "$build/accel-sim" "${2:-$(date +%s%N)}"
