#!/usr/bin/env bash
# Issue 27: a HuggingFace datasets.IterableDataset (--dataset hf-iterable) as a user runs it: the path Accelerate
# takes, each rank's steps and the hang, the findings and their simulated fixes, the gate, the recordings of the real
# datasets + Accelerate (golden/cases-torch2/hf-*), and bad input refused with the rule.
set -u
bin=$1
golden2=$2
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

ten=(--ranks 4 --dataset hf-iterable --shard-sizes 5,3,7,2,4,6,1,3,8,2 --batch-size 2)
# The acceptance case: 10 unequal shards on 4 ranks, not dispatched.
check_output "names the .shard() path" "path: dataset.shard(num_shards=4, index=rank): n_shards 10 >= num_processes 4" \
  "$bin" "${ten[@]}" --no-dispatch-batches
check_output "each rank's shards, examples and steps" \
  "rank 0: shards 0-2, 15 examples, 8 steps; rank 1: shards 3-5, 12 examples, 6 steps; rank 2: shards 6, 7, 4 examples, 2 steps; rank 3: shards 8, 9, 10 examples, 5 steps" \
  "$bin" "${ten[@]}" --no-dispatch-batches
check_output "the verdict is the uneven shards, with the hang step" \
  "^verdict: error\[hf-uneven-shards\]: .* so ranks 0, 1, 3 wait forever at step 2" "$bin" "${ten[@]}" --no-dispatch-batches
check_output "the fix is simulated" "simulated, in lock-step: .*dispatch_batches=True (--dispatch-batches --put-on-device) yields 44 samples (3 duplicated, 0 dropped, 6 steps)" \
  "$bin" "${ten[@]}" --no-dispatch-batches
# The recording of the real job (4 gloo ranks, datasets 5.2, Accelerate 1.15) has the same steps.
check_output "the recording has 8, 6, 2 and 5 steps" "\[8, 6, 2, 5\]" python3 -c "
import json; d = json.load(open('$golden2/hf-shard-n4-s10x41-b2-e1.json'))
print([len(r['epochs'][0]['batches']) for r in d['ranks']])"
exits "the gate fails lock-step" 1 "FAIL lockstep (first pass): ranks 1-3 yield 2 batches, others 8" \
  "$bin" check "${ten[@]}" --no-dispatch-batches --require lockstep
exits "dispatched, the gate passes lock-step" 0 "ok   lockstep" "$bin" check "${ten[@]}" --require lockstep
json_field "JSON names the path" "shard [15, 12, 4, 10]" "j['hf_dataset']['path'], j['hf_dataset']['examples_per_rank']" \
  "$bin" "${ten[@]}" --no-dispatch-batches --json
json_field "JSON input names the dataset" "hf-map 42" "j['input']['dataset_kind'], j['input']['hf_shuffle_seed']" \
  "$bin" --ranks 2 --dataset hf-map --dataset-len 23 --batch-size 3 --hf-shuffle 42 --json
check_output "equal shards, a multiple of the ranks, are simulated too" "12 equal shards  *6 (2, 3: 5)  *41  *0  *0  *ranks 0, 1 at step 5" \
  "$bin" "${ten[@]}" --no-dispatch-batches
check_output "the Accelerator dispatches an iterable dataset by default" "path: DataLoaderDispatcher" "$bin" "${ten[@]}"
check_output "fewer shards than ranks: IterableDatasetShard" "path: IterableDatasetShard: n_shards 3 < num_processes 4" \
  "$bin" --ranks 4 --dataset hf-iterable --num-shards 3 --dataset-len 17 --no-dispatch-batches
# The script split by node and Accelerate splits again.
check_output "a double split loses data, and the fix is simulated" \
  "error\[hf-split-twice\]: .* 9 of 17 examples are never read; simulated: without split_dataset_by_node" \
  "$bin" --ranks 2 --dataset hf-iterable --num-shards 3 --dataset-len 17 --batch-size 2 --no-dispatch-batches --split-by-node
# Traces of the recorded cases: the shuffled stream's ids are the real ones, epoch by epoch.
for name in hf-shard-n4-s10x41-b2-shuffle-e3 hf-shard-n2-s10x41-b2-w3-shuffle-e2 hf-splitnode-n3-s10x41-b2-e2; do
  check_output "trace $name equals the recording" "^identical" \
    bash -c "'$bin' trace --config '$golden2/$name.json' | '$bin' diff '$golden2/$name.json' -"
done

# A map-style datasets.Dataset shuffled with .shuffle(seed): Accelerate pads with the example at index 0.
check_output "a shuffled datasets.Dataset names its examples" "1 sample is seen twice (ids 18)" \
  "$bin" --ranks 2 --dataset hf-map --dataset-len 23 --batch-size 3 --hf-shuffle 42
for name in hf-map-n2-l23-b3-seed42 hf-map-n3-l23-b3-seed42-seedable hf-accel-map-n2-l23-b3-seed42-shuffle; do
  check_output "trace $name equals the recording" "^identical" \
    bash -c "'$bin' trace --config '$golden2/$name.json' | '$bin' diff '$golden2/$name.json' -"
done
exits "a Dataset has no shards" 2 "--shard-sizes: needs --dataset hf-iterable" \
  "$bin" --ranks 2 --dataset hf-map --dataset-len 23 --hf-shuffle 42 --shard-sizes 23

# Bad input: the flag and the rule, exit 2.
exits "shard sizes must be numbers" 2 "--shard-sizes: 'x' must be an integer" \
  "$bin" --ranks 2 --dataset hf-iterable --shard-sizes 3,x
exits "dataset-len must be their sum" 2 "--dataset-len: 9 is not the sum of --shard-sizes (7)" \
  "$bin" --ranks 2 --dataset hf-iterable --shard-sizes 3,4 --dataset-len 9
exits "hf flags need hf-iterable" 2 "--hf-shuffle: needs --dataset hf-iterable" "$bin" --ranks 2 --dataset-len 8 --hf-shuffle 3
exits "shards are needed" 2 "--dataset hf-iterable: needs --num-shards S or --shard-sizes" \
  "$bin" --ranks 2 --dataset hf-iterable --dataset-len 8
exits "a buffer needs a shuffle" 2 "--buffer-size: needs --hf-shuffle SEED" \
  "$bin" --ranks 2 --dataset hf-iterable --num-shards 2 --dataset-len 8 --buffer-size 4
exits "unmodelled datasets release" 2 "config.datasets_version: must be a modelled datasets release (3.6, 4.8, 5.2" \
  "$bin" --ranks 2 --dataset hf-iterable --num-shards 2 --dataset-len 8 --datasets-version 2.19
exits "max_buffer_input_shards is a 5.x keyword" 2 "unexpected keyword argument 'max_buffer_input_shards'" \
  "$bin" --ranks 2 --dataset hf-iterable --num-shards 2 --dataset-len 8 --hf-shuffle 1 --max-buffer-input-shards 2 \
  --datasets-version 4.8
exits "worker_split is the dataset's own" 2 "--worker-split: needs --dataset iterable (a datasets.IterableDataset gives each worker its shards itself)" \
  "$bin" --ranks 2 --dataset hf-iterable --num-shards 2 --dataset-len 8 --num-workers 2 --worker-split strided
exits "a trace replays every rank's stream: examples x ranks is bounded" 2 \
  "config.dataset_len: times num_processes must be <= 268435456 with dataset_kind \"hf-iterable\" where every example is replayed" \
  "$bin" trace --ranks 65536 --dataset hf-iterable --num-shards 1 --dataset-len 100000000
exits "the what-if reads the same job's shard lists (issue 48)" 0 "as configured  *1526  *100007936  *7936  *0" \
  "$bin" --ranks 65536 --dataset hf-iterable --num-shards 1 --dataset-len 100000000
exits "a shuffled stream is replayed: its examples are bounded" 2 \
  "config.shard_sizes: must add up to at most 134217728 examples with hf_shuffle" \
  "$bin" --ranks 256 --dataset hf-iterable --num-shards 1024 --dataset-len 1000000000 --hf-shuffle 7
exits "persistent workers are not recorded" 2 "config.persistent_workers: with hf-iterable is not simulated" \
  "$bin" --ranks 2 --dataset hf-iterable --num-shards 2 --dataset-len 8 --num-workers 2 --persistent-workers
for extra in "--skip-batches 1" "--use-stateful-dataloader" "--eval" "--scheduler linear --total-steps 10" "--resume-at 0:1"; do
  # shellcheck disable=SC2086  # the extra flags split on purpose
  exits "not recorded, so refused: $extra" 2 "not simulated\|models map-style datasets only" \
    "$bin" --ranks 2 --dataset hf-iterable --num-shards 3 --dataset-len 11 --no-dispatch-batches $extra
done

echo "hf_datasets: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
