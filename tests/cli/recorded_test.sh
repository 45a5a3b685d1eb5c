#!/usr/bin/env bash
# Issue 30: `check --recorded DIR` judges a real job's recording (accelerate_sim.record's rank-<r>.json files) and
# `diff --recorded DIR` names where it leaves the simulation. The recordings here are written by this script with
# planted faults (a sample trained twice across a resume, a rank with a batch more, a pass broken off), so each
# expected verdict follows from how the files were built; the real recorder's files are judged in tests/recorder.
set -u
bin=$1
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# write DIR N_RANKS DATASET_LEN SEED 'python expression of the passes per rank: r -> list of pass dicts'
write() {
  python3 - "$@" <<'PY'
import json, os, sys
d, world, n, seed, passes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
os.makedirs(d, exist_ok=True)
for r in range(world):
    config = {"api": "accelerator", "dataset_kind": "map", "dataset_len": None if n == "null" else int(n),
              "batch_size": 2, "num_processes": world, "shuffle": False, "drop_last": False,
              "accelerator": {"split_batches": False, "dispatch_batches": False, "even_batches": True,
                              "use_seedable_sampler": False, "data_seed": None},
              "modelled": True, "not_modelled": []}
    ref = {"accelerate_version": "1.15.0", "recorder": "accelerate_sim.record"}
    if seed != "none":
        ref["torch_initial_seed"] = int(seed)
    eps = eval(passes)(r)
    doc = {"case": "t", "family": "recorded", "config": config, "reference": ref, "error": None,
           "ranks": [{"rank": r, "loader_class": "DataLoaderShard", "len": 3, "epochs": eps}]}
    json.dump(doc, open(os.path.join(d, f"rank-{r}.json"), "w"))
PY
}
# Sequential, 2 ranks, 10 samples, batch 2: rank 0 [0,1] [4,5] [8,9], rank 1 [2,3] [6,7] [0,1] (even_batches pads).
seq='lambda r: [{"epoch": 0, "segment": 0, "start_step": 0, "batches": [[0,1],[4,5],[8,9]] if r == 0 else [[2,3],[6,7],[0,1]], "complete": True}]'
write "$tmp/seq" 2 10 none "$seq"
exits "even_batches padding is a duplicate" 1 "FAIL no-duplicates (epoch 0): 2 samples seen more than once (2 extra), ids 0, 1; sample 0 at rank 0 step 0 and rank 1 step 2" \
  "$bin" check --recorded "$tmp/seq" --require no-duplicates
exits "coverage and lockstep hold" 0 "ok   lockstep (epoch 0)" "$bin" check --recorded "$tmp/seq" --require no-drops,lockstep,len-consistent
check_output "full-coverage is judged once per part" "^2$" bash -c "'$bin' check --recorded '$tmp/seq' --require full-coverage,no-duplicates | grep -c ."
json_field "--json: the check object" "False" "j['passed']" "$bin" check --recorded "$tmp/seq" --require no-duplicates --json

# A resumed run: epoch 0 broken off after 1 batch, resumed at step 2 (step 1 lost), a second epoch complete.
resumed='lambda r: [{"epoch": 0, "segment": 0, "start_step": 0, "batches": [[0,1]] if r == 0 else [[2,3]], "complete": False},
                    {"epoch": 0, "segment": 1, "start_step": 2, "batches": [[8,9]] if r == 0 else [[0,1]], "complete": True}]'
write "$tmp/resumed" 2 10 none "$resumed"
exits "samples lost across the resume" 1 "FAIL no-drops (epoch 0): 4 of 10 samples never seen, ids 4-7" \
  "$bin" check --recorded "$tmp/resumed" --require no-drops
broken='lambda r: [{"epoch": 0, "segment": 0, "start_step": 0, "batches": [[0,1]] if r == 0 else [[2,3]], "complete": r == 0}]'
write "$tmp/broken" 2 10 none "$broken"
exits "a broken-off epoch is not judged, and says so" 0 "not judged: the epoch was broken off on rank(s) 1" \
  "$bin" check --recorded "$tmp/broken" --require lockstep
uneven='lambda r: [{"epoch": 0, "segment": 0, "start_step": 0, "batches": [[0,1],[4,5],[8,9]] if r == 0 else [[2,3],[6,7]], "complete": True}]'
write "$tmp/uneven" 2 10 none "$uneven"
exits "a rank with a batch less" 1 "FAIL lockstep (epoch 0): rank 1 yields 2 batches, others up to 3" \
  "$bin" check --recorded "$tmp/uneven" --require lockstep

# diff: sequential, seeded or not, is predicted; a planted batch is named.
exits "the sequential recording is the simulation's" 0 "identical: 6 batches on 2 ranks" "$bin" diff --recorded "$tmp/seq"
planted='lambda r: [{"epoch": 0, "segment": 0, "start_step": 0, "batches": [[0,1],[4,5],[8,9]] if r == 0 else [[2,3],[7,6],[0,1]], "complete": True}]'
write "$tmp/planted" 2 10 none "$planted"
exits "diff names the first rank/epoch/step off the prediction" 1 "rank 1, epoch 0, step 1: recorded \[7, 6\], simulated \[6, 7\]" \
  "$bin" diff --recorded "$tmp/planted"
python3 - "$tmp/seq" "$tmp/shuf" <<'PY'
import json, os, sys
os.makedirs(sys.argv[2])
for r in (0, 1):
    d = json.load(open(f"{sys.argv[1]}/rank-{r}.json")); d["config"]["shuffle"] = True
    del d["reference"]["accelerate_version"]
    json.dump(d, open(f"{sys.argv[2]}/rank-{r}.json", "w"))
PY
exits "an unseeded shuffle is not predicted" 3 "not compared: the recording does not say how torch was seeded" "$bin" diff --recorded "$tmp/shuf"

# The recording's own releases (issue 45/51): golden/cases-releases/0.28.0/rel-accel-shuffle-n2-b1-l1001-s42.json, a
# real 2-process recording on Accelerate 0.28.0 and torch 1.13 (set_seed(42)), rewritten as accelerate_sim.record's rank
# files. Predicted by 0.28.0's rules it is identical; the same ids said to come from 1.15.0 differ at step 0 (1.15
# seeds the shuffle's generator from the global one, 0.28 draws from each rank's global generator); a release
# accel-sim does not model is not compared (exit 3), never answered with another release's rules.
golden_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../golden" && pwd)"
as_recording() {  # OUT ACCELERATE_VERSION
  python3 - "$golden_dir/cases-releases/0.28.0/rel-accel-shuffle-n2-b1-l1001-s42.json" "$@" <<'PY'
import json, os, sys
src, out, version = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
for r in src["ranks"]:
    cfg = {"api": "accelerator", "dataset_kind": "map", "dataset_len": 1001, "batch_size": 1, "num_processes": 2,
           "shuffle": True, "drop_last": False,
           "accelerator": {"split_batches": False, "dispatch_batches": False, "even_batches": True,
                           "use_seedable_sampler": False, "data_seed": None}, "modelled": True, "not_modelled": []}
    eps = [{"epoch": e["epoch"], "segment": 0, "start_step": 0, "batches": e["batches"], "complete": True}
           for e in r["epochs"]]
    ref = {"accelerate_version": version, "torch": src["reference"]["torch"], "torch_initial_seed": 42,
           "recorder": "accelerate_sim.record"}
    doc = {"case": "t", "family": "recorded", "config": cfg, "reference": ref, "error": None,
           "ranks": [{"rank": r["rank"], "loader_class": "DataLoaderShard", "len": r["len"], "epochs": eps}]}
    json.dump(doc, open(os.path.join(out, f"rank-{r['rank']}.json"), "w"))
PY
}
as_recording "$tmp/rel028" 0.28.0
exits "a 0.28.0 recording is predicted by 0.28.0's rules" 0 "identical: 2004 batches on 2 ranks" "$bin" diff --recorded "$tmp/rel028"
as_recording "$tmp/rel115" 1.15.0
exits "the same ids as a 1.15.0 recording differ" 1 "rank 0, epoch 0, step 0: recorded \[456\]" "$bin" diff --recorded "$tmp/rel115"
as_recording "$tmp/rel0132" 0.13.2
exits "an unmodelled release is not compared" 3 "the recording was made with Accelerate 0.13.2: Accelerate 0.13.2 is not modelled" \
  "$bin" diff --recorded "$tmp/rel0132"

# Bad recordings.
exits "no recording" 2 "no rank-<r>.json in" "$bin" check --recorded "$tmp" --require lockstep
rm "$tmp/uneven/rank-1.json"
exits "a rank's file is missing" 2 "has no rank-1.json (num_processes is 2)" "$bin" check --recorded "$tmp/uneven" --require lockstep
write "$tmp/badfam" 1 10 none 'lambda r: [{"epoch": 0, "batches": [[0, "x"]]}]'
exits "a sample id that is not an integer" 2 "rank-0.json: ranks\[0\].epochs\[0\].batches\[0\]: sample ids must be integers" \
  "$bin" check --recorded "$tmp/badfam" --require lockstep
write "$tmp/nolen" 1 null none 'lambda r: [{"epoch": 0, "batches": [[0, 1]]}]'
exits "no-drops needs a length" 2 "no-drops: the recording has no dataset length" "$bin" check --recorded "$tmp/nolen" --require no-drops
exits "an unknown requirement" 2 "'exact-resume' is not judged on a recording" "$bin" check --recorded "$tmp/seq" --require exact-resume
exits "--recorded needs --require" 2 "check --recorded: give --require LIST" "$bin" check --recorded "$tmp/seq"

# Issue 48: no-drops reads the gaps between the ids seen, so a dataset_len of 2^40 is judged from the 4 ids recorded
# (a loop over every id would run for hours).
write "$tmp/huge" 1 1099511627776 none 'lambda r: [{"epoch": 0, "batches": [[0, 1], [5, 3]]}]'
exits "no-drops over 2^40 samples lists the gaps" 1 "1099511627772 of 1099511627776 samples never seen, ids 2, 4, 6-1099511627775" \
  "$bin" check --recorded "$tmp/huge" --require no-drops

# Issue 50: reference.sampler_generator_seed is read as prepare draws it, and --rng-draws goes with --recorded only.
cp -r "$tmp/seq" "$tmp/badseed"
python3 - "$tmp/badseed/rank-0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["reference"]["sampler_generator_seed"] = -3; json.dump(d, open(sys.argv[1], "w"))
PY
exits "a negative sampler generator seed" 2 "rank-0.json: reference.sampler_generator_seed: must be null or an integer in \[0, 2^63), got -3" \
  "$bin" diff --recorded "$tmp/badseed"
exits "--rng-draws without --recorded" 2 "diff: --rng-draws goes with --recorded DIR" "$bin" diff a b --rng-draws 3
exits "--rng-draws past its bound" 2 "--rng-draws" "$bin" diff --recorded "$tmp/seq" --rng-draws -1

echo "recorded: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
