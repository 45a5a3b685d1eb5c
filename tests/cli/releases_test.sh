#!/usr/bin/env bash
# Issue 29: every Accelerate release from 0.14.0 on. The recordings of golden/cases-releases (19 releases x 45 cases,
# each release installed unmodified from PyPI, torch 1.13) all match the simulator, release by release, with the
# counts checked so the set cannot shrink silently; --accelerate-version reproduces the acceptance recording (0.28.0)
# and differs from 1.15.0 there; `upgrade` lists the order change on that job and says nothing changes on a
# sequential one, and compares the resume and the metric; `check --accelerate-versions` gates per release; versions outside 0.14.0 - 1.15.0 are refused
# (exit 2) naming the range.
set -u
bin=$1
releases=$2
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every recorded release, each case matched (the StatefulDataLoader with workers of 0.34 - 1.12 too: its KeyError on
# every pass, and the other ranks' closed connection under dispatch_batches, are simulated). 19 releases and 34 cases each at least (issue 29 asks >= 5 x 20).
dirs=$(ls -d "$releases"/*/ | wc -l)
check_output "at least 19 recorded releases" "^ok$" bash -c "[ $dirs -ge 19 ] && echo ok || echo only $dirs"
total=0
for d in "$releases"/*/; do
  rel=$(basename "$d")
  n=$(ls "$d"rel-*.json | wc -l)
  total=$((total + n))
  check_output "release $rel: at least 34 cases" "^ok$" bash -c "[ $n -ge 34 ] && echo ok || echo only $n"
  check_output "release $rel: all $n recorded cases match" "^$n matched, 0 differed$" "$bin" check --golden "$d"
  # Each case names its release, so no directory is checked as another release.
  check_output "release $rel: every case names it" "^ok$" python3 -c "
import glob, json
vs = {json.load(open(f))['config'].get('accelerate_version') for f in glob.glob('$d/rel-*.json')}
print('ok' if vs == {'$rel'} else vs)"
done
check_output "646 release cases at least" "^ok$" bash -c "[ $total -ge 646 ] && echo ok || echo only $total"

# The recorded releases really differ where golden/releases.md says: a recording checked as the wrong release
# differs (0.28.0's acceptance job simulated as 1.15.0).
mkdir "$tmp/as115"
python3 - "$releases/0.28.0/rel-accel-shuffle-n2-b1-l1001-s42.json" "$tmp/as115/x.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['config']['accelerate_version'] = '1.15.0'
json.dump(d, open(sys.argv[2], 'w'))
PY
exits "0.28.0's recording is not 1.15.0's" 1 "ranks\[0\].epochs\[0\].batches\[0\]" "$bin" check --golden "$tmp/as115"

# Acceptance: the what-if's flags with --accelerate-version 0.28.0 give the recorded ids (trace of the same flags).
acc="--ranks 2 --dataset-len 1001 --shuffle --set-seed 42"
"$bin" trace --accelerate-version 0.28.0 $acc --epochs 2 > "$tmp/acc028.json"
"$bin" trace $acc --epochs 2 > "$tmp/acc115.json"
check_output "--accelerate-version 0.28.0 gives the 0.28.0 recording's ids" "^same$" python3 -c "
import json
a = json.load(open('$tmp/acc028.json')); b = json.load(open('$releases/0.28.0/rel-accel-shuffle-n2-b1-l1001-s42.json'))
ids = lambda d: [[e['batches'] for e in r['epochs']] for r in d['ranks']]
print('same' if ids(a) == ids(b) else 'differs')"
check_output "... and not 1.15.0's" "^differs$" python3 -c "
import json
a = json.load(open('$tmp/acc028.json')); b = json.load(open('$tmp/acc115.json'))
ids = lambda d: [[e['batches'] for e in r['epochs']] for r in d['ranks']]
print('same' if ids(a) == ids(b) else 'differs')"
check_output "1.15.0's ids are 1.15.0's recording" "^same$" python3 -c "
import json
a = json.load(open('$tmp/acc115.json')); b = json.load(open('$releases/1.15.0/rel-accel-shuffle-n2-b1-l1001-s42.json'))
ids = lambda d: [[e['batches'] for e in r['epochs']] for r in d['ranks']]
print('same' if ids(a) == ids(b) else 'differs')"
exits "the acceptance what-if runs and names its release" 0 "(Accelerate 0.28.0)" "$bin" --accelerate-version 0.28.0 $acc
check_output "the report names 1.16.0 (the newest) by default" "(Accelerate 1.16.0)" "$bin" $acc
json_field "--json carries the release" "0.28.0" "j['accelerate_version']" "$bin" --accelerate-version 0.28.0 $acc --json
check_output "--version names the modelled range" "0.14.0 to 1.16.0" "$bin" --version

# upgrade: the acceptance job lists the order change; a sequential job changes nothing.
exits "upgrade 0.28.0 -> 1.15.0 lists the order change" 0 "ranks 0, 1, epoch 0: order changes" \
  "$bin" upgrade --from 0.28.0 --to 1.15.0 $acc
check_output "upgrade names the shuffle rules" "shuffle: 0.28.0: each rank's own global generator" \
  "$bin" upgrade --from 0.28.0 --to 1.15.0 $acc
exits "upgrade on a sequential job: nothing changes" 0 "^nothing changes" \
  "$bin" upgrade --from 0.28.0 --to 1.15.0 --ranks 3 --dataset-len 10 --batch-size 2
exits "upgrade 1.5.0 -> 1.5.2 on torch 1.13: the error goes away" 0 "job: error: AttributeError" \
  "$bin" upgrade --from 1.5.0 --to 1.5.2 $acc --torch-version 1.13
exits "upgrade 0.30.1 -> 1.6.0: set_seed starts to matter" 0 "order changes" \
  "$bin" upgrade --from 0.30.1 --to 1.6.0 $acc
# A skip on the first pass changes nothing (the iteration is 0 either way); one on pass 1 (recorded) does.
exits "upgrade 1.14.0 -> 1.15.0 of a first-pass seedable resume: nothing changes" 0 "^nothing changes" \
  "$bin" upgrade --from 1.14.0 --to 1.15.0 --ranks 2 --dataset-len 23 --batch-size 3 --shuffle --set-seed 42 \
  --use-seedable-sampler --skip-batches 1 --epochs 2
exits "upgrade 1.14.0 -> 1.15.0 of a seedable skip on pass 1: its order" 0 "rank 0, epoch 1: order changes" \
  "$bin" upgrade --from 1.14.0 --to 1.15.0 --config "$releases/1.14.0/rel-accel-seedable-skip-n2-b3-l23-k1-s42.json"
exits "... and the skipped loader's iteration" 0 "loader.iteration after the pass 1 -> 2" \
  "$bin" upgrade --from 1.14.0 --to 1.15.0 --config "$releases/1.14.0/rel-accel-seedable-skip-n2-b3-l23-k1-s42.json"
exits "upgrade takes a config file" 0 "order changes" \
  "$bin" upgrade --from 0.24.1 --to 0.25.0 --config "$releases/0.24.1/rel-accel-shuffle-n2-b3-l23-s42.json"

# upgrade also compares a resume (the user's checkpoint, else one it names) and the metric.
seedable_job="--ranks 2 --dataset-len 23 --batch-size 3 --shuffle --set-seed 42 --epochs 3 --use-seedable-sampler --loop-set-epoch"
exits "upgrade 1.7.0 -> 1.15.0: the set_epoch resume becomes identical (#4071)" 0 \
  "with skip_first_batches and set_epoch in the loop: not identical in epoch 1: 6 samples trained again, 6 samples never trained -> identical to the uninterrupted job" \
  "$bin" upgrade --from 1.7.0 --to 1.15.0 $seedable_job
exits "upgrade 1.7.0 -> 1.15.0 at the user's checkpoint in epoch 0: nothing changes" 0 "^nothing changes" \
  "$bin" upgrade --from 1.7.0 --to 1.15.0 $seedable_job --resume-at 0:3
exits "upgrade 0.14.0 -> 0.16.0: skip_first_batches appears, the metric becomes exact" 0 \
  "inexact: the metric gets 6 values for 12 samples (6 missing) -> exact: each of the 12 samples once" \
  "$bin" upgrade --from 0.14.0 --to 0.16.0 --ranks 2 --dataset-len 12 --batch-size 3
exits "... and the resume stops failing" 0 \
  "fails: AttributeError in the restarted job: 'Accelerator' object has no attribute 'skip_first_batches' -> identical" \
  "$bin" upgrade --from 0.14.0 --to 0.16.0 --ranks 2 --dataset-len 12 --batch-size 3
exits "upgrade of an iterable job: the resume is not compared, and says why" 0 \
  "resume (--resume-at E:S): --dataset: the resume what-if models map-style datasets only" \
  "$bin" upgrade --from 0.28.0 --to 1.15.0 --ranks 2 --dataset-len 9 --batch-size 2 --dataset iterable
exits "upgrade --resume-at past the job's epochs is bad input" 2 "--resume-at: epoch 5 is not below --epochs 2" \
  "$bin" upgrade --from 0.28.0 --to 1.15.0 $acc --epochs 2 --resume-at 5:0
exits "upgrade --resume-with an unknown mode is bad input" 2 "--resume-with: must be one of" \
  "$bin" upgrade --from 0.28.0 --to 1.15.0 $acc --resume-at 0:1 --resume-with later
exits "the resume what-if on 0.14.0: skip_first_batches does not exist" 2 \
  "'Accelerator' object has no attribute 'skip_first_batches'" \
  "$bin" --accelerate-version 0.14.0 --ranks 2 --dataset-len 12 --batch-size 3 --resume-at 0:1
exits "the resume what-if on 0.28.0 says why the restarted epoch differs" 0 \
  "In Accelerate 0.28.0 each rank's RandomSampler has no generator of its own" \
  "$bin" --accelerate-version 0.28.0 --ranks 2 --dataset-len 23 --batch-size 3 --shuffle --set-seed 42 --epochs 3 --resume-at 1:2

# HuggingFace datasets (recorded from 1.4.0): the .shard() path's boundaries at 1.8.0 (typo), 1.8.1 and 1.14.0.
hf_job="--api prepare_data_loader --ranks 2 --dataset hf-iterable --shard-sizes 5,5,5 --batch-size 2"
exits "1.8.0 reads n_shard on a sharded datasets.IterableDataset" 2 \
  "AttributeError: 'IterableDataset' object has no attribute 'n_shard'" "$bin" --accelerate-version 1.8.0 $hf_job
exits "1.8.1 takes .shard() with more shards than ranks" 0 "n_shards 3 > num_processes 2" "$bin" --accelerate-version 1.8.1 $hf_job
exits "upgrade 1.13.0 -> 1.14.0 with as many shards as ranks: the path, and the order, change" 0 \
  "1.13.0: .shard() with more shards than processes; 1.14.0: .shard() with at least as many shards as processes" \
  "$bin" upgrade --api prepare_data_loader --from 1.13.0 --to 1.14.0 --ranks 2 --dataset hf-iterable \
  --shard-sizes 4,4 --batch-size 2
exits "a datasets stream before 1.4.0 is refused naming the recorded range" 2 \
  "golden/cases-releases records HuggingFace datasets from 1.4.0 on" \
  "$bin" --accelerate-version 1.0.1 --ranks 2 --dataset hf-iterable --shard-sizes 4,4
exits "workers before 1.4.0 are refused, saying what is recorded" 2 \
  "golden/cases-releases records workers from 1.4.0 on" \
  "$bin" --accelerate-version 1.0.1 --ranks 2 --dataset-len 20 --num-workers 2

# The StatefulDataLoader before 1.13.0: the saved count is R - 1 batches short (trained again), or below 0 (islice).
exits "upgrade 1.8.1 -> 1.13.0 of a stateful resume on 2 ranks: no batch trained twice any more" 0 \
  "with stateful: not identical in epoch 0: 6 samples trained again, 0 samples never trained -> identical to the uninterrupted job" \
  "$bin" upgrade --from 1.8.1 --to 1.13.0 --ranks 2 --dataset-len 23 --batch-size 3 --epochs 2 \
  --use-stateful-dataloader --resume-at 0:2 --resume-with stateful
exits "... on 3 ranks after one batch: 1.8.1's restarted job fails in islice" 0 \
  "fails: ValueError in the restarted job: Indices for islice() must be None or an integer" \
  "$bin" upgrade --from 1.8.1 --to 1.13.0 --ranks 3 --dataset-len 23 --batch-size 3 --epochs 2 \
  --use-stateful-dataloader --resume-at 0:1 --resume-with stateful
# The default is 1.16.0, yet a recording without config.accelerate_version is simulated on its own release
# (reference.accelerate_version, 1.15.0 here): `trace --config CASE` reproduces it, and the same config as a bare
# what-if gets 1.16.0's skipped total_batch_size (recorded: cases-releases/1.16.0/rel-skip-n1-b4-l10-nosplit-even-keep-k3).
skip115="$releases/../cases-torch2/skip-n1-b4-l10-nosplit-even-keep-k3.json"
exits "trace --config of a 1.15.0 recording reproduces it under the 1.16.0 default" 0 "^identical$" \
  bash -c "'$bin' trace --config '$skip115' | '$bin' diff '$skip115' -"
python3 -c "
import json; d = json.load(open('$skip115')); d.pop('reference'); json.dump(d, open('$tmp/skip-bare.json', 'w'))"
exits "...while the bare config is simulated on 1.16.0, where it differs" 1 "skipped_loader.total_batch_size" \
  bash -c "'$bin' trace --config '$tmp/skip-bare.json' | '$bin' diff '$skip115' -"

# A StatefulDataLoader with workers in 1.8.1 fails every pass (recorded: rel-workers-stateful-*); 1.13.0 does not.
check_output "a StatefulDataLoader with workers in 1.8.1 fails every pass on every rank" \
  "^verdict: error\\[iteration-error\\]: every rank fails while iterating: KeyError: '_sampler_iter_yielded' on every rank" \
  "$bin" --accelerate-version 1.8.1 --ranks 2 --dataset-len 20 --num-workers 2 --use-stateful-dataloader
check_output "...dispatched: rank 0 raises, the other ranks' broadcast fails" \
  "KeyError: '_sampler_iter_yielded' on rank 0 in every pass, before any batch (the other ranks then fail in the broadcast: RuntimeError: Connection closed by peer)" \
  "$bin" --accelerate-version 1.8.1 --ranks 2 --dataset-len 20 --num-workers 2 --use-stateful-dataloader \
  --dataset iterable --dispatch-batches
check_lacks "...and without workers it yields" "iteration-error" \
  "$bin" --accelerate-version 1.8.1 --ranks 2 --dataset-len 20 --use-stateful-dataloader
check_lacks "...as 1.13.0 does with them" "iteration-error" \
  "$bin" --accelerate-version 1.13.0 --ranks 2 --dataset-len 20 --num-workers 2 --use-stateful-dataloader
exits "...and the gate fails on it" 1 "iteration fails on every rank" \
  "$bin" check --accelerate-version 1.8.1 --ranks 2 --dataset-len 20 --num-workers 2 --use-stateful-dataloader \
  --require full-coverage

# check over several releases: results labelled by release.
exits "check --accelerate-versions labels each result" 1 "FAIL no-duplicates (Accelerate 0.28.0, first pass)" \
  "$bin" check --accelerate-versions 0.28.0,1.15.0 $acc --require no-duplicates
exits "check --accelerate-versions: a rejecting release fails with its error" 1 \
  "FAIL lockstep (Accelerate 1.5.0): Accelerate 1.5.0 rejects this configuration (AttributeError" \
  "$bin" check --accelerate-versions 1.4.0,1.5.0 $acc --torch-version 1.13 --require lockstep
exits "check --accelerate-versions passes when every release holds" 0 "ok   lockstep (Accelerate 0.14.0, first pass)" \
  "$bin" check --accelerate-versions 0.14.0,0.24.1,1.15.0 --ranks 2 --dataset-len 10 --require lockstep

# Bad versions: exit 2, naming the range.
for v in 0.13.2 1.16.1 2.0.0; do
  exits "--accelerate-version $v is refused naming the range" 2 "the modelled releases are 0.14.0 to 1.16.0" \
    "$bin" --accelerate-version $v --ranks 2 --dataset-len 10
done
exits "a version that is not X.Y.Z is refused" 2 "must be an Accelerate release \"X.Y.Z\" from 0.14.0 to 1.16.0" \
  "$bin" --accelerate-version 0.28 --ranks 2 --dataset-len 10
exits "upgrade --from outside the range" 2 "--from: Accelerate 0.13.0 is not modelled" \
  "$bin" upgrade --from 0.13.0 --to 1.15.0 --ranks 2 --dataset-len 10
exits "upgrade --to outside the range" 2 "--to: Accelerate 1.16.1 was never released" \
  "$bin" upgrade --from 1.15.0 --to 1.16.1 --ranks 2 --dataset-len 10
# 1.16.0 (issue 45): recorded on torch 2.15 and modelled; the default stays 1.15.0 (every unversioned golden set's).
exits "upgrade 1.15.0 -> 1.16.0 on a resumed tp job: the mesh is kept" 0 "1.16.0: the skipped loader keeps the prepared loader.s iteration, torch_device_mesh" \
  "$bin" upgrade --from 1.15.0 --to 1.16.0 --ranks 4 --parallelism dp_shard=2,tp=2 --dataset-len 101 --batch-size 2 --dataset iterable --skip-batches 3
check_lacks "1.16.0 keeps the mesh on skip: no mesh-lost-on-skip" "mesh-lost-on-skip" \
  "$bin" --accelerate-version 1.16.0 --ranks 4 --parallelism dp_shard=2,tp=2 --dataset-len 101 --batch-size 2 --dataset iterable --skip-batches 3
exits "1.15.0 loses it" 0 "error\[mesh-lost-on-skip\]" \
  "$bin" --accelerate-version 1.15.0 --ranks 4 --parallelism dp_shard=2,tp=2 --dataset-len 101 --batch-size 2 --dataset iterable --skip-batches 3
# gather_for_metrics on a resumed map-style loader (recorded probe: range(7), batch 2, 2 processes, skip 1): 1.15.0
# keeps the padded id 0 ([4, 5, 6, 0]), 1.16.0 knows the remainder and cuts it ([4, 5, 6]).
json_field "--eval after skip_first_batches, 1.15.0: the padded id reaches the metric" "4 [1, 2, 3] -1" \
  "j['eval']['metric_samples'], j['eval']['metric_missing']['first_ids'], j['eval']['last_remainder']" \
  "$bin" --accelerate-version 1.15.0 --ranks 2 --dataset-len 7 --batch-size 2 --skip-batches 1 --eval --json
json_field "--eval after skip_first_batches, 1.16.0: cut" "3 [0, 1, 2, 3] 3" \
  "j['eval']['metric_samples'], j['eval']['metric_missing']['first_ids'], j['eval']['last_remainder']" \
  "$bin" --accelerate-version 1.16.0 --ranks 2 --dataset-len 7 --batch-size 2 --skip-batches 1 --eval --json
exits "1.16.0 on torch 1.13 is refused (it requires torch >= 2.6)" 2 "requires torch >= 2.6" \
  "$bin" --accelerate-version 1.16.0 --torch-version 1.13 --ranks 2 --dataset-len 10
exits "check --accelerate-versions outside the range" 2 "--accelerate-versions: Accelerate 0.1.0 is not modelled" \
  "$bin" check --accelerate-versions 0.1.0 --ranks 2 --dataset-len 10 --require lockstep
printf '{"config": {"api": "accelerator", "dataset_len": 10, "num_processes": 2, "accelerate_version": "9.9.9"}}' > "$tmp/bad.json"
exits "a config's accelerate_version outside the range" 2 "config.accelerate_version: Accelerate 9.9.9 was never released" \
  "$bin" trace --config "$tmp/bad.json"
exits "skip_first_batches before 0.16.0 is refused on the command line" 2 "has no skip_first_batches" \
  "$bin" --accelerate-version 0.14.0 --ranks 2 --dataset-len 10 --skip-batches 1
exits "an option the release lacks raises its TypeError" 2 "unexpected keyword argument 'use_seedable_sampler'" \
  "$bin" --accelerate-version 0.24.1 --ranks 2 --dataset-len 10 --shuffle --use-seedable-sampler

echo "cli_releases: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
