#!/usr/bin/env bash
# Issue 48's table, every row in one run on this machine: whole-process wall time and peak RSS (/usr/bin/time), the
# exit code, and the first line of the output (the answer, or the refusal's reason). For people, not CI.
#   bench/issue48_rows.sh [build/accel-sim]
set -u
bin=${1:-build/accel-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
for keys in (100_000, 200_000):
    config = {"dataset_len": 10, "num_processes": 2}
    config.update({"x%d" % i: 1 for i in range(keys)})
    json.dump({"config": config}, open(f"{tmp}/keys{keys}.json", "w"))
json.dump({"config": {"dataset_len": 10, "num_processes": 2, "y" * 10_000_000: 1}}, open(f"{tmp}/key10mb.json", "w"))
import os
for name, n in (("rec1e9", 10**9), ("rec2p40", 2**40)):
    os.makedirs(f"{tmp}/{name}")
    for r in range(2):
        config = {"api": "accelerator", "dataset_kind": "map", "dataset_len": n, "batch_size": 2, "num_processes": 2,
                  "shuffle": False, "drop_last": False,
                  "accelerator": {"split_batches": False, "dispatch_batches": False, "even_batches": True,
                                  "use_seedable_sampler": False, "data_seed": None},
                  "modelled": True, "not_modelled": []}
        batches = [[0, 1], [4, 5]] if r == 0 else [[2, 3], [6, 7]]
        doc = {"case": "t", "family": "recorded", "config": config,
               "reference": {"accelerate_version": "1.15.0", "recorder": "accelerate_sim.record"}, "error": None,
               "ranks": [{"rank": r, "loader_class": "DataLoaderShard", "len": 2, "epochs": [
                   {"epoch": 0, "segment": 0, "start_step": 0, "batches": batches, "complete": True}]}]}
        json.dump(doc, open(f"{tmp}/{name}/rank-{r}.json", "w"))
PY
row() {  # label, command...
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" timeout 60 "$@" >"$tmp/out" 2>&1
  local rc=$?
  read -r wall rss < <(tail -1 "$tmp/time" 2>/dev/null) || { wall="-"; rss=0; }
  printf '| %s | %s s | %s MB | %s | %s |\n' "$label" "${wall:--}" "$((${rss:-0} / 1024))" "$rc" \
    "$(grep -v '^$' "$tmp/out" | head -1 | cut -c1-110 | sed 's/|/\\|/g')"
}
echo "| job | time | peak RSS | exit | first line |"
echo "| --- | --- | --- | --- | --- |"
row "trainer 64 x 1e6, batch 8" "$bin" --api trainer --ranks 64 --dataset-len 1000000 --batch-size 8
row "trainer 64 x 1e7, batch 8" "$bin" --api trainer --ranks 64 --dataset-len 10000000 --batch-size 8
row "trainer 64 x 1e8, batch 8" "$bin" --api trainer --ranks 64 --dataset-len 100000000 --batch-size 8
row "trainer 512 x 1e7, per-device 8" "$bin" --api trainer --ranks 512 --dataset-len 10000000 --per-device-batch-size 8
row "trainer 1000 samples, max-steps 1e6" "$bin" --api trainer --dataset-len 1000 --max-steps 1000000
row "iterable, 8 strided workers, 64 x 1e8" "$bin" --ranks 64 --dataset-len 100000000 --dataset iterable --num-workers 8 --worker-split strided
row "the same, --no-dispatch-batches" "$bin" --ranks 64 --dataset-len 100000000 --dataset iterable --num-workers 8 --worker-split strided --no-dispatch-batches
row "iterable, 1024 workers, 65536 x 1000" "$bin" --ranks 65536 --dataset-len 1000 --batch-size 1 --dataset iterable --no-dispatch-batches --num-workers 1024
row "hf-iterable 64 shards, 2 workers, 64 x 1e6" "$bin" --ranks 64 --dataset-len 1000000 --dataset hf-iterable --num-shards 64 --num-workers 2
row "hf-iterable 1e8 x 64, 1024 shards, .shard()" "$bin" --ranks 64 --dataset-len 100000000 --dataset hf-iterable --num-shards 1024 --no-dispatch-batches
row "hf-iterable 1e9 x 256, 1024 shards, 4 workers" "$bin" --ranks 256 --dataset-len 1000000000 --dataset hf-iterable --num-shards 1024 --num-workers 4
row "the same, .shard() path" "$bin" --ranks 256 --dataset-len 1000000000 --dataset hf-iterable --num-shards 1024 --num-workers 4 --no-dispatch-batches
row "hf-iterable 1048576 shards x 512 ranks" "$bin" --ranks 512 --dataset-len 10000000 --dataset hf-iterable --num-shards 1048576
row "upgrade 0.14.0 -> 1.15.0, 64 x 1e6, 3 epochs" "$bin" upgrade --from 0.14.0 --to 1.15.0 --ranks 64 --dataset-len 1000000 --shuffle --epochs 3
row "upgrade 0.14.0 -> 1.15.0, 64 x 1e7, 3 epochs" "$bin" upgrade --from 0.14.0 --to 1.15.0 --ranks 64 --dataset-len 10000000 --shuffle --epochs 3
row "check --recorded, dataset_len 1e9" "$bin" check --recorded "$tmp/rec1e9" --require no-duplicates,no-drops,lockstep
row "check --recorded, dataset_len 2^40" "$bin" check --recorded "$tmp/rec2p40" --require no-duplicates,no-drops,lockstep
row "config with 100k keys (trace)" "$bin" trace --config "$tmp/keys100000.json"
row "config with 200k keys (trace)" "$bin" trace --config "$tmp/keys200000.json"
row "config with one 10 MB key (trace)" "$bin" trace --config "$tmp/key10mb.json"
row "shuffled what-if 4096 x 1e9, batch 32" "$bin" --ranks 4096 --dataset-len 1000000000 --batch-size 32 --shuffle --seed 7
row "the same, check --require" "$bin" check --require no-duplicates,no-drops,lockstep --ranks 4096 --dataset-len 1000000000 --batch-size 32 --shuffle --seed 7
