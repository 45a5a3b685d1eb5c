#!/usr/bin/env bash
# The resume what-if from the command line: the acceptance command's JSON, a recipe that really fixes the
# resume it was given for (rerun with its flags), check --require exact-resume, and bad input exiting 2.
set -u
bin=$1
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
json_field() {  # python expression over the report as `r`, then the command
  local expr=$1
  shift
  "$@" --json | python3 -c "import json,sys; r=json.load(sys.stdin); print($expr)"
}

accept=(--ranks 4 --dataset-len 1000 --batch-size 8 --shuffle --seed 1 --epochs 2 --resume-at 0:10 --resume-with skip_first_batches)
check "acceptance command" 0 "$bin" "${accept[@]}" --json
check_output "acceptance has the resume object" "True True 2" \
  json_field "'identical' in r['resume'], 'recipe' in r['resume'], len(r['resume']['epochs'])" "$bin" "${accept[@]}"

# Recorded as broken (golden resume-rand-n2-e1s2-skipfirstbatches): the RandomSampler's generator is not saved.
broken=(--ranks 2 --dataset-len 23 --batch-size 3 --shuffle --set-seed 42 --epochs 3 --resume-at 1:2)
check_output "broken resume is reported" "NOT identical" "$bin" "${broken[@]}"
check "exact-resume fails on it" 1 "$bin" check "${broken[@]}" --require exact-resume
flags=$(json_field "' '.join(c['flag'] for c in r['resume']['recipe']['changes'])" "$bin" "${broken[@]}")
if [ -n "$flags" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL no recipe for the broken resume"; fi
# shellcheck disable=SC2086
check "the recipe's flags make it exact" 0 "$bin" check "${broken[@]}" $flags --require exact-resume
# shellcheck disable=SC2086
check_output "and the what-if agrees" "IDENTICAL" "$bin" "${broken[@]}" $flags

# Nothing skipped: the S batches before the checkpoint come again (sequential: ids 0..S*B*R-1).
check_output "none repeats the first batches" "\[0, 1, 2, 3, 4, 5, 6, 7\]" \
  json_field "r['resume']['extra']['first']" "$bin" --ranks 2 --dataset-len 20 --batch-size 2 --epochs 1 --resume-at 0:2 --resume-with none
check "exact-resume holds for a sequential skip" 0 "$bin" check --ranks 2 --dataset-len 20 --batch-size 2 --epochs 2 \
  --resume-at 0:2 --require exact-resume,no-drops

# --resume-at-step with --grad-accum: G*K batches per rank, split by len(dataloader) (here 5).
check_output "step conversion" "1 3" json_field "r['resume']['at']['epoch'], r['resume']['at']['step']" \
  "$bin" --ranks 2 --dataset-len 20 --batch-size 2 --epochs 3 --resume-at-step 4 --grad-accum 2

# Bad input: exit 2 naming the flag and the rule.
check_output "bad --resume-at" "--resume-at: must be EPOCH:STEP" "$bin" --dataset-len 20 --resume-at 1-2
check "bad --resume-at exits 2" 2 "$bin" --dataset-len 20 --resume-at 1-2
check_output "epoch past --epochs" "is not below --epochs" "$bin" --dataset-len 20 --resume-at 3:0 --epochs 2
check_output "step past the epoch" "past the end of epoch 0" "$bin" --dataset-len 20 --batch-size 4 --resume-at 0:9
check "step past the epoch exits 2" 2 "$bin" --dataset-len 20 --batch-size 4 --resume-at 0:9
check_output "unknown mode" "--resume-with: must be one of" "$bin" --dataset-len 20 --resume-at 0:1 --resume-with rewind
check_output "prepare_data_loader api" "needs --api accelerator" "$bin" --api prepare_data_loader --dataset-len 20 --resume-at 0:1
check_output "exact-resume needs a checkpoint" "give --resume-at" "$bin" check --dataset-len 20 --require exact-resume
check "exact-resume needs a checkpoint exits 2" 2 "$bin" check --dataset-len 20 --require exact-resume

# Issue 25: the gate converts --resume-at-step with the job's accumulation as the what-if does (it used to take 1
# and print "ok exact-resume", exit 0, where the what-if said NOT identical): --grad-accum, a DeepSpeed config
# file's deepspeed_config.gradient_accumulation_steps, or ACCELERATE_GRADIENT_ACCUMULATION_STEPS.
tmp_ds=$(mktemp)
printf 'distributed_type: DEEPSPEED\ndeepspeed_config:\n  gradient_accumulation_steps: 4\nnum_processes: 8\n' > "$tmp_ds"
job=(--dataset-len 50000 --batch-size 16 --shuffle --set-seed 42 --resume-at-step 200 --epochs 3)
what_if=$("$bin" --config-file "$tmp_ds" "${job[@]}" --json | python3 -c "
import json, sys; r = json.load(sys.stdin)['resume']; print(r['identical'], r['extra']['count'])")
[ "$what_if" = "False 2140" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL what-if of the DeepSpeed job: $what_if"; }
for setup in "--config-file $tmp_ds" "--ranks 8 --grad-accum 4"; do
  # shellcheck disable=SC2086
  check "exact-resume fails as the what-if says ($setup)" 1 "$bin" check $setup "${job[@]}" --require exact-resume
  # shellcheck disable=SC2086
  check_output "with the what-if's evidence ($setup)" "2140 extra, 2140 missing; epoch 2 differs" \
    "$bin" check $setup "${job[@]}" --require exact-resume
done
check "exact-resume with ACCELERATE_GRADIENT_ACCUMULATION_STEPS" 1 \
  env ACCELERATE_GRADIENT_ACCUMULATION_STEPS=4 "$bin" check --ranks 8 "${job[@]}" --require exact-resume
check_output "check --grad-accum alone is refused as the what-if refuses it" "--grad-accum: needs --scheduler" \
  "$bin" check --ranks 8 --dataset-len 100 --grad-accum 4 --require lockstep
rm -f "$tmp_ds"

# Issue 25: a StatefulDataLoader checkpoint after an epoch's last batch trains that epoch again (recorded:
# golden/cases-torch2/resume-*-stateful*); a mid-epoch one resumes exactly.
check_output "stateful at the epoch's last batch is not identical" "NOT identical to the uninterrupted run" \
  "$bin" --ranks 2 --dataset-len 8 --batch-size 2 --shuffle --use-seedable-sampler --seed 1 --epochs 3 --resume-at 0:2 --resume-with stateful --loop-set-epoch
check_output "and says why" "says the iterator finished: DataLoaderShard looks one batch ahead" \
  "$bin" --ranks 2 --dataset-len 8 --batch-size 2 --shuffle --use-seedable-sampler --seed 1 --epochs 3 --resume-at 0:2 --resume-with stateful --loop-set-epoch
check_output "with a simulated recipe" "recipe: Identical after: resume with accelerator.skip_first_batches" \
  "$bin" --ranks 2 --dataset-len 8 --batch-size 2 --shuffle --use-seedable-sampler --seed 1 --epochs 3 --resume-at 0:2 --resume-with stateful --loop-set-epoch
check "the gate fails it" 1 "$bin" check --ranks 2 --dataset-len 8 --batch-size 2 --shuffle --use-seedable-sampler --seed 1 --epochs 3 --resume-at 0:2 --resume-with stateful --loop-set-epoch --require exact-resume
check "mid-epoch it is exact" 0 "$bin" check --ranks 2 --dataset-len 8 --batch-size 2 --shuffle --use-seedable-sampler --seed 1 --epochs 3 --resume-at 0:1 --resume-with stateful --loop-set-epoch --require exact-resume
check_output "uneven ranks: which state survives is a race" "rank 0's (2 batches in) resumes exactly; rank 1's (finished) does not" \
  "$bin" --ranks 2 --dataset-len 10 --batch-size 2 --no-even-batches --epochs 2 --resume-at 0:2 --resume-with stateful

echo "resume cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
