#!/usr/bin/env bash
# ctest label `sanitize` (issue 18): configures a second build folder with AddressSanitizer and
# UndefinedBehaviorSanitizer (no LibTorch: -DACCEL_SIM_RANKS=OFF -DACCEL_SIM_TORCH=OFF), builds only what
# the core/trace/sim/analysis/cli/golden/props tests need, and runs them there. Any sanitizer report fails
# the run: UBSan is built not to recover, ASan stops at its first error. The folder is kept, so a rerun only
# rebuilds what changed. PROPS_CASES (default 100) sets the properties' cases per property.
set -u
src=$1
out=$2
jobs=${SANITIZE_JOBS:-2}
cases=${PROPS_CASES:-100}
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Debug -DACCEL_SIM_RANKS=OFF -DACCEL_SIM_TORCH=OFF \
  "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
  -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST > "$out.configure.log" 2>&1 ||
  { echo "FAIL: configure the sanitizer build"; tail -20 "$out.configure.log"; exit 1; }
targets=(accel-sim core_tests trace_tests sim_tests analysis_tests reports_tests golden_tests props coverage_audit_props fuzz_inputs fuzz_cli)
nice -n 10 cmake --build "$out" -j "$jobs" --target "${targets[@]}" > "$out.build.log" 2>&1 ||
  { echo "FAIL: build with sanitizers"; grep -m 20 -E "error|Error" "$out.build.log"; exit 1; }
if grep -q "warning:" "$out.build.log"; then echo "FAIL: warnings"; grep "warning:" "$out.build.log" | head; exit 1; fi

# allocator_may_return_null: a config within the input limits may still ask for more memory than the
# machine has; the CLI turns that bad_alloc into exit 2, which is the behaviour under test.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:abort_on_error=0:exitcode=99
# robustness_test.sh leaves out the one check that needs a bad_alloc (ASan aborts on a failed new instead).
export ACCEL_SIM_SANITIZED=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
failed=0
run() {  # name command...
  local name=$1
  shift
  local start=$SECONDS
  if "$@" > "$out.$name.log" 2>&1; then
    echo "PASS $name ($((SECONDS - start)) s)"
  else
    echo "FAIL $name (exit $?, $((SECONDS - start)) s):"
    grep -m 20 -E "ERROR: AddressSanitizer|runtime error|SUMMARY|FAIL|Failure" "$out.$name.log"
    failed=1
  fi
}
run core "$out/tests/core_tests"
run trace "$out/tests/trace_tests"
run sim "$out/tests/sim_tests"
run analysis "$out/tests/analysis_tests"
run reports "$out/tests/reports_tests"
run coverage_audit env RC_PARAMS="max_success=$cases" "$out/tests/coverage_audit_props"
run golden "$out/tests/golden_tests"
run props "$out/props/props" --cases "$cases"
run cli bash "$src/tests/cli/cli_test.sh" "$out/accel-sim" "$src/golden/cases"
run cli_accelerator bash "$src/tests/cli/accelerator_api_test.sh" "$out/accel-sim"
run cli_mesh bash "$src/tests/cli/mesh_test.sh" "$out/accel-sim"
run cli_robustness bash "$src/tests/cli/robustness_test.sh" "$out/accel-sim" "$src/golden/cases"
run cli_reliability bash "$src/tests/cli/reliability_test.sh" "$out/accel-sim"
g=$src/golden
corpus="$g/cases:$g/cases-torch2:$g/cases-ddp:$g/cases-trainer:$g/cases-trainer-eval:$g/cases-releases/0.14.0:$g/cases-releases/0.28.0:$g/cases-releases/1.8.1:$g/cases-releases/1.15.0"
run fuzz bash "$src/tests/fuzz/fuzz_test.sh" "$out/tests/fuzz_inputs" "$corpus" "${FUZZ_EXECS:-3000}" "$out/accel-sim" 18
# Every surface (issue 51): the generic flags and a whole job of each surface, cycled.
run fuzz_cli "$out/tests/fuzz_cli" "$out/accel-sim" "${FUZZ_CLI_CASES:-400}" --seed "${FUZZ_CLI_SEED:-31}" --surface all \
  --corpus "$src/golden/cases"
# A sanitizer report inside a shell test's child shows in its log even when the script passed.
if grep -l -E "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer" "$out".*.log 2>/dev/null | grep -v build.log; then
  echo "FAIL: sanitizer reports in the logs above"
  failed=1
fi
[ "$failed" -eq 0 ] && echo "PASS sanitize: every test clean under ASan+UBSan"
exit "$failed"
