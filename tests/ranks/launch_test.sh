#!/usr/bin/env bash
# One real job: `accel-sim launch --nproc N FLAGS` must end with rank 0's "identical" (exit 0), and the
# trace rank 0 wrote must come from N real ranks, with the loader class (--expect-class) or the
# configuration error (--expect-error TYPE) the test means to exercise.
#   launch_test.sh ACCEL_SIM N [--expect-class C | --expect-error T] FLAGS...
set -u
bin=$1
nproc=$2
shift 2
expect_class=
expect_error=
case "${1:-}" in
  --expect-class) expect_class=$2; shift 2 ;;
  --expect-error) expect_error=$2; shift 2 ;;
esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
log=$("$bin" launch --nproc "$nproc" --timeout-s 20 --out "$out" "$@" 2>&1)
rc=$?
echo "$log"
if [ "$rc" -ne 0 ]; then echo "FAIL: exit $rc, wanted 0"; exit 1; fi
# With --out the verdict is rank 0's stdout, as it wrote it.
if ! grep -qE "^identical to the simulator's prediction( \(.*\))?$" <<<"$log"; then echo "FAIL: rank 0 did not say identical"; exit 1; fi
if ! grep -q '"generator": "accel-sim-rank"' "$out" || ! grep -q "\"world_size\": $nproc" "$out"; then
  echo "FAIL: $out is not a trace of $nproc real ranks"
  exit 1
fi
if [ -n "$expect_class" ]; then
  n=$(grep -c "^      \"loader_class\": \"$expect_class\"" "$out")
  if [ "$n" -ne "$nproc" ]; then echo "FAIL: $n of $nproc ranks used $expect_class"; exit 1; fi
fi
if [ -n "$expect_error" ] && ! grep -q "^    \"type\": \"$expect_error\"" "$out"; then
  echo "FAIL: the trace does not hold the expected $expect_error"
  exit 1
fi
echo "PASS: $nproc real ranks match the simulator"
