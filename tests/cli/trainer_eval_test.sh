#!/usr/bin/env bash
# Issue 28: Trainer.evaluate(). The recordings of the real transformers Trainer's evaluation (5.25 and 4.57, gloo
# ranks, golden/cases-trainer-eval) match the simulator; a recording tampered with does not; the what-if and the gate
# (--api trainer --eval-dataset-len N) report what the recordings show; bad input is refused naming the field.
set -u
bin=$1
cases=$2
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=$(ls "$cases"/trainer-eval-*.json | wc -l)
check_output "every recorded evaluation matches" "^$n matched, 0 differed" "$bin" check --golden "$cases"
check_output "both releases, 1-4 ranks, crashes and hangs among them" "^ok$" python3 -c "
import glob, json
ds = [json.load(open(f)) for f in glob.glob('$cases/trainer-eval-*.json')]
vs = {d['config']['transformers_version'] for d in ds}
errs = {r['error']['type'] for d in ds for r in d['ranks'] if r['error']}
rs = {d['config']['num_processes'] for d in ds}
print('ok' if vs == {'5.25', '5.24', '4.57'} and {'Crash', 'Hang', 'ValueError'} <= errs and rs == {1, 2, 3, 4} and len(ds) >= 70 else (vs, errs, rs))"

# The float32 eval_loss and one gathered loss value, tampered with: the check says where.
mkdir "$tmp/bad" "$tmp/bad2"
python3 - "$cases/trainer-eval-v5.25-r4-n17-b3.json" "$tmp/bad/x.json" "$tmp/bad2/x.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['ranks'][2]['evaluations'][0]['eval_loss'] += 1e-6
json.dump(d, open(sys.argv[2], 'w'))
d = json.load(open(sys.argv[1]))
d['ranks'][0]['evaluations'][0]['losses'][-1] = 8.0
json.dump(d, open(sys.argv[3], 'w'))
PY
exits "a tampered eval_loss differs" 1 "ranks\[2\].evaluations\[0\].eval_loss" "$bin" check --golden "$tmp/bad"
exits "a tampered loss value differs" 1 "ranks\[0\].evaluations\[0\].losses" "$bin" check --golden "$tmp/bad2"

w="$bin --api trainer --ranks 2 --dataset-len 16"
# trainer-eval-v5.25-r2-n10-b4 records eval_loss 3.7 for the mean 4.5: ids 8, 9 share a batch with padding 0, 1.
check_output "padded last batches bias eval_loss" "warning\[eval-loss-weighted\]: eval_loss is not the mean over the 10 eval samples: 2 ids weigh more than the others (0, 1), 2 less (8, 9)" \
  $w --eval-dataset-len 10 --per-device-eval-batch-size 4 --compute-metrics
check_output "the advice is simulated" "per_device_eval_batch_size=2 (simulated: exact)" \
  $w --eval-dataset-len 10 --per-device-eval-batch-size 4 --compute-metrics
json_field "predictions exact, eval_loss not" "[True, False, [[0, 1]], [[8, 9]]]" \
  "[j['evaluation']['calls'][0][k] if k.endswith('exact') else j['evaluation']['calls'][0][k]['id_ranges'] for k in ('predictions_exact', 'eval_loss_exact', 'overweighted_in_eval_loss', 'underweighted_in_eval_loss')]" \
  $w --eval-dataset-len 10 --per-device-eval-batch-size 4 --compute-metrics --json
check_output "a divisible batch is exact" "evaluation exact" $w --eval-dataset-len 12 --per-device-eval-batch-size 3 --compute-metrics
# trainer-eval-v5.25-r2-n14-b4-uneven: rank 1's 2 logits meet rank 0's 4 in gloo's all_gather.
check_output "unequal last batches crash the gather" "error\[eval-crash\]:.*SIGABRT on rank 1" \
  $w --eval-dataset-len 14 --per-device-eval-batch-size 4 --compute-metrics --no-even-batches
check_output "loss only, they do not" "eval_loss: the mean over the samples" \
  $w --eval-dataset-len 14 --per-device-eval-batch-size 4 --no-even-batches
# trainer-eval-v5.25-r2-n6-b2-uneven: rank 0 has a batch more and waits.
check_output "a batch more hangs" "error\[eval-hang\]: rank 0 has one batch more" \
  $w --eval-dataset-len 6 --per-device-eval-batch-size 2 --compute-metrics --no-even-batches
# trainer-eval-v5.25-r2-n10-b4-gatherobject-x2: ids 2-7 lost on the first call only.
check_output "gather_object loses predictions" "error\[eval-predictions-wrong\]: evaluate() call 0: compute_metrics receives 4 predictions for 10 samples: 6 missing (ids 2-7)" \
  $w --eval-dataset-len 10 --per-device-eval-batch-size 4 --compute-metrics --eval-use-gather-object --num-evaluations 2
check_output "one step of gather_object raises" "error\[eval-error\]: evaluate() raises ValueError: zero-dimensional arrays cannot be concatenated" \
  $w --eval-dataset-len 3 --per-device-eval-batch-size 2 --compute-metrics --eval-use-gather-object

# The gate judges the same model.
exits "exact-metrics fails on a biased eval_loss" 1 "FAIL exact-metrics (evaluate()): eval_loss is not the mean" \
  "$bin" check --api trainer --ranks 2 --dataset-len 16 --eval-dataset-len 10 --per-device-eval-batch-size 4 --require exact-metrics
exits "exact-metrics holds" 0 "ok   exact-metrics" \
  "$bin" check --api trainer --ranks 2 --dataset-len 16 --eval-dataset-len 10 --per-device-eval-batch-size 5 --require exact-metrics
exits "exact-metrics needs an eval dataset" 2 "exact-metrics: give --eval-dataset-len N" \
  "$bin" check --api trainer --ranks 2 --dataset-len 16 --require exact-metrics

# Bad input.
exits "eval flags need the eval dataset" 2 "\-\-per-device-eval-batch-size: describes trainer.evaluate(); give --eval-dataset-len N" \
  $w --per-device-eval-batch-size 4
printf '3 1 4 1 5 9 2 6 5 3 5 8 9 7 9 3\n' > "$tmp/len16.txt"
exits "group_by_length needs the eval lengths" 2 "give --eval-lengths FILE" \
  $w --train-sampling-strategy group_by_length --lengths "$tmp/len16.txt" --eval-dataset-len 16
check_output "group_by_length evaluation over its own lengths" "LengthGroupedSampler(4) seeded with 42" \
  $w --train-sampling-strategy group_by_length --lengths "$tmp/len16.txt" --eval-dataset-len 16 --eval-lengths "$tmp/len16.txt" --per-device-eval-batch-size 4
bad_config() {  # name pattern json
  printf '{"case": "x", "family": "trainer-eval", "config": %s}' "$3" > "$tmp/c.json"
  exits "$1" 2 "$2" "$bin" trace --config "$tmp/c.json"
}
core='"api": "trainer-eval", "dataset_len": 10, "num_processes": 2'
bad_config "dataset_len is required" "config.dataset_len: is required" '{"api": "trainer-eval"}'
bad_config "an unknown key" "config.eval_batch_size: is not a field of this config" "{$core, \"eval_batch_size\": 4}"
bad_config "gather_object without concat" "config.eval_use_gather_object: true with eval_do_concat_batches false is not modelled" \
  "{$core, \"eval_use_gather_object\": true, \"eval_do_concat_batches\": false}"
bad_config "num_evaluations >= 1" "config.num_evaluations: must be >= 1" "{$core, \"num_evaluations\": 0}"
printf '{"case": "x", "family": "trainer", "config": {"api": "trainer", "dataset_len": 8, "evaluation": {"per_device_eval_batch_size": 0, "dataset_len": 4}}}' > "$tmp/t.json"
exits "the evaluation object's fields are named as such" 2 "config.evaluation.per_device_eval_batch_size: must be >= 1" \
  "$bin" trace --config "$tmp/t.json"

echo "trainer-eval: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
