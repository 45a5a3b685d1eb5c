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
  check "dataset-len 1e12 shuffled, drawn" 2 "out of memory\|too large" "$bin" --dataset-len 1000000000000 --shuffle --ranks 2 --draw-ids
fi
check "launch nproc 2^62" 2 "nproc" "$bin" launch --nproc 4611686018427387904 --dataset-len 8

# Overflow: refused with the rule instead of a wrong answer with exit 0.
check "dataset-len int64 max" 2 "--dataset-len: must be an integer in \\[0, 1099511627776\\]" "$bin" --dataset-len 9223372036854775807 --ranks 2
check "batch-size x ranks" 2 "config.batch_size: times num_processes" "$bin" --dataset-len 100 --ranks 65536 --batch-size 1000000000
check "skip huge" 2 "--skip-batches: must be an integer in \\[0, 1099511627776\\]" "$bin" --dataset-len 100 --ranks 2 --skip-batches 9223372036854775807
check "ranks 1e8" 2 "--ranks: must be an integer in \\[1, 65536\\]" "$bin" --ranks 100000000 --dataset-len 10
check "epochs 1e8" 2 "--epochs: must be an integer in \\[1, 10000\\]" "$bin" trace --ranks 2 --dataset-len 10 --epochs 100000000

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
check "config /dev/zero" 2 "/dev/zero: is not a regular file" "$bin" trace --config /dev/zero
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

# Issue 31: one rule for every integer flag, config field and environment variable; every count bounded; every
# write checked; files that are not files refused; nothing silently ignored.
check "require ," 2 "--require: must list at least one entry, got ','" "$bin" check --ranks 4 --dataset-len 103 --require ,
check "require ,," 2 "--require: must list at least one entry" "$bin" check --ranks 4 --dataset-len 103 --require ,,
check "require a,,b" 2 "none may be empty" "$bin" check --ranks 4 --dataset-len 103 --require lockstep,,no-drops
check "require empty" 2 "--require: must not be empty" "$bin" check --ranks 4 --dataset-len 103 --require ''
check "require json ," 2 "--require" "$bin" check --ranks 4 --dataset-len 103 --require , --json
check "resume-ranks 1e6" 2 "--resume-ranks: must be an integer in \\[1, 65536\\], got '1000000'" \
  "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at 0:1 --resume-ranks 1000000
check "resume-ranks 2^64" 2 "--resume-ranks: must be an integer in" \
  "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at 0:1 --resume-ranks 18446744073709551616
check "resume-batch-size 2^64" 2 "--resume-batch-size: must be an integer in \\[1, 1099511627776\\]" \
  "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at 0:1 --resume-batch-size 18446744073709551616
check "resume batch x ranks" 2 "--resume-batch-size: times --resume-ranks must be <= 1099511627776" \
  "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at 0:1 --resume-batch-size 1099511627776 --resume-ranks 2
for v in 010 0x10 '' 9223372036854775808 ' 5' +5; do
  check "resume-skip '$v'" 2 "--resume-skip: must be an integer in" \
    "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at 0:5 --resume-skip "$v"
  check "resume-at-step '$v'" 2 "--resume-at-step: must be an integer in" \
    "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at-step "$v"
  check "overflow-seed '$v'" 2 "--overflow-seed: must be an integer" \
    "$bin" --ranks 2 --dataset-len 10 --scheduler constant --overflow-prob 0.5 --overflow-seed "$v"
done
check "resume-at 0:010" 2 "--resume-at: must be EPOCH:STEP; its STEP must be an integer in .* without leading zeros" \
  "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at 0:010
check "resume-at ''" 2 "--resume-at: must not be empty" "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at ''
check "resume-at-step x grad-accum overflow" 2 "--resume-at-step: must be an integer in" \
  "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at-step 9223372036854775807 --grad-accum 2
check "resume-at-step x grad-accum past the limit" 2 "--resume-at-step: times --grad-accum" \
  "$bin" --ranks 4 --dataset-len 100 --epochs 2 --resume-at-step 1099511627776 --grad-accum 2
check "env grad accum 010" 2 "environment ACCELERATE_GRADIENT_ACCUMULATION_STEPS: must be an integer in" \
  env ACCELERATE_GRADIENT_ACCUMULATION_STEPS=010 "$bin" --ranks 2 --dataset-len 10 --scheduler constant
check "env WORLD_SIZE 01" 2 "environment WORLD_SIZE: must be an integer in \\[1, 65536\\] written in decimal" \
  env WORLD_SIZE=01 "$bin" run --dataset-len 10
printf 'num_processes: 0x10\n' > "$tmp/hex.yaml"
check "config-file 0x10" 2 "config_file.num_processes: must be an integer in" "$bin" --config-file "$tmp/hex.yaml" --dataset-len 10
# Closed-form counts: a batch of 2^31 costs what a small one does (it took 9.8 s and 4.2 GB, then ran out of memory).
start=$(date +%s)
check "batch-size 2^31 what-if" 0 "batch_size 2147483648" "$bin" --ranks 4 --dataset-len 1000 --batch-size 2147483648
check "batch-size 2^31 check" 1 "FAIL no-duplicates" "$bin" check --ranks 4 --dataset-len 1000 --batch-size 2147483648 --require no-duplicates
check "batch-size 2^31 eval bounded" 2 "--eval: the evaluation pass gathers up to 8589934592 sample ids" \
  "$bin" --ranks 4 --dataset-len 1000 --batch-size 2147483648 --eval
[ $(( $(date +%s) - start )) -le 20 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL batch 2^31 took over 20 s"; }
# fuzz_cli seed 202: 65536 ranks x 34 passes replayed took 1.6 GB (and aborted under a 2 GB cap); now bounded.
start=$(date +%s)
# (ASan reserves terabytes of address space: the sanitizer build runs it without the cap.)
cap="ulimit -v 2097152;"
[ -n "${ACCEL_SIM_SANITIZED:-}" ] && cap=""
check "replay of many ranks x passes bounded" 1 "65536 ranks x 34 passes" sh -c "$cap exec '$bin' check \
  --dataset-len 37 --require no-duplicates --ranks 65536 --skip-batches 1099511627776 --batch-size 12 --epochs 34"
[ $(( $(date +%s) - start )) -le 20 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL replay bound took over 20 s"; }
# Writes: every output flushed and checked.
check "version to /dev/full" 2 "writing the version to stdout failed" sh -c "'$bin' --version > /dev/full"
check "help to /dev/full" 2 "writing the output failed" sh -c "'$bin' --help > /dev/full"
check "html ''" 2 "--html: must not be empty" "$bin" --ranks 2 --dataset-len 10 --html ''
check "junit ''" 2 "--junit: must not be empty" "$bin" check --ranks 2 --dataset-len 10 --require lockstep --junit ''
check "junit /dev/full" 2 "--junit: writing /dev/full failed" "$bin" check --ranks 2 --dataset-len 10 --require lockstep --junit /dev/full
check "html into a folder" 2 "--html: cannot write $tmp" "$bin" --ranks 2 --dataset-len 10 --html "$tmp"
# Files that are not files: refused at once (a FIFO used to block forever, a self-link was an internal error).
mkfifo "$tmp/fifo.json"
check "trace --config FIFO" 2 "is not a regular file (a FIFO)" "$bin" trace --config "$tmp/fifo.json"
check "config-file FIFO" 2 "--config-file: $tmp/fifo.json: is not a regular file" "$bin" --config-file "$tmp/fifo.json" --dataset-len 10
mkdir "$tmp/fifo_golden" && mkfifo "$tmp/fifo_golden/case.json"
check "golden with a FIFO case" 2 "case.json: is not a regular file (a FIFO)" "$bin" check --golden "$tmp/fifo_golden"
ln -s "$tmp/loop" "$tmp/loop"
check "golden self-link" 2 "--golden: $tmp/loop is not a directory (Too many levels of symbolic links)" "$bin" check --golden "$tmp/loop"
check "config self-link" 2 "Too many levels of symbolic links" "$bin" trace --config "$tmp/loop"
# Nothing silently ignored: flags beside a file or a folder that would not be used, unknown config keys.
check "golden with require" 2 "--require: not with --golden" "$bin" check --golden "$golden" --require lockstep
check "trace config with ranks" 2 "--ranks: not with --config" "$bin" trace --config "$golden/$(ls "$golden" | head -1)" --ranks 8
echo '{"config": {"api": "accelerator+gather_for_metrics", "dataset_len": 4, "num_processes": 2, "accelerator": {}, "shuffel": true}}' > "$tmp/metrics.json"
check "unknown key in a metrics config" 2 "config.shuffel: is not a field of this config (did you mean \`shuffle\`?)" "$bin" trace --config "$tmp/metrics.json"
echo '{"config": {"api": "prepare_data_loader", "dataset_len": 4, "num_processes": 2, "use_stateful_dataloader": true}}' > "$tmp/pdl.json"
check "accelerator key at the top" 2 "config.use_stateful_dataloader: is an Accelerator / DataLoaderConfiguration option" "$bin" trace --config "$tmp/pdl.json"
printf '{"config": {\n  "dataset_len": 4,\n  "x": %s1%s}}' "$(printf '[%.0s' $(seq 70))" "$(printf ']%.0s' $(seq 70))" > "$tmp/deep.json"
check "deep nesting names line and column" 2 "nested deeper than 64 levels at line 3, column 71" "$bin" trace --config "$tmp/deep.json"
printf '{"config": {"dataset_len": 4,\n "num_processes": 1e400}}' > "$tmp/huge.json"
check "1e400 names line and column" 2 "outside the range of a double at line 2, column 19" "$bin" trace --config "$tmp/huge.json"
# torch refuses DataLoader(IterableDataset, shuffle=True); so does the simulation.
check "iterable shuffle" 2 "expected unspecified shuffle option, but got shuffle=True" "$bin" --dataset iterable --shuffle --ranks 2 --dataset-len 10

# Workers with torchdata's StatefulDataLoader: simulated where the recordings go (golden/cases-torch2/workers-stateful-*),
# refused by name where the real workers raise (a generator-owning shard) or where a state per worker is restored.
check "stateful workers are simulated" 0 "worker-duplicates" "$bin" --ranks 2 --dataset-len 13 --batch-size 2 \
  --dataset iterable --num-workers 2 --use-stateful-dataloader
check "stateful workers over a generator shard" 2 "config.num_workers: with use_stateful_dataloader over a generator-owning" \
  "$bin" --ranks 2 --dataset-len 11 --batch-size 2 --dataset iterable --dataset-generator --no-dispatch-batches \
  --num-workers 2 --use-stateful-dataloader
check "stateful resume with workers" 2 "config.num_workers: with a stateful resume is not simulated" "$bin" --ranks 2 \
  --dataset-len 13 --batch-size 2 --shuffle --num-workers 2 --use-stateful-dataloader --resume-at 0:1 --resume-with stateful
check "worker split without workers" 2 "--worker-split: needs --num-workers" "$bin" --ranks 2 --dataset-len 13 \
  --dataset iterable --worker-split strided

echo "robustness: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
