"""Writes the inputs of the DataLoader-worker golden cases (golden/cases-torch2/workers-*.json, and the ones torch
1.13 runs into golden/cases/workers-*.json):

    python3 golden/reference/workers_set.py       # then: golden/refresh --torch 2 'workers-*' --write
                                                  #       golden/refresh 'workers-*' --write

DataLoader(num_workers=W) with real worker processes, over the recorder's iterable datasets, which split their
stream by worker as config.worker_split says (none: every worker yields everything; strided: islice(worker_id,
None, W); contiguous: the worker's block), under prepare_data_loader (IterableDatasetShard on every rank), the
dispatcher (rank 0's loader has the workers) and Accelerator.prepare with and without dispatch, in gloo groups of
R > 1 processes. Batch sizes and lengths leave partial batches per worker; drop_last drops them. A dataset that
owns a torch.Generator shows what persistent_workers keeps across passes (the workers' copies of the dataset and of
the IterableDatasetShard around it). Map-style datasets with workers keep the sampler's order (persistent workers
draw one _base_seed for all passes). A file is written only when the case is not there yet, as `case`, `family`
and `config` alone.
"""
import json
import os

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def loader_config(R, n, b, **kw):
    c = {"api": "prepare_data_loader", "dataset_kind": "iterable", "dataset_len": n, "batch_size": b,
         "num_processes": R, "split_batches": False, "even_batches": True, "drop_last": False, "shuffle": False,
         "use_seedable_sampler": False, "data_seed": None, "torch_manual_seed": None, "dispatch_batches": False,
         "dataset_generator": False, "epochs": 1, "schedule": ["prepared"], "set_epoch": None,
         "skip_first_batches": None, "multiprocess": R > 1}
    c.update(kw)
    epochs = c["epochs"]
    if len(c["schedule"]) != epochs:
        c["schedule"] = [c["schedule"][0]] * epochs
    return c


def accelerator_config(R, n, b, accelerator, **kw):
    c = {"api": "accelerator", "dataset_kind": "iterable", "dataset_len": n, "batch_size": b, "num_processes": R,
         "drop_last": False, "shuffle": False, "generator_seed": None, "dataset_generator": False, "epochs": 1,
         "schedule": ["prepared"], "set_epoch": None, "skip_first_batches": None, "set_seed": None,
         "set_seed_device_specific": False, "accelerator": accelerator, "multiprocess": R > 1}
    c.update(kw)
    if len(c["schedule"]) != c["epochs"]:
        c["schedule"] = [c["schedule"][0]] * c["epochs"]
    return c


def family(c):
    if c["api"] == "accelerator+gather_for_metrics":
        return "metrics"
    if c["api"] == "accelerator":
        return "accelerator"
    if c.get("dispatch_batches") is True:
        return "dispatch"
    if c.get("skip_first_batches") is not None:
        return "skip"
    return "iterable" if c["dataset_kind"] == "iterable" else "map"


def cases():
    out = {}
    # IterableDatasetShard on every rank (prepare_data_loader, dispatch_batches=False), and R = 1 (no shard).
    for R in (1, 2, 3):
        for W in (1, 2, 3, 4):
            for split in ("none", "strided", "contiguous"):
                if W == 1 and split != "none":
                    continue
                for n, b, drop in ((13, 2, False), (13, 2, True), (10, 3, False)):
                    if R == 3 and (n, b, drop) == (13, 2, True):
                        continue
                    name = f"workers-iter-n{R}-w{W}-{split}-l{n}-b{b}" + ("-drop" if drop else "")
                    out[name] = loader_config(R, n, b, num_workers=W, worker_split=split, drop_last=drop)
    # split_batches with workers.
    for W, split in ((2, "none"), (2, "strided"), (3, "contiguous")):
        out[f"workers-iter-n2-w{W}-{split}-l13-b4-split"] = loader_config(2, 13, 4, num_workers=W,
                                                                          worker_split=split, split_batches=True)
    # The dispatcher: rank 0's workers feed every rank; mid-stream short batches are cut by observed // R.
    for R in (2, 3):
        for W in (2, 3):
            for split in ("none", "strided"):
                for n, b, drop, sb in ((13, 2, False, False), (13, 2, True, False), (11, 4, False, True)):
                    if sb and R == 3:
                        b = 3
                    name = (f"workers-dispatch-n{R}-w{W}-{split}-l{n}-b{b}" + ("-drop" if drop else "") +
                            ("-split" if sb else ""))
                    out[name] = loader_config(R, n, b, num_workers=W, worker_split=split, drop_last=drop,
                                              split_batches=sb, dispatch_batches=True, put_on_device=True)
    # skip_first_batches over a loader with workers (sharded and dispatched).
    for W, split, k in ((2, "none", 3), (3, "strided", 2), (2, "contiguous", 1)):
        out[f"workers-skip-n2-w{W}-{split}-l13-b2-k{k}"] = loader_config(
            2, 13, 2, num_workers=W, worker_split=split, skip_first_batches=k, schedule=["skipped"],
            api="prepare_data_loader+skip_first_batches")
        out[f"workers-dispatch-skip-n2-w{W}-{split}-l13-b2-k{k}"] = loader_config(
            2, 13, 2, num_workers=W, worker_split=split, skip_first_batches=k, schedule=["skipped"],
            api="prepare_data_loader+skip_first_batches", dispatch_batches=True, put_on_device=True)
    # A dataset owning a torch.Generator: the workers' copies, persistent or not, over two and three passes.
    for R in (1, 2):
        for W, split in ((2, "none"), (2, "strided"), (3, "contiguous")):
            for persistent in (False, True):
                tag = "persist" if persistent else "fresh"
                out[f"workers-itergen-n{R}-w{W}-{split}-{tag}-l11-b2"] = loader_config(
                    R, 11, 2, num_workers=W, worker_split=split, dataset_generator=True, epochs=3,
                    persistent_workers=persistent)
        out[f"workers-itergen-n{R}-w2-strided-persist-setepoch-l11-b2"] = loader_config(
            R, 11, 2, num_workers=2, worker_split="strided", dataset_generator=True, epochs=2,
            persistent_workers=True, set_epoch=[5, 9])
    for W, persistent in ((2, False), (2, True)):
        tag = "persist" if persistent else "fresh"
        out[f"workers-dispatch-itergen-n2-w{W}-strided-{tag}-l11-b2"] = loader_config(
            2, 11, 2, num_workers=W, worker_split="strided", dataset_generator=True, epochs=3,
            persistent_workers=persistent, dispatch_batches=True, put_on_device=True)
    # Accelerator.prepare: the default (dispatch for iterable data) and dispatch_batches=False, and a generator.
    for R in (1, 2, 3):
        for W, split in ((2, "none"), (3, "strided"), (4, "contiguous")):
            out[f"workers-accel-iter-n{R}-w{W}-{split}-l13-b2"] = accelerator_config(
                R, 13, 2, {}, num_workers=W, worker_split=split, epochs=2)
            out[f"workers-accel-iter-n{R}-w{W}-{split}-l13-b2-nodispatch"] = accelerator_config(
                R, 13, 2, {"dispatch_batches": False}, num_workers=W, worker_split=split, epochs=2)
    for persistent in (False, True):
        tag = "persist" if persistent else "fresh"
        out[f"workers-accel-itergen-n2-w2-strided-{tag}-l11-b2-nodispatch"] = accelerator_config(
            2, 11, 2, {"dispatch_batches": False}, num_workers=2, worker_split="strided", dataset_generator=True,
            epochs=3, persistent_workers=persistent)
    # Map-style datasets: workers keep the sampler's order; persistent workers draw one _base_seed.
    for persistent in (False, True):
        tag = "persist" if persistent else "fresh"
        out[f"workers-map-n2-w2-{tag}-l13-b2-shuffle-gen"] = loader_config(
            2, 13, 2, dataset_kind="map", shuffle=True, generator_seed=7, num_workers=2, epochs=3,
            persistent_workers=persistent)
        out[f"workers-map-n2-w3-{tag}-l13-b2-shuffle-torchseed"] = loader_config(
            2, 13, 2, dataset_kind="map", shuffle=True, torch_manual_seed=3, num_workers=3, epochs=3,
            persistent_workers=persistent)
        out[f"workers-accel-map-n2-w2-{tag}-l13-b2-shuffle"] = accelerator_config(
            2, 13, 2, {}, dataset_kind="map", shuffle=True, set_seed=11, num_workers=2, epochs=3,
            persistent_workers=persistent)
    out["workers-map-n3-w4-l14-b2"] = loader_config(3, 14, 2, dataset_kind="map", num_workers=4)
    # torchdata's StatefulDataLoader (use_stateful_dataloader=True) with workers: it builds its iterator, and starts
    # its workers, when Accelerate reads its state_dict at prepare; plain passes (a stateful resume with workers is
    # not simulated).
    stateful = {"use_stateful_dataloader": True}
    for persistent in (False, True):
        tag = "persist" if persistent else "fresh"
        out[f"workers-stateful-map-n2-w2-{tag}-l13-b2-shuffle"] = accelerator_config(
            2, 13, 2, dict(stateful), dataset_kind="map", shuffle=True, set_seed=11, num_workers=2, epochs=2,
            persistent_workers=persistent)
        # A generator-owning dataset under IterableDatasetShard is refused: its workers' shard copies have no
        # `epoch` and raise AttributeError (recorded once, see trace_json.cpp); the dispatcher's have no shard.
        out[f"workers-stateful-itergen-n2-w2-strided-{tag}-l11-b2"] = accelerator_config(
            2, 11, 2, dict(stateful), num_workers=2, worker_split="strided",
            dataset_generator=True, epochs=3, persistent_workers=persistent)
    for split in ("none", "strided"):
        out[f"workers-stateful-iter-n2-w2-{split}-l13-b2-nodispatch"] = accelerator_config(
            2, 13, 2, dict(stateful, dispatch_batches=False), num_workers=2, worker_split=split, epochs=2)
        out[f"workers-stateful-iter-n2-w3-{split}-l13-b2"] = accelerator_config(
            2, 13, 2, dict(stateful), num_workers=3, worker_split=split, epochs=2)
    # The evaluation loop: gather_for_metrics over every step, with rank 0's workers (dispatch) or each rank's.
    for R in (2, 3):
        for split in ("none", "strided"):
            for accelerator, tag in (({}, "dispatch"), ({"dispatch_batches": False}, "nodispatch")):
                out[f"workers-metrics-n{R}-w2-{split}-l13-b2-{tag}"] = {
                    "api": "accelerator+gather_for_metrics", "dataset_kind": "iterable", "dataset_len": 13,
                    "batch_size": 2, "num_processes": R, "drop_last": False, "accelerator": accelerator,
                    "use_gather_object": False, "break_after": None, "multiprocess": True, "num_workers": 2,
                    "worker_split": split}
    return out


# torch 1.13 runs every one of them but the stateful ones (in_order is never passed); golden/cases keeps a subset.
TORCH1_EVERY = 3


def write(directory, name, c):
    target = os.path.join(GOLDEN, directory, name + ".json")
    if os.path.exists(target):
        return 0
    with open(target, "w") as f:
        json.dump({"case": name, "family": family(c), "config": c}, f, indent=2)
        f.write("\n")
    return 1


def main():
    written = {"cases-torch2": 0, "cases": 0}
    for i, (name, c) in enumerate(sorted(cases().items())):
        written["cases-torch2"] += write("cases-torch2", name, dict(c, torch_version="2.6"))
        # torchdata's StatefulDataLoader needs torch 2: on 1.13 Accelerate raises ImportError at prepare.
        if i % TORCH1_EVERY == 0 and "stateful" not in name:
            written["cases"] += write("cases", name, dict(c, torch_version="1.13"))
    print(f"workers_set: {written['cases-torch2']} inputs in golden/cases-torch2, {written['cases']} in golden/cases")


if __name__ == "__main__":
    main()
