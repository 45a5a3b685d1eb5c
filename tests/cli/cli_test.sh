#!/usr/bin/env bash
# The CLI as a user runs it: exit codes, the trace | diff pipeline, clear errors on bad input.
set -u
bin=$1
golden=$2
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

case_file=$golden/map-n3-b3-l10-split-uneven-keep.json
check "summary runs" 0 "$bin" --ranks 64 --dataset-len 1001
check_output "what-if names the duplicates" "23 samples are seen twice (ids 0-22)" "$bin" --ranks 64 --dataset-len 1001
check_output "advice states what it costs" "even_batches=False (simulated) removes them, but ranks 0-40 then wait forever at step 15" \
  "$bin" --ranks 64 --dataset-len 1001
check_lacks "no even_batches advice when it is already off" "even_batches=False (simulated)" \
  "$bin" --ranks 8 --dataset-len 1001 --no-even-batches --shuffle --rng-types none
# 8 ranks x 126 steps = 1008 yields for 1001 samples: 7 padded once every rank follows one seeded order.
check_output "unseeded advice is the simulated fix" "with set_seed(N) on every rank (--set-seed N, simulated) 7 duplicated and 0 never seen" \
  "$bin" --ranks 8 --dataset-len 1001 --shuffle --rng-types none
check_output "what-if names the short ranks" "ranks 41-63 get one batch fewer" "$bin" --ranks 64 --dataset-len 1001 --no-even-batches
check_output "json report" '"report_version": 2' "$bin" --ranks 64 --dataset-len 1001 --json
html=$(mktemp)
check "html report" 0 "$bin" --ranks 8 --dataset-len 100 --html "$html"
check_output "html has svg charts" '<svg class="chart" id="coverage"' cat "$html"
rm -f "$html"

# The CI gate: each requirement on a config that satisfies it (0) and one that does not (1).
check "gate no-duplicates holds" 0 "$bin" check --ranks 64 --dataset-len 1024 --require no-duplicates
check "gate no-duplicates fails" 1 "$bin" check --ranks 64 --dataset-len 1001 --require no-duplicates
check_output "gate shows duplicate evidence" "sample 0 is yielded at rank 0 step 0; rank 41 step 15" \
  "$bin" check --ranks 64 --dataset-len 1001 --require no-duplicates
check "gate no-drops holds" 0 "$bin" check --ranks 64 --dataset-len 1001 --require no-drops
check "gate no-drops fails" 1 "$bin" check --ranks 64 --dataset-len 1001 --drop-last --require no-drops
check "gate lockstep holds" 0 "$bin" check --ranks 64 --dataset-len 1001 --require lockstep
check "gate lockstep fails" 1 "$bin" check --ranks 64 --dataset-len 1001 --no-even-batches --require lockstep
check_output "gate lockstep evidence" "ranks 41-63 yield 15 batches, others 16" \
  "$bin" check --ranks 64 --dataset-len 1001 --no-even-batches --require lockstep
check "gate len-consistent holds" 0 "$bin" check --ranks 3 --dataset-len 10 --batch-size 3 --require len-consistent
check "gate len-consistent fails" 1 "$bin" check --ranks 3 --dataset-len 10 --batch-size 3 --split-batches --no-even-batches --require len-consistent
check "gate full-coverage holds" 0 "$bin" check --ranks 8 --dataset-len 64 --batch-size 4 --shuffle --seed 1 --require full-coverage
check "gate full-coverage fails" 1 "$bin" check --ranks 8 --dataset-len 65 --batch-size 4 --require full-coverage
check "gate unknown requirement" 2 "$bin" check --ranks 2 --dataset-len 10 --require bogus
check "gate rejected config" 2 "$bin" check --ranks 4 --dataset-len 10 --batch-size 6 --split-batches --require lockstep
check "gate needs a requirement" 2 "$bin" check --ranks 4 --dataset-len 10
# The evaluation loop: gather_for_metrics's counts, the verified fix, and the exact-metrics gate.
check_output "eval exact on 64 ranks" '"metric_samples": 1001' "$bin" --ranks 64 --dataset-len 1001 --eval --json
check_output "eval names iterable duplicates" "2 of them duplicates (ids 0, 1)" "$bin" --ranks 2 --dataset-len 10 --batch-size 3 --dataset iterable --no-dispatch-batches --eval
check_output "eval verifies the dispatch fix" "exact in simulation with dispatch_batches=True" "$bin" --ranks 2 --dataset-len 10 --batch-size 3 --dataset iterable --no-dispatch-batches --eval
check_output "iterable duplicates are not fixed by gather_for_metrics" "gather_for_metrics does not remove them either" "$bin" --ranks 2 --dataset-len 10 --batch-size 3 --dataset iterable --no-dispatch-batches
check "eval loop flags need --eval" 2 "$bin" --ranks 2 --dataset-len 10 --use-gather-object
check "gate exact-metrics holds" 0 "$bin" check --ranks 64 --dataset-len 1001 --require exact-metrics
check "gate exact-metrics fails" 1 "$bin" check --ranks 2 --dataset-len 10 --batch-size 3 --dataset iterable --no-dispatch-batches --require exact-metrics
check "gate exact-metrics with gather_object" 0 "$bin" check --ranks 4 --dataset-len 1 --dispatch-batches --use-gather-object --require exact-metrics,lockstep
check "gate exact-metrics tensor gather of unequal sizes" 1 "$bin" check --ranks 4 --dataset-len 1 --dispatch-batches --require exact-metrics
check "gate eval flags without exact-metrics" 2 "$bin" check --ranks 2 --dataset-len 10 --use-gather-object --require lockstep
check "eval break must be a number" 2 "$bin" --ranks 2 --dataset-len 10 --eval --eval-break-after x
check_output "metrics config names a bad field" "config.use_gather_object: must be true or false" \
  bash -c "echo '{\"config\": {\"api\": \"accelerator+gather_for_metrics\", \"dataset_len\": 10, \"num_processes\": 2, \"use_gather_object\": \"yes\"}}' | '$bin' trace --config -"
check "metrics trace matches its golden case" 0 bash -c "'$bin' trace --config '$golden/metrics-iter-n2-b3-l10-nodispatch.json' | '$bin' diff '$golden/metrics-iter-n2-b3-l10-nodispatch.json' -"
gdir=$(mktemp -d)
cp "$golden/map-n3-b3-l10-split-uneven-keep.json" "$golden/iter-n3-b3-l10-nosplit-even-keep.json" "$gdir/"
check "gate golden dir matches" 0 "$bin" check --golden "$gdir"
sed '0,/\[\[1\],\[4\],\[7\]\]/s//[[1],[4],[8]]/' "$golden/map-n3-b3-l10-split-uneven-keep.json" > "$gdir/altered.json"
check "gate golden dir differs" 1 "$bin" check --golden "$gdir"
check "gate golden not a dir" 2 "$bin" check --golden "$gdir/nope"
rm -rf "$gdir"
check "trace | diff equal" 0 bash -c "'$bin' trace --config '$case_file' | '$bin' diff '$case_file' -"
check_output "diff says identical" "identical" bash -c "'$bin' trace --config '$case_file' | '$bin' diff '$case_file' -"
check "trace from stdin" 0 bash -c "'$bin' trace --config - < '$case_file'"
tmp=$(mktemp -d)
# Rank 1's third batch of the first epoch altered: the diff must point there.
sed '0,/\[\[1\],\[4\],\[7\]\]/s//[[1],[4],[8]]/' "$case_file" > "$tmp/altered.json"
check "diff of different traces exits 1" 1 "$bin" diff "$case_file" "$tmp/altered.json"
check_output "diff names rank/epoch/batch" "rank 1, epoch 0, batch 2): expected 7, actual 8" "$bin" diff "$case_file" "$tmp/altered.json"
check "unknown flag" 2 "$bin" --ranks 2 --dataset-len 10 --bogus
check "zero ranks" 2 "$bin" --ranks 0 --dataset-len 10
check "negative dataset" 2 "$bin" --ranks 2 --dataset-len -3
check "zero batch size" 2 "$bin" --ranks 2 --dataset-len 10 --batch-size 0
check_output "split non-multiple names the rule" "round multiple of the number of processes" \
  "$bin" --ranks 4 --dataset-len 10 --batch-size 6 --split-batches
check "split non-multiple exits 2" 2 "$bin" --ranks 4 --dataset-len 10 --batch-size 6 --split-batches
echo '{"config": {"dataset_len": 10, ' > "$tmp/broken.json"
check "broken json" 2 "$bin" trace --config "$tmp/broken.json"
echo '{"config": {"dataset_len": "ten", "num_processes": 2}}' > "$tmp/wrongtype.json"
check_output "wrong type names the field" "config.dataset_len" "$bin" trace --config "$tmp/wrongtype.json"
check "wrong type exits 2" 2 "$bin" trace --config "$tmp/wrongtype.json"
check "missing file" 2 "$bin" trace --config "$tmp/nope.json"
check "diff bad file" 2 "$bin" diff "$tmp/broken.json" "$case_file"
check "compare needs --reference" 2 "$bin" compare --ranks 2 --dataset-len 10
check_output "compare says the reference is missing" "reference environment missing: run golden/setup-reference" \
  env ACCEL_SIM_REFERENCE_VENV="$tmp/no-venv" "$bin" compare --reference --ranks 2 --dataset-len 10
check "compare without the reference exits 2" 2 env ACCEL_SIM_REFERENCE_VENV="$tmp/no-venv" "$bin" compare --reference --ranks 2 --dataset-len 10
# Training loop: gradient accumulation and the wrapped lr scheduler.
train="--ranks 8 --dataset-len 1000 --batch-size 4 --grad-accum 4 --scheduler linear --warmup 10 --total-steps 100"
check "training what-if runs" 0 "$bin" $train
check_output "training shows optimizer steps" "optimizer steps    8 taken, 0 skipped (of 32 micro-steps)" "$bin" $train
check_output "training shows scheduler steps" "scheduler steps    64 (last_epoch 64)" "$bin" $train
# 32 micro-steps / 4 = 8 optimizer steps x 8 scheduler steps = 64 of the 100 the schedule was written for.
check_output "training warns that the schedule does not finish" "far from its end when training stops: last_epoch 64 of total_steps 100 (64%)" "$bin" $train
# Issue 25: a warm-up of 10 optimizer steps cannot fit 8, so the advice keeps the warm-up's share (10%) and says so;
# it used to advise warmup=80 of 64, which never decays. Applied, it warms up, decays to 0 and ends with training.
check_output "training prints the corrected length and warm-up, simulated" "total_steps=64 (8 optimizer steps x 8) with warmup=6 (keeping the warm-up's share of the schedule, 10%) warms up, decays and ends it with training (simulated: the schedule then ends at optimizer step 8 of 8, lr 0)" "$bin" $train
applied=$(echo "$train" | sed 's/--warmup 10 --total-steps 100/--warmup 6 --total-steps 64/')
check_lacks "the applied advice draws no schedule warning" "warning\[schedule-" "$bin" $applied
check_output "the applied advice ends at lr 0" "lr at epoch end    0$" "$bin" $applied
check_output "a warm-up that fits keeps its optimizer steps" "with warmup=16 (keeping a warm-up of 2 optimizer steps) warms up, decays" \
  "$bin" --ranks 8 --dataset-len 1000 --batch-size 4 --scheduler cosine --warmup 2 --total-steps 10
check_output "a cosine past its end rises again" "a cosine schedule past its end does not stay at its minimum" \
  "$bin" --ranks 8 --dataset-len 1000 --batch-size 4 --scheduler cosine --warmup 2 --total-steps 10
# 9408 samples / (4 x 8 ranks) = 294 optimizer steps; Accelerate's examples scale total_steps by 8: 2352.
scaled="--ranks 8 --dataset-len 9408 --batch-size 4 --scheduler linear --warmup 80"
check_lacks "a schedule scaled by num_processes is not flagged" "warning\[schedule-" "$bin" $scaled --total-steps 2352
check_output "an unscaled schedule ends early" "the schedule ends early: total_steps 294 is reached at optimizer step 37 of 294" "$bin" $scaled --total-steps 294
check_output "an oversized schedule never decays" "far from its end when training stops: last_epoch 2352 of total_steps 100000 (2%)" "$bin" $scaled --total-steps 100000
check_output "split_batches steps once" "1 scheduler step per optimizer step" \
  "$bin" --ranks 8 --dataset-len 1000 --batch-size 8 --split-batches --scheduler linear --total-steps 100
check_output "skipped steps are counted" "3 taken, 2 skipped" \
  "$bin" --ranks 2 --dataset-len 20 --grad-accum 2 --scheduler step --step-size 3 --overflow-steps 1,2,5
check_output "onecycle overrun is reported" "Tried to step 21 times" \
  "$bin" --ranks 4 --dataset-len 100 --batch-size 4 --split-batches --scheduler onecycle --total-steps 20
check "seeded overflow probability" 0 "$bin" --ranks 2 --dataset-len 50 --scheduler cosine --total-steps 40 --overflow-prob 0.2 --overflow-seed 3
for sched in sched-lin-n2-nosplit-ga4-l10-2ep sched-direct-onecycle-n2-nosplit-adjust; do
  check "trace | diff $sched" 0 bash -c "'$bin' trace --config '$golden/$sched.json' | '$bin' diff '$golden/$sched.json' -"
done
check "trace from training flags" 0 "$bin" trace --ranks 2 --dataset-len 6 --grad-accum 2 --scheduler linear --total-steps 10
check "grad-accum 0" 2 "$bin" --ranks 2 --dataset-len 10 --grad-accum 0 --scheduler linear --total-steps 5
check_output "grad-accum 0 names the flag" "--grad-accum: must be an integer in \\[1, 1099511627776\\]" \
  "$bin" --ranks 2 --dataset-len 10 --grad-accum 0 --scheduler linear --total-steps 5
check "unknown scheduler" 2 "$bin" --ranks 2 --dataset-len 10 --scheduler cyclic
check_output "missing total steps names the flag" "--total-steps: is required" "$bin" --ranks 2 --dataset-len 10 --scheduler linear
check "training flag without scheduler" 2 "$bin" --ranks 2 --dataset-len 10 --grad-accum 2
check "bad lr" 2 "$bin" --ranks 2 --dataset-len 10 --scheduler constant --lr -1
check "bad overflow prob" 2 "$bin" --ranks 2 --dataset-len 10 --scheduler constant --overflow-prob 1.5 --overflow-seed 1
check "bad overflow steps" 2 "$bin" --ranks 2 --dataset-len 10 --scheduler constant --overflow-steps 1,x
echo '{"config": {"api": "AcceleratedScheduler.step(direct)", "num_processes": 2, "scheduler": {"kind": "step", "base_lr": 0.1}, "sync_pattern": [true]}}' > "$tmp/sched.json"
check_output "scheduler config names the field" "config.scheduler.step_size" "$bin" trace --config "$tmp/sched.json"
check "scheduler config error exits 2" 2 "$bin" trace --config "$tmp/sched.json"
rm -rf "$tmp"
# Integer flags are decimal: CLI11 alone read 010 as octal (8 samples) and 0x10 as 16.
check_output "octal-looking value refused" "written in decimal without leading zeros, got '010'" "$bin" --dataset-len 010
check "octal-looking value exits 2" 2 "$bin" --dataset-len 010
check_output "hex refused" "digits only" "$bin" --dataset-len 0x10
check_output "1e6 says how to write it" "e.g. 1000000, not 1e6, 0x10 or 50,000" "$bin" --dataset-len 1e6
check_output "50,000 says how to write it" "e.g. 1000000, not 1e6, 0x10 or 50,000" "$bin" --dataset-len 50,000
check_output "past int64 is refused, not clamped" "--dataset-len: must be an integer in \\[0, 1099511627776\\], got '99999999999999999999'" "$bin" --dataset-len 99999999999999999999
# Issue 25: the report opens with its verdict, and its findings from every section come errors first.
check_output "the verdict leads with the error" "^verdict: error\[uneven-steps-hang\]: ranks 5-7 get one batch fewer" \
  "$bin" --ranks 8 --dataset-len 50000 --batch-size 16 --no-even-batches
check_output "a clean job's verdict" "^verdict: every sample once per epoch, ranks in lock-step$" "$bin" --ranks 4 --dataset-len 64 --batch-size 4
if "$bin" --ranks 8 --dataset-len 50000 --batch-size 16 --no-even-batches --scheduler linear --total-steps 10 --json | python3 -c "
import json, sys
j = json.load(sys.stdin)
sev = [f['severity'] for f in j['findings']]
order = {'error': 0, 'warning': 1, 'note': 2}
assert sev and sev[0] == 'error' and sev == sorted(sev, key=order.get), sev
assert {f['section'] for f in j['findings']} >= {'loader', 'training'}, j['findings']
assert j['verdict'].startswith('error[uneven-steps-hang]'), j['verdict']
assert j['warnings'] is not None  # kept for report_version 2 readers"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL findings are errors first, from every section"
fi
# Issue 25's new-user findings: an unknown option names its nearest, the requirement list is whole, resume errors name
# the flag and what to change.
check_output "unknown option did you mean" "unknown option --rank; did you mean --ranks?" "$bin" --rank 8 --dataset-len 10
check_output "unknown check option" "unknown option --requires of \`accel-sim check\`; did you mean --require?" \
  "$bin" check --dataset-len 10 --requires lockstep
check_output "requirement list has exact-resume" "full-coverage, exact-metrics, exact-resume, mesh-groups-agree)" \
  "$bin" check --ranks 2 --dataset-len 10 --require bogus
check_output "resume step past the epoch names the flag" "--resume-at: STEP 100 is past the end of epoch 0" \
  "$bin" --ranks 2 --dataset-len 100 --resume-at 0:100
check_output "resume-at-step says which --epochs" "give --epochs 21 or more" "$bin" --ranks 2 --dataset-len 100 --resume-at-step 1000
check_output "the rule names its bound" "--ranks: must be an integer in \\[1, 65536\\], got '0'" "$bin" --ranks 0 --dataset-len 5
check_output "help groups the loader flags" "The user's DataLoader:" "$bin" --help
check_output "help shows defaults" "--api TEXT:{accelerator,prepare_data_loader,trainer}=accelerator" "$bin" --help
# Issue 17's acceptance: strict decimal integers, report_version 2 with the input echo and coded warnings,
# JUnit XML from check, the HTML's lr chart and command line.
tmp17=$(mktemp -d)
check "octal-looking integer refused" 2 "$bin" --ranks 2 --dataset-len 010
accept="--ranks 8 --dataset-len 50000 --batch-size 16 --shuffle --seed 3 --no-even-batches --json"
# shellcheck disable=SC2086
check "acceptance json runs" 0 "$bin" $accept
json_ok() {  # python expression over the JSON in j
  # shellcheck disable=SC2086
  "$bin" $accept | python3 -c "import json, sys; j = json.load(sys.stdin); sys.exit(0 if ($1) else 1)"
}
check "report_version >= 2" 0 json_ok 'j["report_version"] >= 2'
check "input echoes batch_size" 0 json_ok 'j["input"]["batch_size"] == 16 and j["input"]["seed"] is None and j["input"]["data_seed"] == 3'
check "input echoes defaults" 0 json_ok 'j["input"]["drop_last"] is False and j["input"]["epochs"] == 1 and j["input"]["api"] == "accelerator"'
check "warnings are coded" 0 json_ok 'all({"code", "severity", "message"} <= set(w) for w in j["warnings"]) and "uneven-steps-hang" in [w["code"] for w in j["warnings"]]'
check "versions" 0 json_ok 'j["versions"]["accelerate"] == "1.16.0" and j["versions"]["accel_sim"]'
check "scenario 0's flags are the command line" 0 json_ok '"--no-even-batches" in j["scenarios"][0]["flags"]'
check_output "terminal warnings in one style" "error\[uneven-steps-hang\]: ranks 5-7 get one batch fewer" \
  "$bin" --ranks 8 --dataset-len 50000 --batch-size 16 --no-even-batches
check_lacks "no bang-style warnings" "^  ! " "$bin" --ranks 8 --dataset-len 50000 --batch-size 16 --no-even-batches
check_output "every pass is tabled" "every pass (3)" "$bin" --ranks 4 --dataset-len 103 --batch-size 4 --shuffle --set-seed 1 --epochs 3
check "check --junit exits 1 on a failing requirement" 1 "$bin" check --ranks 64 --dataset-len 1001 --require no-duplicates,lockstep --junit "$tmp17/r.xml"
check "junit is valid xml with one failure" 0 python3 -c "
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find('testsuite')
cases = s.findall('testcase')
failed = [c for c in cases if c.find('failure') is not None]
ok = len(cases) == 2 and len(failed) == 1 and failed[0].get('name') == 'no-duplicates' and 'sample 0' in failed[0].find('failure').text
sys.exit(0 if ok else 1)" "$tmp17/r.xml"
check "check over every pass fails on pass 1 too" 1 "$bin" check --ranks 64 --dataset-len 1001 --epochs 2 --require no-duplicates --junit "$tmp17/r2.xml"
check "junit has a testcase for every pass" 0 python3 -c "
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().find('testsuite').findall('testcase')
ok = [c.get('classname') for c in cases] == ['first pass', 'pass 1'] and all(c.find('failure') is not None for c in cases)
sys.exit(0 if ok else 1)" "$tmp17/r2.xml"
check "check --json" 0 bash -c "'$bin' check --ranks 64 --dataset-len 1001 --require no-drops --json | python3 -c 'import json,sys; j=json.load(sys.stdin); sys.exit(0 if j[\"passed\"] and j[\"results\"][0][\"requirement\"] == \"no-drops\" else 1)'"
check "html with --scheduler cosine" 0 "$bin" --ranks 4 --dataset-len 1000 --batch-size 8 --scheduler cosine --total-steps 200 --html "$tmp17/lr.html"
check_output "html shows the lr chart" '<svg class="chart" id="lr"' cat "$tmp17/lr.html"
check_output "html shows the command line" "accel-sim --ranks 4 --dataset-len 1000 --batch-size 8 --scheduler cosine" cat "$tmp17/lr.html"
rm -rf "$tmp17"

# Issue 25: a model built between set_seed and prepare draws from the global generator. The state the real
# script saved (recorded with the real Accelerate into the golden case) must give the ids the real ranks got.
tmp25=$(mktemp -d)
mlp_case=$golden/accel-map-n2-b2-l10-shuffle-seed42-mlp-before-prepare.json
python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
open(sys.argv[2], 'wb').write(bytes.fromhex(c['config']['global_rng_state']))
json.dump([[b for b in e['batches']] for r in c['ranks'] for e in r['epochs']], open(sys.argv[3], 'w'))" \
  "$mlp_case" "$tmp25/rng.bin" "$tmp25/real.json"
python3 -c "import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))" "$tmp25/real.json" > "$tmp25/real.txt"
ids_of() {  # out_file flags...: the simulated batches of every rank and epoch, as real.txt holds the real ones
  local out=$1
  shift
  "$bin" trace --ranks 2 --dataset-len 10 --batch-size 2 --shuffle --set-seed 42 --epochs 2 "$@" |
    python3 -c "import json, sys; print(json.dumps([e['batches'] for r in json.load(sys.stdin)['ranks'] for e in r['epochs']]))" > "$out"
}
ids_of "$tmp25/with-state.txt" --rng-state "$tmp25/rng.bin"
ids_of "$tmp25/without.txt"
check "--rng-state gives the real ranks' ids" 0 cmp -s "$tmp25/real.txt" "$tmp25/with-state.txt"
check "without the draws the ids differ from the real ones" 1 cmp -s "$tmp25/real.txt" "$tmp25/without.txt"
check_output "--rng-state names the seed it was saved under" "was seeded with 42 (torch.initial_seed()), not --set-seed 41" \
  "$bin" --ranks 2 --dataset-len 10 --batch-size 2 --shuffle --set-seed 41 --rng-state "$tmp25/rng.bin"
check_output "--rng-state needs --set-seed" "give the seed the script sets: --set-seed 42" \
  "$bin" --ranks 2 --dataset-len 10 --shuffle --rng-state "$tmp25/rng.bin"
head -c 100 "$tmp25/rng.bin" > "$tmp25/short.bin"
check_output "--rng-state refuses a file that is not a torch state" "must be the 5056 bytes of torch.get_rng_state() (got 100 bytes)" \
  "$bin" --ranks 2 --dataset-len 10 --shuffle --set-seed 42 --rng-state "$tmp25/short.bin"
check "--rng-draws with --rng-state is refused" 2 "$bin" --ranks 2 --dataset-len 10 --shuffle --set-seed 42 --rng-state "$tmp25/rng.bin" --rng-draws 3
check_output "--rng-draws is bounded" "--rng-draws" "$bin" --ranks 2 --dataset-len 10 --shuffle --set-seed 42 --rng-draws 4294967297
check_output "the report says the ids follow the global generator" "note\\[ids-follow-global-generator\\]: the ids assume the script draws nothing" \
  "$bin" --ranks 2 --dataset-len 10 --shuffle --set-seed 42
check_output "and how far past set_seed when given" "global generator 1000 words past set_seed" \
  "$bin" --ranks 2 --dataset-len 10 --shuffle --set-seed 42 --rng-draws 1000
check_lacks "a seedable sampler's ids do not follow it" "ids-follow-global-generator" \
  "$bin" --ranks 2 --dataset-len 10 --shuffle --set-seed 42 --use-seedable-sampler
rm -rf "$tmp25"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
