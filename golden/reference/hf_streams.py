"""Records which example ids a HuggingFace `datasets.IterableDataset` yields, per epoch, node and DataLoader worker,
with the real `datasets` and torch (real worker processes), into golden/hf-streams/datasets-<version>.json:

    <venv with torch and datasets>/bin/python golden/reference/hf_streams.py [OUT.json]

The dataset is built locally, never from the hub: IterableDataset.from_generator over gen_kwargs {"shards": [...]},
shard s yielding the ids offset(s) .. offset(s) + size(s) - 1 in order (the ids of the unshuffled concatenation).
Each case applies, in this order, what a training script and Accelerate apply: `.shuffle(seed, buffer_size,
max_buffer_input_shards)`, `split_dataset_by_node(rank, world_size)` (nested ones compose), Accelerate's
`.shard(num_processes, process_index)`, `set_epoch(epoch)`; then iterates it in the main process (num_workers 0) or
through DataLoader(batch_size=None, num_workers=W), whose workers tag every example with get_worker_info().id, so
each worker's own stream is recorded, in the order that worker produced it. The numpy draws behind the shuffle are
recorded too (tests/core/numpy_generator_test.cpp reads them).

Every case records what the library raised instead, when it raises.
"""
import inspect
import json
import os
import sys

import numpy as np
import torch
import datasets
from datasets import IterableDataset
from datasets.distributed import split_dataset_by_node

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_gen(sizes):
    offsets = [sum(sizes[:s]) for s in range(len(sizes))]

    def gen(shards):
        info = torch.utils.data.get_worker_info()
        worker = info.id if info is not None else -1
        for s in shards:
            for k in range(sizes[s]):
                yield {"id": offsets[s] + k, "worker": worker}

    return gen


def build(case):
    sizes = case["shard_sizes"]
    ds = IterableDataset.from_generator(make_gen(sizes), gen_kwargs={"shards": list(range(len(sizes)))})
    if case.get("shuffle"):
        sh = case["shuffle"]
        # max_buffer_input_shards exists from datasets 5.0 on (default 10): passed only where the case names it.
        extra = {"max_buffer_input_shards": sh["max_buffer_input_shards"]} if "max_buffer_input_shards" in sh else {}
        ds = ds.shuffle(seed=sh["seed"], buffer_size=sh["buffer_size"], **extra)
    for node in case.get("split_by_node", []):
        ds = split_dataset_by_node(ds, rank=node["rank"], world_size=node["world_size"])
    if case.get("shard"):
        sd = case["shard"]
        ds = ds.shard(num_shards=sd["num_shards"], index=sd["index"], contiguous=sd.get("contiguous", True))
    ds.set_epoch(case.get("epoch", 0))
    return ds


def record(case):
    try:
        ds = build(case)
        n_shards = ds.n_shards
        W = case.get("num_workers", 0)
        if W == 0:
            streams = [[ex["id"] for ex in ds]]
        else:
            streams = [[] for _ in range(W)]
            dl = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=W)
            for ex in dl:
                streams[int(ex["worker"])].append(int(ex["id"]))
        return {"n_shards": n_shards, "streams": streams}
    except Exception as e:  # noqa: BLE001  (what the library raises is the recording)
        return {"error": {"type": type(e).__name__, "message": str(e).splitlines()[0]}}


UNEQUAL = [5, 3, 7, 2, 4, 6, 1, 3, 8, 2]


def cases():
    out = []
    layouts = [UNEQUAL, [4, 4, 4, 4], [13], [3, 0, 5], [6, 2, 9], [2, 5, 1, 4, 3, 2, 6]]
    shuffles = [None, {"seed": 7, "buffer_size": 4}, {"seed": 123, "buffer_size": 1000},
                {"seed": 0, "buffer_size": 3, "max_buffer_input_shards": 2}, {"seed": 2**40 + 5, "buffer_size": 7}]
    i = 0
    for sizes in layouts:
        for sh in shuffles:
            for epoch in (0, 1, 2):
                for W in (0, 1, 2, 3):
                    i += 1
                    # All of num_workers 0; a third of the rest (each worker count is real processes: slow).
                    if W and i % 3:
                        continue
                    base = {"shard_sizes": sizes, "epoch": epoch, "num_workers": W}
                    if sh:
                        base["shuffle"] = sh
                    out.append(dict(base))
                    # Accelerate's .shard(num_processes, process_index), for every process of R = 2, 3, 4.
                    for R in (2, 3, 4):
                        if len(sizes) >= R and (i + R) % 2 == 0:
                            for p in range(R):
                                out.append(dict(base, shard={"num_shards": R, "index": p}))
                    # split_dataset_by_node: by shards when n_shards % world_size == 0, by examples otherwise.
                    for ws in (2, 3, 4):
                        if (i + ws) % 3 == 0:
                            for r in range(ws):
                                out.append(dict(base, split_by_node=[{"rank": r, "world_size": ws}]))
    # Nested splits, and a split followed by Accelerate's shard (what prepare does to a dataset already split).
    for sizes in (UNEQUAL, [4, 4, 4, 4], [2, 5, 1, 4, 3, 2, 6]):
        for epoch in (0, 1):
            for sh in (None, {"seed": 7, "buffer_size": 4}):
                base = {"shard_sizes": sizes, "epoch": epoch}
                if sh:
                    base["shuffle"] = sh
                for r in range(2):
                    for r2 in range(2):
                        out.append(dict(base, split_by_node=[{"rank": r, "world_size": 2},
                                                             {"rank": r2, "world_size": 2}]))
                    out.append(dict(base, split_by_node=[{"rank": r, "world_size": 2}],
                                    shard={"num_shards": 2, "index": r}))
    # What the library refuses: a shard of more pieces than shards.
    out.append({"shard_sizes": [3, 4], "shard": {"num_shards": 3, "index": 2}})
    return out


def numpy_vectors():
    """numpy's own draws for the generator test: raw 64-bit words, bounded integers and permutations."""
    seeds = [0, 1, 7, 42, 123, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1, 2**64 - 1]
    out = []
    for seed in seeds:
        g = np.random.default_rng(seed)
        raw = [int(v) for v in g.bit_generator.random_raw(6)]
        g = np.random.default_rng(seed)
        ints = [int(g.integers(0, hi)) for hi in (1, 2, 3, 10, 1000, 2**31, 2**32, 2**32 + 1, 2**40, 2**63)]
        g = np.random.default_rng(seed)
        batch = [int(v) for v in g.integers(0, 7, size=9)]
        mixed = [int(v) for v in g.integers(0, 1 << 63, size=2)]
        perms = [[int(v) for v in np.random.default_rng(seed).permutation(n)] for n in (0, 1, 2, 5, 17)]
        g = np.random.default_rng(seed)
        lst = list(range(11))
        g.shuffle(lst)
        after = int(g.integers(0, 1000))
        state = np.random.SeedSequence(seed).generate_state(8)
        out.append({"seed": seed, "seed_sequence_state": [int(v) for v in state], "random_raw": raw,
                    "integers": ints, "integers_size9_below7_then_two_below_2p63": batch + mixed,
                    "permutations": perms, "shuffled_list_11": lst, "integers_after_shuffle": after})
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        GOLDEN, "hf-streams", f"datasets-{datasets.__version__}.json")
    todo = cases()
    if "max_buffer_input_shards" not in inspect.signature(IterableDataset.shuffle).parameters:
        # Before datasets 5.0 the keyword does not exist: one case records the TypeError, the others are left out.
        named = [c for c in todo if "max_buffer_input_shards" in c.get("shuffle", {})]
        todo = [c for c in todo if c not in named[1:]]
    recorded = [dict(case=c, **record(c)) for c in todo]
    doc = {
        "reference": {"datasets": datasets.__version__, "numpy": np.__version__, "torch": torch.__version__,
                      "python": sys.version.split()[0], "source": "PyPI, run unmodified on the CPU"},
        "streams": recorded,
        "numpy": numpy_vectors(),
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    errors = sum(1 for r in recorded if "error" in r)
    print(f"hf_streams: {len(recorded)} cases ({errors} raised) -> {out}")


if __name__ == "__main__":
    main()
