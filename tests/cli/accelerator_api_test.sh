#!/usr/bin/env bash
# The Accelerator API as a user meets it: Accelerator()'s defaults, `accelerate config` files and
# ACCELERATE_* variables, Accelerate's own flag spellings, seeds read as Python ints. Expected values come
# from the recorded accel-* golden cases' behaviour and Accelerate's source, not from accel-sim's output.
set -u
bin=$1
source "$(dirname "$0")/harness.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Accelerator() defaults: a shuffle is a RandomSampler synchronised from rank 0, so every sample is seen
# and the last step is padded: 8 x 16 = 128 per step, 50000 = 390 x 128 + 80, 48 padded.
json_field "default api" "accelerator" "j['api']" "$bin" --ranks 8 --dataset-len 50000 --batch-size 16 --shuffle --json
json_field "accelerator shuffle pads 48" "48 0" "j['scenarios'][0]['duplicated'], j['scenarios'][0]['dropped']" \
  "$bin" --ranks 8 --dataset-len 50000 --batch-size 16 --shuffle --json
json_field "unseeded order differs every run" "True" "j['order_differs_every_run']" \
  "$bin" --ranks 8 --dataset-len 50000 --batch-size 16 --shuffle --json
json_field "set_seed makes it reproducible" "False" "j['order_differs_every_run']" \
  "$bin" --ranks 8 --dataset-len 500 --batch-size 16 --shuffle --set-seed 42 --json
json_field "accelerate version: the newest by default" "1.16.0" "j['accelerate_version']" "$bin" --ranks 2 --dataset-len 10 --json
# device_placement=True dispatches an iterable dataset; prepare_data_loader's default does not.
json_field "iterable is dispatched" "DataLoaderDispatcher" "j['scenarios'][0]['loader_class']" \
  "$bin" --ranks 4 --dataset-len 10 --dataset iterable --json
json_field "no device placement shards it" "DataLoaderShard" "j['scenarios'][0]['loader_class']" \
  "$bin" --ranks 4 --dataset-len 10 --dataset iterable --no-device-placement --json
json_field "prepare_data_loader keeps its defaults" "DataLoaderShard prepare_data_loader" \
  "j['scenarios'][0]['loader_class'], j['api']" "$bin" --api prepare_data_loader --ranks 4 --dataset-len 10 --dataset iterable --json
exits "prepare_data_loader refuses dispatch without device" 2 "requires \`put_on_device=True\`" \
  "$bin" --api prepare_data_loader --ranks 2 --dataset-len 10 --dataset iterable --dispatch-batches
# Issue 25: a config file's value a flag overrode is shown as overridden, not as used.
ovr=$(mktemp)
printf 'num_processes: 16\nmixed_precision: bf16\n' > "$ovr"
exits "overridden file values say so" 0 "num_processes: 16 (ranks, over all machines), overridden by --ranks 8" \
  "$bin" --config-file "$ovr" --ranks 8 --dataset-len 100
rm -f "$ovr"
# Issue 25: the flags' defaults are the function's. prepare_data_loader(use_seedable_sampler=False, rng_types=None):
# --shuffle is torch's RandomSampler, unsynchronised; the golden case recorded with those defaults (its config names
# neither option) pins it: the flags' trace yields exactly its batches.
json_field "prepare_data_loader shuffle is a RandomSampler" "RandomSampler (not synchronised)" "j['order']" \
  "$bin" --api prepare_data_loader --ranks 2 --dataset-len 10 --shuffle --set-seed 42 --json
json_field "seedable only when asked for" "SeedableRandomSampler(seed=3)" "j['order']" \
  "$bin" --api prepare_data_loader --ranks 2 --dataset-len 10 --shuffle --seed 3 --use-seedable-sampler --json
pinned="$(dirname "${BASH_SOURCE[0]}")/../../golden/cases/pdl-defaults-map-n2-b3-l10-shuffle-seed42-data3.json"
if "$bin" trace --api prepare_data_loader --ranks 2 --dataset-len 10 --batch-size 3 --shuffle --set-seed 42 --seed 3 \
    --epochs 2 | python3 -c "
import json, sys
flags, recorded = json.load(sys.stdin), json.load(open(sys.argv[1]))
assert recorded['config'].get('use_seedable_sampler') is None and recorded['config'].get('rng_types') is None
sys.exit(0 if flags['ranks'] == recorded['ranks'] and flags['error'] == recorded['error'] else 1)" "$pinned"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL the prepare_data_loader flags' defaults differ from the recorded defaults"
fi
# Accelerate's spellings.
exits "num_processes / batch_size" 0 "4 ranks, 10 samples (map-style, sequential), batch_size 2" \
  "$bin" --num_processes 4 --batch_size 2 --dataset-len 10
exits "accelerate spellings run" 0 "4 ranks" "$bin" --num_processes 4 --batch_size 8 --split_batches --even_batches --drop_last --dataset-len 40
exits "split_batches rule kept" 2 "round multiple of the number of processes" "$bin" --num_processes 4 --batch_size 2 --split_batches --dataset-len 40
exits "gradient_accumulation_steps spelling" 0 "" "$bin" --ranks 2 --dataset-len 40 --gradient_accumulation_steps 2 --scheduler constant
exits "both even flags refused" 2 "conflicts with --no-even-batches" "$bin" --ranks 2 --dataset-len 10 --even-batches --no-even-batches

# `accelerate config` files: num_processes counts every machine; flags win; ACCELERATE_* win over the file.
cat > "$tmp/default_config.yaml" <<'YAML'
compute_environment: LOCAL_MACHINE
distributed_type: MULTI_GPU
gpu_ids: all
machine_rank: 0
mixed_precision: fp16
num_machines: 2
num_processes: 12
use_cpu: false
YAML
json_field "yaml num_processes" "12" "j['num_processes']" "$bin" --config-file "$tmp/default_config.yaml" --dataset-len 1001 --json
json_field "flags win over the file" "3" "j['num_processes']" "$bin" --config-file "$tmp/default_config.yaml" --ranks 3 --dataset-len 10 --json
json_field "file fields reported" "True True" "any(u.startswith('num_processes: 12') for u in j['launch']['used']), any(i.startswith('gpu_ids') for i in j['launch']['ignored'])" \
  "$bin" --config-file "$tmp/default_config.yaml" --dataset-len 10 --json
exits "fp16 warns about skipped steps" 0 "loss scaler skips the optimizer step" "$bin" --config-file "$tmp/default_config.yaml" --dataset-len 100
json_field "environment wins over the file" "bf16" "j['launch']['mixed_precision']" \
  env ACCELERATE_MIXED_PRECISION=bf16 "$bin" --config-file "$tmp/default_config.yaml" --dataset-len 10 --json
printf '{"num_processes": 4, "deepspeed_config": {"gradient_accumulation_steps": 2}}' > "$tmp/c.json"
json_field "json config file" "4" "j['num_processes']" "$bin" --config-file "$tmp/c.json" --dataset-len 10 --json
printf 'num_processes: twelve\n' > "$tmp/bad1.yaml"
exits "bad field named" 2 "config_file.num_processes: must be an integer in \\[1, 65536\\] written with digits only" "$bin" --config-file "$tmp/bad1.yaml" --dataset-len 10
printf 'num_processes: [1\n' > "$tmp/bad2.yaml"
exits "broken yaml" 2 "is not valid YAML" "$bin" --config-file "$tmp/bad2.yaml" --dataset-len 10
printf 'num_processes: 5\nnum_machines: 2\n' > "$tmp/bad3.yaml"
exits "num_processes over machines" 2 "must be a multiple of num_machines" "$bin" --config-file "$tmp/bad3.yaml" --dataset-len 10
printf 'distributed_type: MEGATRON_LM\n' > "$tmp/bad4.yaml"
exits "unmodelled distributed type" 2 "config_file.distributed_type" "$bin" --config-file "$tmp/bad4.yaml" --dataset-len 10
exits "bad environment variable" 2 "ACCELERATE_MIXED_PRECISION" env ACCELERATE_MIXED_PRECISION=fp17 "$bin" --dataset-len 10

# Seeds are Python ints: every value torch accepts, nothing else, and nothing clamped.
json_field "largest seed kept" "18446744073709551615" "j['config']['accelerator']['data_seed']" \
  "$bin" trace --ranks 2 --dataset-len 6 --shuffle --use-seedable-sampler --seed 18446744073709551615 --epochs 2
json_field "2^64 - 1 + epoch 1 overflows as torch 2 does" "ValueError" "j['ranks'][0]['epochs'][1]['error']['type']" \
  "$bin" trace --ranks 2 --dataset-len 6 --shuffle --use-seedable-sampler --seed 18446744073709551615 --epochs 2
exits "seed past 2^64 refused" 2 "must be a decimal integer in" "$bin" --ranks 2 --dataset-len 10 --shuffle --seed 18446744073709551616
exits "hex seed refused" 2 "got '0x10'" "$bin" --ranks 2 --dataset-len 10 --shuffle --seed 0x10

# The RandomSampler's options and the DataLoader's generator (issue 20: what from_dataloader reads). num_samples=40
# draws 40 ids: 2 ranks x 10 steps of 2, nothing padded; the recorded case rs-gen-n2-b2-l10-g5 is
# DataLoader(generator=torch.Generator().manual_seed(5)) on 2 ranks.
json_field "num_samples draws 40" "40 [10, 10]" "j['scenarios'][0]['samples_yielded'], j['scenarios'][0]['steps_per_rank']" \
  "$bin" --ranks 2 --dataset-len 100 --batch-size 2 --shuffle --replacement --num-samples 40 --json
json_field "generator seed is a seed" "False" "j['order_differs_every_run']" \
  "$bin" --ranks 2 --dataset-len 100 --shuffle --generator-seed 5 --json
json_field "--generator-seed 5 gives the recorded batches" "True" \
  "j['ranks'] and [e['batches'] for r in j['ranks'] for e in r['epochs']] == [e['batches'] for r in json.load(open('$(dirname "$0")/../../golden/cases/rs-gen-n2-b2-l10-g5.json'))['ranks'] for e in r['epochs']]" \
  "$bin" trace --api prepare_data_loader --no-seedable-sampler --ranks 2 --dataset-len 10 --batch-size 2 --shuffle \
  --generator-seed 5 --epochs 3
exits "replacement needs shuffle" 2 "--replacement: is a RandomSampler option" "$bin" --ranks 2 --dataset-len 10 --replacement
exits "generator seed is a Python int" 2 "--generator-seed" "$bin" --ranks 2 --dataset-len 10 --shuffle --generator-seed x

echo "cli_accelerator: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
