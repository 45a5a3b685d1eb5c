#!/usr/bin/env bash
# The installed package end to end: `cmake --install` into a temp prefix outside the checkout; the installed
# examples/consumer configured against it (-DCMAKE_PREFIX_PATH) builds, and its rank-0 batches equal the installed
# `accel-sim trace` for the same configs; the installed accel-sim answers --version from /, finds its reference
# recorder in share/accel-sim without ACCEL_SIM_ROOT, and runs real ranks through the installed accel-sim-rank; the
# installed LibTorch example builds from the prefix and trains on the trace's ids.
# usage: install_consumer_test.sh SOURCE_DIR BUILD_DIR TRACE_BATCHES PROJECT_VERSION
set -uo pipefail
src="$1" build="$2" trace_batches="$3" version="$4"
tmp="$(mktemp -d /tmp/accel-sim-install-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
failures=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "FAIL install"; exit 1; }
for f in bin/accel-sim lib/cmake/accel_sim/accel_simConfig.cmake include/accel_sim/core/batch_sampler_shard.hpp \
         include/accel_sim/sim/simulator.hpp include/accel_sim/trace/trace.hpp share/accel-sim/golden/record \
         share/accel-sim/golden/reference/record.py share/accel-sim/examples/consumer/CMakeLists.txt; do
  [ -e "$prefix/$f" ] || fail "installed $f"
done

# Every installed header compiles on its own from the prefix (one translation unit each, <accel_sim/...> spelling),
# so none leans on the source tree or on being included after another.
mkdir -p "$tmp/headers"
{
  echo 'cmake_minimum_required(VERSION 3.25)'
  echo 'project(accel_sim_headers LANGUAGES CXX)'
  echo 'set(CMAKE_CXX_STANDARD 20)'
  echo 'find_package(accel_sim CONFIG REQUIRED)'
  echo 'add_library(headers OBJECT)'
  echo 'target_compile_options(headers PRIVATE -Wall -Wextra)'
  echo 'target_link_libraries(headers PRIVATE accel_sim::sim)'
} >"$tmp/headers/CMakeLists.txt"
n=0
for h in "$prefix"/include/accel_sim/{core,trace,sim}/*.hpp; do
  rel="${h#"$prefix/include/"}"
  printf '#include <%s>\n' "$rel" >"$tmp/headers/h$n.cpp"
  echo "target_sources(headers PRIVATE h$n.cpp)" >>"$tmp/headers/CMakeLists.txt"
  n=$((n + 1))
done
if nice -n 10 cmake -S "$tmp/headers" -B "$tmp/headers/build" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/headers.log" 2>&1 &&
   nice -n 10 cmake --build "$tmp/headers/build" -j 2 >>"$tmp/headers.log" 2>&1 && ! grep -q "warning:" "$tmp/headers.log"; then
  pass "each of the $n installed headers compiles alone from the prefix"
else
  grep -E "error|warning" "$tmp/headers.log" | head -20
  fail "each of the $n installed headers compiles alone from the prefix"
fi

# The installed copy of the example, built only from the prefix.
if nice -n 10 cmake -S "$prefix/share/accel-sim/examples/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_BUILD_TYPE=Release >"$tmp/consumer.log" 2>&1 &&
   nice -n 10 cmake --build "$tmp/consumer" -j 2 >>"$tmp/consumer.log" 2>&1; then
  pass "consumer configures and builds against the prefix"
else
  cat "$tmp/consumer.log"
  fail "consumer configures and builds against the prefix"
  echo "$failures failed"
  exit 1
fi
if grep -q "warning:" "$tmp/consumer.log"; then fail "consumer builds warning-free"; grep "warning:" "$tmp/consumer.log"; fi

# Each config: the consumer's first K batches of rank 0 against the simulator's trace, via the installed CLI.
# The example's --shuffle is the seedable sampler (it prepares with use_seedable_sampler=True); accel-sim's flags
# follow prepare_data_loader's default (False), so the comparison asks for it.
seedable_when_shuffled() { for a in "$@"; do [ "$a" = --shuffle ] && echo --use-seedable-sampler; done; return 0; }
check_config() {
  local name="$1" k="$2"
  shift 2
  if ! (cd / && "$tmp/consumer/consumer" "$@" --batches "$k") >"$tmp/mine" 2>"$tmp/err"; then
    cat "$tmp/err"; fail "consumer $name runs"; return
  fi
  (cd / && "$prefix/bin/accel-sim" trace --api prepare_data_loader "$@" $(seedable_when_shuffled "$@")) >"$tmp/trace.json" || { fail "accel-sim trace $name"; return; }
  "$trace_batches" "$tmp/trace.json" 0 | head -n "$k" >"$tmp/expected"
  grep -v '^#' "$tmp/mine" >"$tmp/mine.batches"
  if [ -s "$tmp/expected" ] && diff -u "$tmp/expected" "$tmp/mine.batches"; then
    pass "consumer $name equals accel-sim trace ($(wc -l <"$tmp/expected") batches)"
  else
    fail "consumer $name equals accel-sim trace"
  fi
}
check_config two-ranks 4 --ranks 2 --dataset-len 10 --batch-size 3
check_config uneven-padded 5 --ranks 3 --dataset-len 23 --batch-size 4
check_config split-shuffled 6 --ranks 4 --dataset-len 50 --batch-size 8 --split-batches --shuffle --seed 42
check_config drop-last-uneven 3 --ranks 2 --dataset-len 21 --batch-size 4 --drop-last --no-even-batches
echo "consumer output (defaults):"
(cd / && "$tmp/consumer/consumer")

# --version from /, naming the CMake project version and the Accelerate release the recorder pins.
accelerate="$(sed -n 's/^ACCELERATE_VERSION=//p' "$src/golden/setup-reference")"
for form in --version version; do
  if out="$(cd / && "$prefix/bin/accel-sim" $form)" && grep -qx "accel-sim $version" <<<"$out" &&
     grep -q "Accelerate $accelerate " <<<"$out" && grep -q "torch 2.6" <<<"$out" && grep -q "torch 1.13" <<<"$out"; then
    pass "accel-sim $form from /"
  else
    printf '%s\n' "$out"
    fail "accel-sim $form from / (expected accel-sim $version, Accelerate $accelerate, torch 2.6 and 1.13)"
  fi
done

# compare --reference finds share/accel-sim/golden/record with no checkout around; the missing environment is then
# looked for in the user's cache (an installed tree may be read-only).
out="$(cd / && env -u ACCEL_SIM_ROOT -u ACCEL_SIM_REFERENCE_VENV -u XDG_CACHE_HOME HOME="$tmp/home" \
         "$prefix/bin/accel-sim" compare --reference --ranks 2 --dataset-len 10 2>&1)"
status=$?
if [ $status -eq 2 ] && grep -q "reference environment missing" <<<"$out" &&
   grep -q "$tmp/home/.cache/accel-sim/reference-venv" <<<"$out"; then
  pass "installed compare --reference finds its recorder and looks for the venv in ~/.cache"
else
  printf '%s\n' "$out"
  fail "installed compare --reference finds its recorder (exit $status)"
fi
# With a real reference environment at hand, the installed recorder runs the real Accelerate.
venv="${ACCEL_SIM_REFERENCE_VENV:-$src/build/reference-venv}"
if [ -x "$venv/bin/python" ] && [ -f "$venv/VERSIONS.json" ]; then
  if out="$(cd / && env -u ACCEL_SIM_ROOT ACCEL_SIM_REFERENCE_VENV="$venv" "$prefix/bin/accel-sim" compare --reference \
              --ranks 3 --dataset-len 10 --batch-size 2 --no-even-batches 2>&1)" && grep -qx identical <<<"$out"; then
    pass "installed compare --reference with the real Accelerate: identical"
  else
    printf '%s\n' "$out"
    fail "installed compare --reference with the real Accelerate"
  fi
else
  echo "SKIP installed compare --reference with the real Accelerate (no environment at $venv)"
fi

# Real ranks through the installed accel-sim-rank, when it was built.
if [ -x "$prefix/bin/accel-sim-rank" ]; then
  if out="$(cd / && "$prefix/bin/accel-sim" launch --nproc 2 --dataset-len 10 --batch-size 3 2>&1)" &&
     grep -q "identical" <<<"$out"; then
    pass "installed accel-sim launch --nproc 2"
  else
    printf '%s\n' "$out"
    fail "installed accel-sim launch --nproc 2"
  fi
fi

# The installed LibTorch example, built from the prefix alone (find_package(accel_sim COMPONENTS torch)), passes
# the same checks as the in-tree build: its ranks' ids equal the installed accel-sim trace.
if [ -f "$prefix/lib/cmake/accel_sim/accel_sim_torch_targets.cmake" ]; then
  if nice -n 10 cmake -S "$prefix/share/accel-sim/examples/libtorch_training" -B "$tmp/training" \
       -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$tmp/training.log" 2>&1 &&
     nice -n 10 cmake --build "$tmp/training" -j 2 >>"$tmp/training.log" 2>&1 && ! grep -q "warning:" "$tmp/training.log"; then
    pass "libtorch_training configures and builds warning-free against the prefix (COMPONENTS torch)"
    if bash "$src/tests/install/libtorch_training_test.sh" "$tmp/training/libtorch_training" "$prefix/bin/accel-sim" \
         "$trace_batches"; then
      pass "installed libtorch_training: every rank's ids equal the installed accel-sim trace"
    else
      fail "installed libtorch_training: every rank's ids equal the installed accel-sim trace"
    fi
  else
    grep -E "warning:|rror" "$tmp/training.log" | head -20
    fail "libtorch_training configures and builds warning-free against the prefix (COMPONENTS torch)"
  fi
fi

[ $failures -eq 0 ] || { echo "$failures failed"; exit 1; }
