#!/usr/bin/env bash
# Issue 18: accel-sim on hostile input exits 2 (or 1 for a diff) with the rule, within seconds: never a
# signal, a hang, an internal error (70) or a silent wrong answer. One check per finding of the campaign.
set -u
bin=$1
golden=$2
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {  # name expected_exit pattern command...: the exit code, and the pattern in stdout+stderr
  local name=$1 want=$2 pattern=$3
  shift 3
  local out rc
  out=$(timeout 60 "$@" 2>&1)
  rc=$?
  if [ "$rc" -eq "$want" ] && { [ -z "$pattern" ] || echo "$out" | grep -q -- "$pattern"; }; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc (wanted $want), pattern '$pattern'"
    echo "$out" | head -5
  fi
}

# Crashes that were signals.
python3 -c 'print("{\"config\": " + "[" * 30000 + "]" * 30000 + "}")' > "$tmp/deep.json"
check "deep nesting" 2 "nested deeper than" "$bin" trace --config "$tmp/deep.json"
check "deep nesting in diff" 2 "nested deeper than" "$bin" diff "$tmp/deep.json" "$tmp/deep.json"
echo '{"config": {"dataset_len": 1e400, "num_processes": 2}}' > "$tmp/big.json"
check "number beyond double" 2 "outside the range of a double" "$bin" trace --config "$tmp/big.json"
echo '{"config": {"api": null, "dataset_len": 4, "num_processes": 2}}' > "$tmp/api-null.json"
check "api null is the default" 0 '"family": "map"' "$bin" trace --config "$tmp/api-null.json"
echo '{"config": {"dataset_kind": 5, "dataset_len": 4, "num_processes": 2}}' > "$tmp/kind.json"
check "dataset_kind a number" 2 "config.dataset_kind: must be a string" "$bin" trace --config "$tmp/kind.json"
mkdir "$tmp/golden"
sed 's/"case": "[^"]*"/"case": 5/' "$golden/map-n3-b3-l10-split-uneven-keep.json" > "$tmp/golden/numbered.json"
check "check --golden, case a number" 1 "DIFFERS      numbered.json: first divergence at case" "$bin" check --golden "$tmp/golden"
# Under AddressSanitizer a failed operator new aborts instead of throwing bad_alloc: not checked there.
if [ -z "${ACCEL_SIM_SANITIZED:-}" ]; then
  check "dataset-len 1e12 shuffled" 2 "out of memory\|too large" "$bin" --dataset-len 1000000000000 --shuffle --ranks 2
fi
check "launch nproc 2^62" 2 "nproc" "$bin" launch --nproc 4611686018427387904 --dataset-len 8

# Overflow: refused with the rule instead of a wrong answer with exit 0.
check "dataset-len int64 max" 2 "config.dataset_len: must be <= 1099511627776" "$bin" --dataset-len 9223372036854775807 --ranks 2
check "batch-size x ranks" 2 "config.batch_size: times num_processes" "$bin" --dataset-len 100 --ranks 65536 --batch-size 1000000000
check "skip huge" 2 "config.skip_first_batches" "$bin" --dataset-len 100 --ranks 2 --skip-batches 9223372036854775807
check "ranks 1e8" 2 "config.num_processes: must be <= 65536" "$bin" --ranks 100000000 --dataset-len 10
check "epochs 1e8" 2 "config.epochs: must be <= 10000" "$bin" trace --ranks 2 --dataset-len 10 --epochs 100000000

# At the limits, where products of counts used to overflow int64 (UBSan named them): the answer comes within
# seconds with exit 0-2 (the sanitize label runs this under UBSan, which fails on any overflow).
check_any() {  # name command...: exit 0, 1 or 2
  local name=$1
  shift
  local out rc
  out=$(timeout 60 "$@" 2>&1)
  rc=$?
  if [ "$rc" -le 2 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name: exit $rc"; echo "$out" | tail -5; fi
}
max=1099511627776
for extreme in "--skip-batches $max --batch-size 1048576 --ranks 2 --dataset-len 100" \
               "--skip-batches $max --batch-size 16777216 --ranks 65536 --dataset-len 100 --dispatch-batches" \
               "--skip-batches $max --batch-size 1 --ranks 1 --dataset-len $max" \
               "--batch-size $max --ranks 1 --dataset-len $max" \
               "--dataset iterable --batch-size 16777216 --ranks 65536 --dataset-len $max --skip-batches $max" \
               "--dataset iterable --batch-size 16777216 --ranks 65536 --dataset-len $max --split-batches" \
               "--batch-size 16777216 --ranks 65536 --dataset-len $max --split-batches" \
               "--batch-size 16777216 --ranks 65536 --dataset-len $max --no-even-batches --epochs 10000" \
               "--batch-size 3 --ranks 65535 --dataset-len $max --drop-last --skip-batches 7 --epochs 2"; do
  # shellcheck disable=SC2086
  check_any "what-if $extreme" "$bin" $extreme
  # shellcheck disable=SC2086
  check_any "check $extreme" "$bin" check --require no-duplicates,no-drops,lockstep,len-consistent,full-coverage $extreme
done
check_any "trace at the limits" "$bin" trace --skip-batches $max --batch-size 1048576 --ranks 2 --dataset-len 100 --epochs 2

# Unbounded reads and work.
check "config /dev/zero" 2 "larger than 64 MiB" "$bin" trace --config /dev/zero
start=$(date +%s)
check "ranks at the limit, tiny dataset" 0 "" "$bin" --ranks 65536 --dataset-len 10
[ $(( $(date +%s) - start )) -le 20 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL 65536 ranks took over 20 s"; }

# Silently wrong answers.
echo '[9223372036854775808]' > "$tmp/a.json"; echo '[-9223372036854775808]' > "$tmp/b.json"
check "diff 2^63 vs -2^63" 1 "expected 9223372036854775808, actual -9223372036854775808" "$bin" diff "$tmp/a.json" "$tmp/b.json"
echo '[18446744073709551615]' > "$tmp/a.json"; echo '[-1]' > "$tmp/b.json"
check "diff 2^64-1 vs -1" 1 "first divergence" "$bin" diff "$tmp/a.json" "$tmp/b.json"
check "html to /dev/full" 2 "--html: writing /dev/full failed" "$bin" --ranks 2 --dataset-len 10 --html /dev/full
check "trace to /dev/full" 2 "writing the output failed" sh -c "'$bin' trace --ranks 2 --dataset-len 10 > /dev/full"
echo '{"config": {"dataset_len": 4, "num_processes": 2, "dataset_len": 8}}' > "$tmp/dup.json"
check "duplicate key" 2 'duplicate key "dataset_len"' "$bin" trace --config "$tmp/dup.json"
check "even-batches pair" 2 "conflicts" "$bin" --ranks 2 --dataset-len 10 --even-batches --no-even-batches
echo '{"config": {"dataset_len": 8, "num_processes": 2, "scheduler": {"kind": "step", "base_lr": 0.1, "step_size": 1}}}' > "$tmp/sched.json"
check "scheduler without api" 2 "config.api: a config with \`scheduler\`" "$bin" trace --config "$tmp/sched.json"

echo "robustness: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
