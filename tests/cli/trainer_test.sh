#!/usr/bin/env bash
# Issue 28 (in progress): the trainer family. The recordings of the real transformers Trainer (5.25 and 4.57, gloo
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
check_output "5.25 and 4.57 recordings, resumes across world sizes" "^ok$" python3 -c "
import glob, json
cs = [json.load(open(f))['config'] for f in glob.glob('$cases/trainer-*.json')]
vs = {c['transformers_version'] for c in cs}
moved = [c for c in cs if c['resume'] and c['resume']['num_processes'] != c['num_processes']]
print('ok' if vs == {'5.25', '4.57'} and len(moved) >= 4 and len(cs) >= 50 else (vs, len(moved), len(cs)))"

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
bad_config "an unknown release" "config.transformers_version: must be \"5.25\" or \"4.57\"" "{$core, \"transformers_version\": \"4.40\"}"
bad_config "group_by_length is not modelled" "config.train_sampling_strategy: must be \"random\" or \"sequential\"" \
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

echo "trainer: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
