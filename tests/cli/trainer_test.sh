#!/usr/bin/env bash
# Issue 28: the trainer family. The recordings of the real transformers Trainer (5.25 and 4.57, gloo
# ranks, golden/cases-trainer) match the simulator; a recording tampered with does not; bad configs are refused
# naming the field and the rule.
set -u
bin=$1
cases=$2
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=$(ls "$cases"/trainer-*.json | wc -l)
check_output "every recorded Trainer case matches" "^$n matched, 0 differed" "$bin" check --golden "$cases"
# Both releases and resumes on another shape are among them (the set is not silently shrunk).
check_output "5.25, 5.24 and 4.57 recordings, resumes across world sizes" "^ok$" python3 -c "
import glob, json
cs = [json.load(open(f))['config'] for f in glob.glob('$cases/trainer-*.json')]
vs = {c['transformers_version'] for c in cs}
moved = [c for c in cs if c['resume'] and c['resume']['num_processes'] != c['num_processes']]
print('ok' if vs == {'5.25', '5.24', '4.57'} and len(moved) >= 4 and len(cs) >= 50 else (vs, len(moved), len(cs)))"

# One id changed in one recorded step: the check must say where.
mkdir "$tmp/bad"
python3 - "$cases/trainer-v5.25-r2-n27-b2-k3-e2.json" "$tmp/bad/x.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['ranks'][0]['steps'][2]['batches'][0][0] += 1
json.dump(d, open(sys.argv[2], 'w'))
PY
exits "a tampered recording differs" 1 "ranks\[0\].steps\[2\]" "$bin" check --golden "$tmp/bad"

bad_config() {  # name pattern json
  printf '{"case": "x", "family": "trainer", "config": %s}' "$3" > "$tmp/c.json"
  exits "$1" 2 "$2" "$bin" trace --config "$tmp/c.json"
}
core='"api": "trainer", "dataset_len": 10, "num_processes": 2'
base="$core, \"transformers_version\": \"5.25\", \"per_device_train_batch_size\": 2"
bad_config "an unknown release" "config.transformers_version: transformers 4.40 is not modelled: the releases recorded are 4.57, 5.24 and 5.25 (golden/cases-trainer); the nearest is 4.57" "{$core, \"transformers_version\": \"4.40\"}"
# Issue 45: a release that was not recorded is refused naming the nearest recorded one, never simulated as either.
exits "--transformers-version 5.10: the nearest recorded are named" 2 "transformers 5.10 is not modelled: the releases recorded are 4.57, 5.24 and 5.25 (golden/cases-trainer); the nearest are 4.57 and 5.24 (give --transformers-version 5.24" \
  "$bin" --api trainer --dataset-len 10 --transformers-version 5.10
exits "--transformers-version 5.26 (not published yet): the nearest is 5.25" 2 "transformers 5.26 is not modelled: .*the nearest is 5.25" \
  "$bin" --api trainer --dataset-len 10 --transformers-version 5.26
exits "--transformers-version 4.40: the nearest is 4.57, and no watch hint for 4.x" 2 "the nearest is 4.57 (give --transformers-version 4.57 to simulate its rules; a release between two recorded ones is not assumed to follow either)$" \
  "$bin" --api trainer --dataset-len 10 --transformers-version 4.40
# 5.24: recorded by the transformers watch, every trace alike 5.25's (golden/cases-trainer*/trainer*-v5.24-*).
check_output "--transformers-version 5.24 is accepted as 5.25's rules, and says so" \
  "^transformers.Trainer 5.24 (5.25's rules, recorded alike), Accelerate 1.15.0 on 10 samples" \
  "$bin" --api trainer --dataset-len 10 --transformers-version 5.24
json_field "...in --json too" "5.24 5.25" 'j["transformers_version"], j["transformers_rules"]' \
  "$bin" --api trainer --dataset-len 10 --transformers-version 5.24 --json
exits "--transformers-version bogus" 2 "must be a transformers release \"X.Y\"" \
  "$bin" --api trainer --dataset-len 10 --transformers-version bogus
bad_config "group_by_length needs the lengths" "config.lengths: is required with train_sampling_strategy \"group_by_length\"" \
  "{$base, \"train_sampling_strategy\": \"group_by_length\"}"
bad_config "sequential does not exist in 4.57" "does not exist in transformers 4.57" \
  "{$core, \"transformers_version\": \"4.57\", \"train_sampling_strategy\": \"sequential\"}"
bad_config "max_steps 0" "config.max_steps: must be -1 (epoch based) or an integer >= 1" "{$base, \"max_steps\": 0}"
bad_config "an unknown key" "config.gradient_accumulation: is not a field" "{$base, \"gradient_accumulation\": 2}"
bad_config "resume needs a global step" "config.resume.global_step: is required" "{$base, \"resume\": {}}"
# Accelerate's own error, raised on every rank as Trainer's prepare raises it.
printf '{"case": "x", "family": "trainer", "config": {%s, "per_device_train_batch_size": 3, "accelerator_config": {"split_batches": true}}}' "$core" > "$tmp/c.json"
json_field "split_batches with a batch not a multiple of the ranks raises ValueError" "ValueError ValueError" \
  "j['ranks'][0]['error']['type'], j['ranks'][1]['error']['type']" "$bin" trace --config "$tmp/c.json"

# --- accel-sim --api trainer: the what-if and the gate over the same report ---------------------------------
accept="--api trainer --ranks 8 --dataset-len 50000 --per-device-batch-size 16 --grad-accum 4 --epochs 3"
# The recorded 8-rank resume at global step 100 (golden/cases-trainer/trainer-v5.25-r8-n50000-*) is exact; the
# report says so and derives the position Trainer derives: 98 optimizer steps per epoch, epoch 1 after 2 steps.
json_field "8 ranks resumed at step 100 on the same shape: exact" "True 98 1 8" \
  "j['resume']['identical'], j['job']['num_update_steps_per_epoch'], j['resume']['position']['epochs_trained'], j['resume']['position']['steps_trained_in_current_epoch']" \
  "$bin" $accept --resume-at-step 100 --json
# 8 -> 16 GPUs: len(train_dataloader) halves, so step 100 is read as epoch 2: samples of epoch 1 are lost.
json_field "8 -> 16 processes loses samples" "False True" \
  "j['resume']['identical'], j['resume']['missing']['count'] > 0 and j['resume']['epochs'][0]['epoch'] == 1" \
  "$bin" $accept --resume-at-step 100 --resume-ranks 16 --json
# The recipe is advice: rerunning with its flag must be exact (simulated again from the command line).
recipe=$("$bin" $accept --resume-at-step 100 --resume-ranks 16 --json | python3 -c "
import json, sys; print(json.load(sys.stdin)['resume']['recipe']['changes'][0]['flag'])")
json_field "the recipe ($recipe) makes the 16-process resume exact" "True" "j['resume']['identical']" \
  "$bin" $accept --resume-at-step 100 --resume-ranks 16 $recipe --json
json_field "step 294 is the last of 3 epochs: nothing left to train" "True 294 resume-past-end" \
  "j['resume']['past_end'], j['job']['max_steps'], [f['code'] for f in j['findings']][-1]" \
  "$bin" $accept --resume-at-step 294 --json
# Issue 51: no checkpoint-1000 exists when the first job ends at step 294.
exits "step 1000 is past the first job's 294 steps: refused" 2 "1000 is past the first job's last step 294" \
  "$bin" $accept --resume-at-step 1000
json_field "ignore_data_skip retrains the head of the epoch" "False 8" \
  "j['resume']['identical'], j['resume']['extra']['count'] // 128" \
  "$bin" $accept --resume-at-step 100 --ignore-data-skip --json
# 4.57 maps the optimizer state to cpu:0 on a CPU group (recorded); on GPUs the same resume runs.
ACCELERATE_USE_CPU=true json_field "4.57, two CPU processes: the resume raises" "RuntimeError" "j['resume']['error']['type']" \
  "$bin" --api trainer --transformers-version 4.57 --ranks 2 --dataset-len 23 --per-device-batch-size 2 --resume-at-step 4 --json
json_field "4.57, two GPU processes: the resume runs" "None True" "j['resume']['error'], j['resume']['identical']" \
  "$bin" --api trainer --transformers-version 4.57 --ranks 2 --dataset-len 23 --per-device-batch-size 2 --resume-at-step 4 --json
# TrainingArguments' defaults: per_device_train_batch_size 8, 3 epochs, seed 42, the seedable sampler.
json_field "Trainer's defaults" "8 3 42 True" \
  "j['input']['per_device_train_batch_size'], j['input']['num_train_epochs'], j['input']['seed'], j['input']['accelerator_config']['use_seedable_sampler']" \
  "$bin" --api trainer --dataset-len 100 --json
# Regression: a loader with no batch (drop_last, 7 samples, batch 8) trains nothing; it was reported as clean. Epoch
# based, transformers raises (`if len_dataloader:` is false, and max_steps is -1; issue 51); with max_steps it trains
# 0 steps.
exits "a loader with no batch and no max_steps: Trainer raises" 2 "transformers' Trainer rejects this configuration (ValueError in train): args.max_steps must be set" \
  "$bin" --api trainer --dataset-len 7 --drop-last --per-device-batch-size 8
json_field "a loader with no batch and max_steps trains nothing" "0 7" \
  "j['job']['optimizer_steps'], j['job']['epoch_dropped']" \
  "$bin" --api trainer --dataset-len 7 --drop-last --per-device-batch-size 8 --max-steps 5 --json
# Regression: Accelerate rejecting the resumed job's shape is the resumed job's error, not a refusal of the command.
json_field "split_batches: batch 4 on 3 resumed processes raises in the resumed job" "ValueError resume-error" \
  "j['resume']['error']['type'], j['findings'][0]['code']" \
  "$bin" --api trainer --dataset-len 20 --split-batches --per-device-batch-size 4 --ranks 2 --resume-at-step 2 --resume-ranks 3 --json
exits "check: an inexact resume fails exact-resume" 1 "exact-resume.*FAIL\|FAIL.*exact-resume" \
  "$bin" check $accept --resume-at-step 100 --resume-ranks 16 --require exact-resume
exits "check: the same shape passes" 0 "exact-resume" "$bin" check $accept --resume-at-step 100 --require exact-resume
exits "check: a requirement Trainer is not judged on" 2 "'len-consistent' is not judged for a Trainer job" \
  "$bin" check $accept --require len-consistent
exits "--seed is ambiguous for Trainer" 2 "\-\-seed: with --api trainer say which seed" "$bin" $accept --seed 3
exits "--shuffle is Trainer's default" 2 "\-\-shuffle: Trainer's train sampler is random already" "$bin" $accept --shuffle
exits "a loader flag Trainer has no counterpart for" 2 "\-\-num-workers: not with --api trainer" "$bin" $accept --num-workers 2
exits "--resume-at is Accelerate's E:S" 2 "\-\-resume-at: Trainer resumes from checkpoint-G" "$bin" $accept --resume-at 0:3
exits "a resumed-job flag without a checkpoint" 2 "\-\-ignore-data-skip: describes the resumed job" "$bin" $accept --ignore-data-skip
exits "both batch flags" 2 "\-\-per-device-batch-size: conflicts with --batch-size" "$bin" $accept --batch-size 4
printf '3 1\n4,1 5\n' > "$tmp/len5.txt"
json_field "--lengths: group_by_length reads white-space or comma separated lengths" "[3, 1, 4, 1, 5]" "j['input']['lengths']" \
  "$bin" --api trainer --dataset-len 5 --train-sampling-strategy group_by_length --lengths "$tmp/len5.txt" --json
exits "group_by_length without lengths" 2 "group_by_length: needs --lengths FILE" \
  "$bin" --api trainer --dataset-len 5 --train-sampling-strategy group_by_length
exits "lengths without group_by_length" 2 "\-\-lengths: only --train-sampling-strategy group_by_length reads them" \
  "$bin" --api trainer --dataset-len 5 --lengths "$tmp/len5.txt"
printf '3 1 x 1 5\n' > "$tmp/badlen.txt"
exits "a length that is not a number" 2 "\-\-lengths: .*badlen.txt: length 2 must be" \
  "$bin" --api trainer --dataset-len 5 --train-sampling-strategy group_by_length --lengths "$tmp/badlen.txt"
exits "one length per sample" 2 "config.lengths" \
  "$bin" --api trainer --dataset-len 6 --train-sampling-strategy group_by_length --lengths "$tmp/len5.txt"
exits "trace does not take --api trainer flags" 2 "\-\-api trainer: is the what-if's" "$bin" trace --api trainer --dataset-len 10

# An IterableDataset (golden/cases-trainer/*-iter-*, golden/trainer-iterable.md).
it="$bin --api trainer --dataset iterable"
exits "an IterableDataset without __len__ needs max_steps" 2 "\-\-max-steps: Trainer requires max_steps for an IterableDataset" \
  $it --ranks 2 --dataset-len 10
check_output "a pass shorter than the accumulation never steps (recorded r1-n4-b2-k3-m2-neverstep)" \
  "error\[trainer-never-steps\]: train() never returns: a pass of the IterableDataset yields 2 batches per rank" \
  $it --dataset-len 4 --per-device-batch-size 2 --grad-accum 3 --max-steps 2
check_output "a resume past the first pass restarts a pass; __len__ is the simulated fix" \
  "recipe: Simulated: give the IterableDataset a __len__" \
  $it --ranks 2 --dataset-len 10 --per-device-batch-size 2 --max-steps 8 --resume-at-step 5
json_field "a resume inside the first pass is exact (recorded r2-n20-b2-k1-m8-resume-g3)" "True" "j['resume']['identical']" \
  $it --ranks 2 --dataset-len 20 --per-device-batch-size 2 --max-steps 8 --resume-at-step 3 --json
exits "iterable flags need --dataset iterable" 2 "\-\-iterable-has-len: describes an iterable train dataset" \
  "$bin" --api trainer --dataset-len 10 --iterable-has-len

echo "trainer: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
