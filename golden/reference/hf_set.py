"""Writes the inputs of the HuggingFace `datasets` golden cases (golden/cases-torch2/hf-*.json):

    python3 golden/reference/hf_set.py       # then: golden/refresh --torch 2 'hf-*' --write

A datasets.IterableDataset built locally (IterableDataset.from_generator over shards of the given sizes, the
recorder's hf_iterable_dataset), optionally shuffled with a buffer and split with split_dataset_by_node on every
rank before prepare, through prepare_data_loader and Accelerator.prepare in gloo groups of R processes: Accelerate's
`.shard()` path (at least R shards, batches neither split nor dispatched: whole shards per rank, uneven steps), the
IterableDatasetShard path (fewer shards than R, or split_batches), and the dispatcher; 1-3 epochs (the loader calls
set_epoch with its iteration), DataLoader workers 0-3. A file is written only when the case is not there yet.
"""
import json
import os

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

UNEQUAL10 = [5, 3, 7, 2, 4, 6, 1, 3, 8, 2]


def loader_config(R, sizes, b, **kw):
    c = {"api": "prepare_data_loader", "dataset_kind": "hf-iterable", "shard_sizes": sizes,
         "dataset_len": sum(sizes), "batch_size": b, "num_processes": R, "split_batches": False,
         "even_batches": True, "drop_last": False, "shuffle": False, "use_seedable_sampler": False, "data_seed": None,
         "torch_manual_seed": None, "dispatch_batches": False, "dataset_generator": False, "epochs": 1,
         "schedule": ["prepared"], "set_epoch": None, "skip_first_batches": None, "multiprocess": R > 1,
         "hf_shuffle": None, "split_by_node": False, "datasets_version": "5.2"}
    c.update(kw)
    c["schedule"] = [c["schedule"][0]] * c["epochs"]
    return c


def accelerator_config(R, sizes, b, accelerator, **kw):
    c = {"api": "accelerator", "dataset_kind": "hf-iterable", "shard_sizes": sizes, "dataset_len": sum(sizes),
         "batch_size": b, "num_processes": R, "drop_last": False, "shuffle": False, "generator_seed": None,
         "dataset_generator": False, "epochs": 1, "schedule": ["prepared"], "set_epoch": None,
         "skip_first_batches": None, "set_seed": None, "set_seed_device_specific": False, "accelerator": accelerator,
         "multiprocess": R > 1, "hf_shuffle": None, "split_by_node": False, "datasets_version": "5.2"}
    c.update(kw)
    c["schedule"] = [c["schedule"][0]] * c["epochs"]
    if c["dataset_kind"] == "hf-map":
        del c["shard_sizes"], c["split_by_node"]
    return c


def family(c):
    if c["api"] == "accelerator":
        return "accelerator"
    if c.get("dispatch_batches") is True:
        return "dispatch"
    return "hf"


def tag(sizes):
    return "s" + "-".join(str(s) for s in sizes) if len(sizes) <= 4 else f"s{len(sizes)}x{sum(sizes)}"


def cases():
    out = {}
    shuffle = {"seed": 7, "buffer_size": 4}
    # The acceptance case: 10 unequal shards on 4 ranks, not dispatched: .shard(), whole shards per rank.
    for R in (2, 3, 4):
        for epochs in (1, 2):
            out[f"hf-shard-n{R}-{tag(UNEQUAL10)}-b2-e{epochs}"] = loader_config(R, UNEQUAL10, 2, epochs=epochs)
        out[f"hf-shard-n{R}-{tag(UNEQUAL10)}-b3-drop"] = loader_config(R, UNEQUAL10, 3, drop_last=True)
        out[f"hf-shard-n{R}-{tag(UNEQUAL10)}-b2-shuffle-e3"] = loader_config(R, UNEQUAL10, 2, epochs=3,
                                                                            hf_shuffle=shuffle)
    # Shards equal to / fewer than R, and not multiples.
    for R, sizes in ((2, [4, 4]), (3, [5, 2, 6]), (4, [3, 0, 5]), (2, [6, 2, 9]), (3, [2, 5, 1, 4, 3])):
        out[f"hf-n{R}-{tag(sizes)}-b2"] = loader_config(R, sizes, 2, epochs=2)
        out[f"hf-n{R}-{tag(sizes)}-b2-split"] = loader_config(R, sizes, 2 * R, split_batches=True)
    # split_dataset_by_node before prepare (by shards when they divide, by examples otherwise), then Accelerate.
    for R, sizes in ((2, [4, 4, 4, 4]), (2, UNEQUAL10), (3, UNEQUAL10), (4, [4, 4, 4, 4]), (2, [6, 2, 9])):
        out[f"hf-splitnode-n{R}-{tag(sizes)}-b2-e2"] = loader_config(R, sizes, 2, epochs=2, split_by_node=True)
    # DataLoader workers: each worker reads shards w::W of what its rank has.
    for W in (1, 2, 3):
        out[f"hf-shard-n2-{tag(UNEQUAL10)}-b2-w{W}-e2"] = loader_config(2, UNEQUAL10, 2, epochs=2, num_workers=W)
        out[f"hf-n3-s5-2-6-b2-w{W}"] = loader_config(3, [5, 2, 6], 2, num_workers=W)
        out[f"hf-shard-n2-{tag(UNEQUAL10)}-b2-w{W}-shuffle-e2"] = loader_config(2, UNEQUAL10, 2, epochs=2,
                                                                               num_workers=W, hf_shuffle=shuffle)
    out["hf-splitnode-n2-s6-2-9-b2-w2"] = loader_config(2, [6, 2, 9], 2, split_by_node=True, num_workers=2)
    # A single process: prepare leaves the dataset alone.
    out["hf-n1-s5-2-6-b2-shuffle-e2"] = loader_config(1, [5, 2, 6], 2, epochs=2, hf_shuffle=shuffle)
    # The dispatcher: rank 0 reads the whole stream (with split_by_node: only its own part).
    for R in (2, 3):
        out[f"hf-dispatch-n{R}-{tag(UNEQUAL10)}-b2"] = loader_config(R, UNEQUAL10, 2, dispatch_batches=True,
                                                                   put_on_device=True)
    out["hf-dispatch-splitnode-n2-s4-4-4-4-b2"] = loader_config(2, [4, 4, 4, 4], 2, dispatch_batches=True,
                                                               put_on_device=True, split_by_node=True)
    # Accelerator.prepare: dispatch by default for an iterable dataset; dispatch_batches=False takes .shard().
    for R in (2, 4):
        out[f"hf-accel-n{R}-{tag(UNEQUAL10)}-b2"] = accelerator_config(R, UNEQUAL10, 2, {})
        out[f"hf-accel-n{R}-{tag(UNEQUAL10)}-b2-nodispatch-e2"] = accelerator_config(
            R, UNEQUAL10, 2, {"dispatch_batches": False}, epochs=2)
        out[f"hf-accel-n{R}-{tag(UNEQUAL10)}-b2-nodispatch-shuffle-e2"] = accelerator_config(
            R, UNEQUAL10, 2, {"dispatch_batches": False}, epochs=2, hf_shuffle=shuffle)
    # A map-style datasets.Dataset shuffled with .shuffle(seed): the sampler's index i reads row permutation[i].
    for R in (1, 2, 3):
        for seed in (0, 42):
            out[f"hf-map-n{R}-l23-b3-seed{seed}"] = map_config(R, 23, 3, seed, epochs=2)
        out[f"hf-map-n{R}-l23-b3-seed42-seedable"] = map_config(R, 23, 3, 42, shuffle=True, use_seedable_sampler=True,
                                                               data_seed=5, epochs=2)
    out["hf-map-n2-l1000-b8-seed7-even"] = map_config(2, 1000, 8, 7, even_batches=False)
    out["hf-accel-map-n2-l23-b3-seed42-shuffle"] = accelerator_config(2, [], 3, {}, dataset_kind="hf-map",
                                                                     dataset_len=23, hf_shuffle={"seed": 42},
                                                                     shuffle=True, set_seed=11, epochs=2)
    return out


def map_config(R, n, b, seed, **kw):
    c = loader_config(R, [], b, dataset_kind="hf-map", dataset_len=n, hf_shuffle={"seed": seed}, **kw)
    del c["shard_sizes"], c["split_by_node"]
    return c


def write(name, c):
    target = os.path.join(GOLDEN, "cases-torch2", name + ".json")
    if os.path.exists(target):
        return 0
    with open(target, "w") as f:
        json.dump({"case": name, "family": family(c), "config": dict(c, torch_version="2.6")}, f, indent=2)
        f.write("\n")
    return 1


def main():
    written = sum(write(name, c) for name, c in sorted(cases().items()))
    print(f"hf_set: {written} inputs in golden/cases-torch2")


if __name__ == "__main__":
    main()
