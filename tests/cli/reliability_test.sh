#!/usr/bin/env bash
# Issue 51: the surfaces added since the last robustness round keep its rules. Each reproducer of the issue exits 2
# naming the flag or field and its rule (or answers as the real library does), never by a signal and never with a
# silent exit 0. The 10-second timeout only stops a hang; no timing is asserted.
set -u
bin=$1
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t() { timeout 10 "$@"; }

# A crash by signal: 65,536 ranks x 1,024 workers ran out of a 2 GiB address space and ended in SIGABRT.
# (Under AddressSanitizer RLIMIT_AS cannot cap the process: the sanitizer build checks the refusal only.)
if [ -z "${ACCEL_SIM_SANITIZED:-}" ]; then
  exits "workers x ranks under a 2 GiB cap" 2 "config.num_workers: times num_processes must be <= 1048576" \
    bash -c "ulimit -v 2097152; timeout 10 '$bin' --ranks 65536 --dataset-len 1000 --batch-size 1 --dataset iterable --no-dispatch-batches --num-workers 1024"
else
  exits "workers x ranks refused" 2 "config.num_workers: times num_processes must be <= 1048576" \
    t "$bin" --ranks 65536 --dataset-len 1000 --batch-size 1 --dataset iterable --no-dispatch-batches --num-workers 1024
fi
exits "workers x ranks at the limit still run" 0 "accel-sim what-if" \
  t "$bin" --ranks 1024 --dataset-len 10 --dataset iterable --no-dispatch-batches --num-workers 1024

# Trainer-only flags without --api trainer, and --datasets-version without a HuggingFace dataset.
for flag in "--per-device-batch-size 8" "--max-steps 5" "--eval-dataset-len 8" "--transformers-version 4.57" \
  "--use-cpu" "--ignore-data-skip" "--compute-metrics"; do
  name=${flag%% *}
  exits "$name without --api trainer" 2 "$name: is a transformers.Trainer flag; it needs --api trainer" \
    t "$bin" --ranks 2 --dataset-len 10 $flag
  exits "check $name without --api trainer" 2 "$name: is a transformers.Trainer flag" \
    t "$bin" check --ranks 2 --dataset-len 10 --require lockstep $flag
done
exits "a Trainer flag with --api trainer is read" 0 "per_device_train_batch_size 4" \
  t "$bin" --api trainer --ranks 2 --dataset-len 100 --per-device-batch-size 4
exits "--datasets-version with a torch dataset" 2 "--datasets-version: only a HuggingFace dataset" \
  t "$bin" --ranks 2 --dataset-len 10 --datasets-version 4.8
exits "--datasets-version with hf-map is read" 0 "accel-sim what-if" \
  t "$bin" --ranks 2 --dataset-len 10 --dataset hf-map --datasets-version 4.8

# Releases that never existed are refused, naming the nearest recorded ones; a published unmodelled one too.
for v in 0.99.0 1.3.7 1.14.9 0.20.99; do
  exits "--accelerate-version $v" 2 "Accelerate $v was never released" t "$bin" --ranks 2 --dataset-len 10 --accelerate-version "$v"
done
exits "nearest recorded releases named" 2 "the nearest recorded releases are 0.30.1 and 1.4.0" \
  t "$bin" --ranks 2 --dataset-len 10 --accelerate-version 0.99.0
exits "upgrade between unreleased versions" 2 "--from: Accelerate 1.3.7 was never released" \
  t "$bin" upgrade --from 1.3.7 --to 1.14.9 --ranks 2 --dataset-len 10
exits "check --accelerate-versions with an unreleased one" 2 "Accelerate 0.20.99 was never released" \
  t "$bin" check --accelerate-versions 0.20.3,0.20.99 --ranks 2 --dataset-len 10 --require lockstep
exits "a published release between recorded ones is simulated" 0 "Accelerate 1.10.1" \
  t "$bin" --ranks 2 --dataset-len 10 --accelerate-version 1.10.1
printf '{"case":"x","config":{"api":"prepare_data_loader","dataset_len":4,"batch_size":1,"num_processes":2,"accelerate_version":"1.14.9"}}' > "$tmp/v.json"
exits "config.accelerate_version never released" 2 "Accelerate 1.14.9 was never released" t "$bin" trace --config "$tmp/v.json"

# Recordings: every config field agrees across a run's rank files; sample ids index the dataset.
write() {  # DIR 'python: r -> config changes' 'python: r -> batches'
  python3 - "$@" <<'PY'
import json, os, sys
d, change, batches = sys.argv[1], eval(sys.argv[2]), eval(sys.argv[3])
os.makedirs(d, exist_ok=True)
for r in range(2):
    config = {"api": "accelerator", "dataset_kind": "map", "dataset_len": 10, "batch_size": 2, "num_processes": 2,
              "shuffle": False, "drop_last": False,
              "accelerator": {"split_batches": False, "dispatch_batches": False, "even_batches": True,
                              "use_seedable_sampler": False, "data_seed": None},
              "modelled": True, "not_modelled": []}
    config.update(change(r))
    doc = {"case": "t", "family": "recorded", "config": config, "reference": {"accelerate_version": "1.15.0"},
           "error": None, "ranks": [{"rank": r, "loader_class": "DataLoaderShard", "len": 3,
           "epochs": [{"epoch": 0, "segment": 0, "start_step": 0, "batches": batches(r), "complete": True}]}]}
    json.dump(doc, open(os.path.join(d, f"rank-{r}.json"), "w"))
PY
}
seq='lambda r: [[0,1],[4,5],[8,9]] if r == 0 else [[2,3],[6,7],[0,1]]'
write "$tmp/same" 'lambda r: {}' "$seq"
exits "one run's files diff identical" 0 "identical: 6 batches on 2 ranks" t "$bin" diff --recorded "$tmp/same"
write "$tmp/len" 'lambda r: {"dataset_len": 10 + r}' "$seq"
exits "diff: dataset_len differs between rank files" 2 "rank-1.json: config.dataset_len: 11 here, 10 in" \
  t "$bin" diff --recorded "$tmp/len"
write "$tmp/bs" 'lambda r: {"batch_size": 2 + r}' "$seq"
exits "check: batch_size differs between rank files" 2 "config.batch_size: 3 here, 2 in" \
  t "$bin" check --recorded "$tmp/bs" --require lockstep
write "$tmp/extra" 'lambda r: {"set_seed": 5} if r else {}' "$seq"
exits "a field only one rank file has" 2 "config.set_seed: 5 here, absent in" t "$bin" diff --recorded "$tmp/extra"
write "$tmp/ids" 'lambda r: {}' 'lambda r: [[0,1],[4,5],[8,9]] if r == 0 else [[2,3],[6,7],[10,11]]'
exits "check: a sample id past dataset_len" 2 "sample id 10 is not below config.dataset_len (10)" \
  t "$bin" check --recorded "$tmp/ids" --require no-duplicates,no-drops,lockstep

# Trainer: a checkpoint past the end; an empty train loader with epoch-based training (transformers' ValueError).
exits "resume past the first job's end" 2 "60 is past the first job's last step 50" \
  t "$bin" --api trainer --ranks 2 --dataset-len 100 --max-steps 50 --resume-at-step 60
exits "resume at the first job's end is a resume" 0 "Resume from checkpoint-50" \
  t "$bin" --api trainer --ranks 2 --dataset-len 100 --max-steps 50 --resume-at-step 50
exits "an empty train loader, epoch-based" 2 "transformers' Trainer rejects this configuration (ValueError in train): args.max_steps must be set to a positive value if dataloader does not have a length, was -1" \
  t "$bin" --api trainer --ranks 2 --dataset-len 1 --batch-size 2 --drop-last
exits "an empty train loader with max_steps trains nothing" 0 "it takes 0 optimizer steps" \
  t "$bin" --api trainer --ranks 2 --dataset-len 1 --batch-size 2 --drop-last --max-steps 3
exits "the resumed job's empty loader" 0 "args.max_steps must be set to a positive value" \
  t "$bin" --api trainer --ranks 1 --dataset-len 4 --batch-size 2 --drop-last --resume-at-step 1 --resume-ranks 4

# One process without a process group dispatching an empty stream: Accelerate's ValueError, not gloo's TypeError.
for n in 0 1; do
  printf '{"case":"x","config":{"api":"prepare_data_loader","dataset_kind":"iterable","dataset_len":%s,"batch_size":2,"drop_last":true,"num_processes":1,"dispatch_batches":true,"put_on_device":true}}' "$n" > "$tmp/empty$n.json"
  json_field "empty dispatched stream of $n, no group" "ValueError" "j['ranks'][0]['epochs'][0]['error']['type']" \
    "$bin" trace --config "$tmp/empty$n.json"
done
printf '{"case":"x","config":{"api":"prepare_data_loader","dataset_kind":"iterable","dataset_len":0,"batch_size":2,"num_processes":1,"multiprocess":true,"dispatch_batches":true,"put_on_device":true}}' > "$tmp/group.json"
json_field "the same in a one-process gloo group" "TypeError" "j['ranks'][0]['epochs'][0]['error']['type']" \
  "$bin" trace --config "$tmp/group.json"

# One seed rule for --hf-shuffle and hf_shuffle.seed: [0, 2^64).
hf=(--ranks 2 --dataset hf-iterable --num-shards 4 --dataset-len 20)
exits "--hf-shuffle 2^63 is a seed" 0 "accel-sim what-if" t "$bin" "${hf[@]}" --hf-shuffle 9223372036854775808
exits "--hf-shuffle 2^64-1 is a seed" 0 "accel-sim what-if" t "$bin" "${hf[@]}" --hf-shuffle 18446744073709551615
exits "--hf-shuffle 2^64 is not" 2 "--hf-shuffle: must be a non-negative integer below 2^64" \
  t "$bin" "${hf[@]}" --hf-shuffle 18446744073709551616
hfc() { printf '{"case":"x","config":{"api":"prepare_data_loader","dataset_kind":"hf-iterable","shard_sizes":[3,3],"dataset_len":6,"batch_size":1,"num_processes":2,"dispatch_batches":false,"hf_shuffle":{%s}}}' "$1"; }
hfc '"seed":-1' > "$tmp/hf-neg.json"
exits "hf_shuffle.seed -1 names the value" 2 "config.hf_shuffle.seed: must be a non-negative integer below 2^64 (numpy.random.default_rng's seed), got -1" \
  t "$bin" trace --config "$tmp/hf-neg.json"
hfc '"buffer_size":4' > "$tmp/hf-none.json"
exits "hf_shuffle.seed missing is required" 2 "config.hf_shuffle.seed: is required" t "$bin" trace --config "$tmp/hf-none.json"
hfc '"seed":9223372036854775808' > "$tmp/hf-big.json"
exits "hf_shuffle.seed 2^63 is a seed" 0 '"family": "hf"' t "$bin" trace --config "$tmp/hf-big.json"

# accelerate config files: a key Accelerate's ClusterConfig lacks is refused as accelerate launch refuses it.
printf 'num_processes: 2\ndistributed_type: MULTI_GPU\nmixed_precison: "no"\n' > "$tmp/typo.yaml"
exits "a typo'd config key" 2 "config_file.mixed_precison: is not a key of Accelerate's ClusterConfig (did you mean \`mixed_precision\`?)" \
  t "$bin" --config-file "$tmp/typo.yaml" --dataset-len 10
printf 'num_processes: 2\ndistributed_type: MULTI_GPU\nmain_training_function: main\nfp16: false\n' > "$tmp/known.yaml"
exits "keys Accelerate knows but that do not change data are listed as ignored" 0 "ignored: main_training_function" \
  t "$bin" --config-file "$tmp/known.yaml" --dataset-len 10
python3 -c 'print("a: " + "[" * 100000)' > "$tmp/deep.yaml"
exits "YAML nested 100k deep" 2 "nested deeper than 64 levels at line 1" t "$bin" --config-file "$tmp/deep.yaml" --dataset-len 10

# Slow inputs: a key of 10 MB (quoted in 80 characters) and an object of 100k keys (refused by count).
python3 - "$tmp" <<'PY'
import json, sys
c = {"api": "prepare_data_loader", "dataset_len": 13, "batch_size": 2, "num_processes": 2}
big = dict(c); big["k" * 10_000_000] = 1
json.dump({"case": "x", "config": big}, open(sys.argv[1] + "/bigkey.json", "w"))
many = dict(c)
for i in range(100_000): many["key%d" % i] = i
json.dump({"case": "x", "config": many}, open(sys.argv[1] + "/manykeys.json", "w"))
PY
exits "a 10 MB key is quoted in short" 2 "config.kkkkk.*\.\.\. (10000000 characters): is not a field of this config" \
  t "$bin" trace --config "$tmp/bigkey.json"
check_output "the message stays one short line" "^[0-9]\{1,4\}$" bash -c "'$bin' trace --config '$tmp/bigkey.json' 2>&1 | wc -c"
exits "an object of 100k keys" 2 "a JSON object with more than 4096 keys" t "$bin" trace --config "$tmp/manykeys.json"
exits "diff reads the same way" 2 "more than 4096 keys" t "$bin" diff "$tmp/manykeys.json" "$tmp/manykeys.json"

# torch releases (issue 45): one table (core/torch_release.hpp); a release not in it is refused naming the nearest
# recorded ones, in a flag and in a config alike.
exits "--torch-version 2.15 (recorded) follows 2.6's shuffle" 0 "torch 2.6 shuffle order" \
  "$bin" --ranks 2 --dataset-len 10 --shuffle --torch-version 2.15
exits "--torch-version 2.3 is refused naming 1.13 and 2.15" 2 "torch 2.3 is not modelled: .*the nearest recorded are 1.13 and 2.15" \
  "$bin" --ranks 2 --dataset-len 10 --torch-version 2.3
echo '{"config": {"dataset_len": 10, "num_processes": 2, "torch_version": "2.10"}}' > "$tmp/torch210.json"
exits "config.torch_version 2.10 is refused the same way" 2 "config.torch_version: torch 2.10 is not modelled" \
  "$bin" trace --config "$tmp/torch210.json"
python3 -c "
import json; c = json.load(open('$tmp/torch210.json'))['config']; c['shuffle'] = True; c['generator_seed'] = 3
for v in ('2.6', '2.15'): json.dump({'config': dict(c, torch_version=v)}, open('$tmp/torch' + v + '.json', 'w'))"
"$bin" trace --config "$tmp/torch2.6.json" > "$tmp/t26.json"
"$bin" trace --config "$tmp/torch2.15.json" > "$tmp/t215.json"
check_output "config.torch_version 2.15 simulates exactly 2.6's ranks" "^same$" python3 -c "
import json; a, b = (json.load(open(p))['ranks'] for p in ('$tmp/t26.json', '$tmp/t215.json'))
print('same' if a == b and a[0]['epochs'][0]['batches'] else 'differ')"

echo "reliability: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
