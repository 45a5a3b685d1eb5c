#!/usr/bin/env bash
# Runs the seeded fuzzer (fuzz_inputs.cpp) over golden/cases: ctest label `fuzz` with a fixed seed and a
# few thousand executions (seconds); scripts/fuzz.sh runs it long with a fresh seed.
#   fuzz_test.sh FUZZ_INPUTS CORPUS EXECUTIONS [ACCEL_SIM] [SEED]
# A finding is saved under the build folder as fuzz-finding-SEED-N.json and fails the test.
set -u
fuzz=$1
corpus=$2
execs=${FUZZ_EXECS:-$3}
cli=${4:-}
seed=${5:-${FUZZ_SEED:-$(date +%s%N)}}
args=("$corpus" "$execs" --seed "$seed" --save "$(dirname "$fuzz")")
[ -n "$cli" ] && args+=(--cli "$cli" --cli-every "${FUZZ_CLI_EVERY:-25}")
exec "$fuzz" "${args[@]}"
