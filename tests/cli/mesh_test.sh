#!/usr/bin/env bash
# Device meshes as a user meets them: --parallelism (ParallelismConfig), --device-mesh (a DeviceMesh of one's own),
# --distributed-type DEEPSPEED. Expected values are what the real Accelerate 1.15 did on gloo ranks
# (golden/cases-torch2/mesh-*) and the issue's acceptance command, not accel-sim's own output.
set -u
bin=$1
source "$(dirname "$0")/harness.sh"

# The acceptance command: 2 data ranks, ranks 0-3 and 4-7 each sharing batches; 1001 = 125 x 8 + 1, padded by 7.
acc=("$bin" --ranks 8 --parallelism dp_shard=2,tp=4 --dataset-len 1001 --batch-size 4)
json_field "fsdp2 x tp4: data ranks" "2" "j['mesh']['data_ranks']" "${acc[@]}" --json
json_field "fsdp2 x tp4: receivers" "[[0, 1, 2, 3], [4, 5, 6, 7]]" "j['mesh']['receivers']" "${acc[@]}" --json
json_field "fsdp2 x tp4: steps and padding" "126 7" "j['scenarios'][0]['max_steps'], j['scenarios'][0]['duplicated']" "${acc[@]}" --json
exits "fsdp2 x tp4: terminal" 0 "ranks sharing batches: 0-3; 4-7" "${acc[@]}"
exits "fsdp2 x tp4: header" 0 "8 ranks (2 data ranks)" "${acc[@]}"

# Recorded (mesh-tp2-fsdp2-map): tp outermost gives ranks 0,1 one shard and 2,3 the other; the tp groups are {0,2}, {1,3}.
json_field "tp outermost splits its groups" "mesh-group-split error [0, 2]" \
  "' '.join([j['findings'][0]['code'], j['findings'][0]['severity']]) + ' ' + str(j['findings'][0]['ranks'])" \
  "$bin" --api prepare_data_loader --ranks 4 --device-mesh tp=2,dp_shard=2 --dataset-len 21 --batch-size 2 --json
# Recorded (mesh-dp2-tp2-map): the old name dp is not looked up, so every rank iterates all 11 batches.
json_field "dp is not a data rank" "1 mesh-data-replicated" "j['mesh']['data_ranks'], j['findings'][0]['code']" \
  "$bin" --api prepare_data_loader --ranks 4 --device-mesh dp=2,tp=2 --dataset-len 21 --batch-size 2 --json
# Recorded (mesh-dp2-tp2-iter-dispatch): the dispatcher refuses tp with dp.
exits "dispatch refuses tp with dp" 2 "TP + (DP/FSDP) is not yet supported in dispatch mode" \
  "$bin" --api prepare_data_loader --ranks 4 --device-mesh dp=2,tp=2 --dataset iterable --dispatch-batches --put-on-device --dataset-len 21 --batch-size 2
# Recorded (mesh-fsdp2-tp2-iter-dispatch): every rank gets the same 11 batches though len() says 3.
json_field "tp dispatch replicates" "1 ['mesh-data-replicated', 'mesh-len-mismatch']" \
  "j['mesh']['data_ranks'], [f['code'] for f in j['findings'] if f['code'].startswith('mesh')]" \
  "$bin" --ranks 4 --parallelism dp_shard=2,tp=2 --dataset iterable --dataset-len 21 --batch-size 2 --json
# sp / pp dimensions Accelerate does not divide by: not simulated, said so.
exits "index past the loaders" 2 "not simulated" \
  "$bin" --api prepare_data_loader --ranks 4 --device-mesh dp_shard=2,sp=2 --dataset-len 21 --batch-size 2
# ParallelismConfig with sp > 1 builds no mesh (DeepSpeed's sequence parallelism): 4 plain data ranks.
json_field "sp builds no mesh" "None 4" "j['mesh'], j['num_processes']" \
  "$bin" --ranks 4 --parallelism dp_shard=2,sp=2 --dataset-len 21 --batch-size 2 --json
json_field "deepspeed divides by tp alone" "2" "j['mesh']['data_ranks']" \
  "$bin" --api prepare_data_loader --ranks 4 --device-mesh dp=2,tp=2 --distributed-type DEEPSPEED --dataset-len 21 --batch-size 2 --json

# An `accelerate config` file's parallelism_config (the keys `accelerate config` writes).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'distributed_type: MULTI_GPU\nnum_processes: 8\nparallelism_config:\n  parallelism_config_dp_replicate_size: 1\n  parallelism_config_dp_shard_size: 2\n  parallelism_config_tp_size: 4\n  parallelism_config_cp_size: 1\n' > "$tmp/pc.yaml"
json_field "config file parallelism" "2 [[0, 1, 2, 3], [4, 5, 6, 7]]" "j['mesh']['data_ranks'], j['mesh']['receivers']" \
  "$bin" --config-file "$tmp/pc.yaml" --dataset-len 1001 --batch-size 4 --json
printf 'num_processes: 8\nparallelism_config:\n  parallelism_config_tp_size: 0\n' > "$tmp/bad.yaml"
exits "config file size 0" 2 "config_file.parallelism_config.parallelism_config_tp_size" "$bin" --config-file "$tmp/bad.yaml" --dataset-len 8

# Bad input: the field and the rule, exit 2.
acc=("$bin" --ranks 8 --dataset-len 1001 --batch-size 4)
exits "size 0" 2 "--parallelism: the size of 'tp' must be an integer in \[1, 65536\]" "${acc[@]}" --parallelism tp=0
exits "unknown size" 2 "'pp' is not a ParallelismConfig size" "${acc[@]}" --parallelism pp=2
exits "twice" 2 "names 'tp' twice" "${acc[@]}" --parallelism tp=2,tp=4
exits "no =" 2 "each entry must be NAME=SIZE" "${acc[@]}" --parallelism tp
exits "total size" 2 "ParallelismConfig total_size (4) does not match num_processes (8)" "${acc[@]}" --parallelism dp_shard=2,tp=2
exits "tp with pure ddp" 2 "cannot be used with pure data parallelism" "$bin" --ranks 4 --parallelism dp_replicate=2,tp=2 --dataset-len 8
exits "own mesh needs prepare_data_loader" 2 "--device-mesh: an Accelerator builds its mesh" "$bin" --ranks 4 --device-mesh tp=4 --dataset-len 8
exits "mesh size" 2 "config.device_mesh: sizes multiply to 2, not num_processes (4)" \
  "$bin" --api prepare_data_loader --ranks 4 --device-mesh tp=2 --dataset-len 8
exits "distributed type needs a mesh" 2 "--distributed-type: changes only how a mesh is divided" \
  "$bin" --ranks 4 --distributed-type DEEPSPEED --dataset-len 8
# Training. Recorded (mesh-sched-fsdp2-tp2-lin): the loader has the data ranks' 5 batches (19 samples, 2 x 2) while
# AcceleratedScheduler steps 4 times per optimizer step, num_processes being every rank of the job. Here 1000
# samples on 2 data ranks of 4 give 125 optimizer steps and 8 scheduler steps each: total_steps 250 (the unprepared
# loader's length, as Accelerate's examples size it) ends at optimizer step 32.
json_field "training: 125 optimizer steps, 8 scheduler steps each" "125 8" \
  "j['training']['optimizer_steps'], j['training']['scheduler_steps_per_optimizer_step']" \
  "$bin" --ranks 8 --parallelism dp_shard=2,tp=4 --dataset-len 1000 --batch-size 4 --scheduler linear --total-steps 250 --json
exits "training: the schedule ends at step 32, said with the mesh" 0 \
  "total_steps 250 is reached at optimizer step 32 of 125 (Accelerate steps the scheduler 8 times per optimizer step: num_processes, every rank of the device mesh, though only 2 data ranks consume batches" \
  "$bin" --ranks 8 --parallelism dp_shard=2,tp=4 --dataset-len 1000 --batch-size 4 --scheduler linear --total-steps 250
exits "training with an own mesh refused" 2 "--scheduler: with a device mesh the training loop is simulated for an Accelerator" \
  "$bin" --ranks 4 --api prepare_data_loader --device-mesh tp=2,dp_shard=2 --dataset-len 20 --scheduler linear --total-steps 10

# Resume. Recorded (mesh-accel-fsdp2-tp2-map-skip3): skip_first_batches keeps the BatchSamplerShard and its
# rewritten rank, so a map-style resume is exact on the data ranks (21 samples, 2 data ranks, batch 2: 6 batches).
res=("$bin" --ranks 4 --parallelism dp_shard=2,tp=2 --dataset-len 21 --batch-size 2)
exits "resume on the data ranks" 0 "after 3 of 6 batches per rank" "${res[@]}" --resume-at 0:3
exits "and it is exact" 0 "IDENTICAL to the uninterrupted run" "${res[@]}" --resume-at 0:3
exits "resume ranks need a mesh of their own" 2 "--resume-ranks: not with --parallelism" "${res[@]}" --resume-at 0:3 --resume-ranks 8
# Regression: a dispatched map-style loader in the resume what-if was an internal error (exit 70).
exits "dispatched resume refused" 2 "--dispatch-batches: the resume what-if models sharded loaders" \
  "$bin" --ranks 4 --dispatch-batches --put-on-device --dataset-len 21 --batch-size 2 --resume-at 0:2
# Recorded (mesh-accel-fsdp2-tp2-iter-skip2): 1.15.0's skip_first_batches rebuilds the dispatcher without the mesh,
# so after the skip ranks 0 and 1 of one tp group get [16, 17] and [18, 19], slices of one batch cut for 4 ranks.
json_field "1.15.0: the skipped dispatcher forgets the mesh" "mesh-lost-on-skip [0, 1]" \
  "[f['code'] + ' ' + str(f['ranks']) for f in j['findings'] if f['code'] == 'mesh-lost-on-skip'][0]" \
  "${res[@]}" --dataset iterable --skip-batches 2 --accelerate-version 1.15.0 --json
# 1.16.0 (the default) passes the mesh on (recorded: cases-releases/1.16.0/rel-mesh-accel-fsdp2-tp2-iter-skip2).
json_field "1.16.0: no mesh-lost-on-skip after the skip" "[]" \
  "[f['code'] for f in j['findings'] if f['code'] == 'mesh-lost-on-skip']" \
  "${res[@]}" --dataset iterable --skip-batches 3 --json

# The gate judges the data ranks, and always whether every tp group shares its batches. 1000 = 125 x (2 x 4): no
# padding on 2 data ranks; the tp-outermost mesh splits its groups (recorded, mesh-tp2-fsdp2-map).
exits "gate: full coverage on the data ranks" 0 "ok   full-coverage" \
  "$bin" check --ranks 8 --parallelism dp_shard=2,tp=4 --dataset-len 1000 --batch-size 4 --require full-coverage
exits "gate: groups agree" 0 "ok   mesh-groups-agree" \
  "$bin" check --ranks 8 --parallelism dp_shard=2,tp=4 --dataset-len 1000 --batch-size 4 --require full-coverage
exits "gate: a split group fails" 1 "FAIL mesh-groups-agree (first pass): ranks 0 and 2 of one tp group" \
  "$bin" check --ranks 4 --api prepare_data_loader --device-mesh tp=2,dp_shard=2 --dataset-len 20 --batch-size 2 \
  --require lockstep
exits "gate: named without a mesh" 0 "skip mesh-groups-agree (first pass): no device mesh" \
  "$bin" check --ranks 4 --dataset-len 20 --require mesh-groups-agree

# Eval. Recorded (mesh-metrics-fsdp2-tp2-map): gather_for_metrics gathers over all 4 ranks, tp copies included, and
# truncates the last step to 11 % (2 x 2) = 3: 8 + 8 + 3 = 19 samples for a dataset of 11, sample 10 never counted.
json_field "eval gathers every rank" "19 [10]" "j['eval']['metric_samples'], j['eval']['metric_missing']['first_ids']" \
  "$bin" --ranks 4 --parallelism dp_shard=2,tp=2 --dataset-len 11 --batch-size 2 --eval --json

echo "mesh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
