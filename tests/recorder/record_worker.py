"""One rank of a recorder test job (started by tests/recorder/launch.py with torchrun's environment, in a real gloo
group when WORLD_SIZE > 1): runs SCENARIO's training-loop shape with accelerate_sim.record (or without it, --plain),
and writes what the loop itself received to OUT/received-<rank>.json, independently of the recorder: every sample
of these datasets carries its own id, so the ids are read from the batch contents, and end_of_dataloader /
remainder / len are read by the loop. The torch generator's state after the loop is written too (the recorder
must draw nothing).

    record_worker.py SCENARIO OUT [--plain] [--phase first|resume]
"""
import argparse
import json
import os
import sys

import shims  # noqa: F401  (before accelerate: Accelerate 1.15 on Debian's torch 1.13)
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, Sampler

from accelerate import Accelerator, DataLoaderConfiguration
from accelerate.utils import set_seed

import accelerate_sim


class Ids(Dataset):
    """Sample i is 1000 + 10 * i (so that the ids, the sampler's indices, are not the contents)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return 1000 + 10 * i


def content_ids(batch):
    return [(v - 1000) // 10 for v in batch.tolist()]


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        return iter(range(self.n))


class Buckets(Sampler):
    """A custom batch sampler: indices in an order of its own, batches of 3 (the last one short)."""

    def __init__(self, n):
        self.order = sorted(range(n), key=lambda i: ((i * 37) % 11, i))

    def __iter__(self):
        for s in range(0, len(self.order), 3):
            yield self.order[s:s + 3]

    def __len__(self):
        return (len(self.order) + 2) // 3


def barrier():
    if torch.distributed.is_initialized():
        torch.distributed.barrier()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario")
    p.add_argument("out")
    p.add_argument("--plain", action="store_true")
    p.add_argument("--phase", default="first")
    a = p.parse_args()
    rank = int(os.environ.get("RANK", "0"))
    rec_dir = os.path.join(a.out, "recording")
    received = {"epochs": [], "rank": rank}
    record_kwargs = {}
    epochs = 2
    stop_after = {}  # epoch -> break after this many batches
    crash_after = {}  # epoch -> raise after this many batches
    key = None
    s = a.scenario

    if s == "map2":  # shuffled, synchronised generator, 2 epochs: the acceptance shape
        acc = Accelerator()
        set_seed(42)
        dl = DataLoader(Ids(23), batch_size=3, shuffle=True)
    elif s == "map4_workers":  # 4 ranks, even_batches=False, worker processes prefetching, drop_last
        acc = Accelerator(dataloader_config=DataLoaderConfiguration(even_batches=False))
        set_seed(7)
        dl = DataLoader(Ids(29), batch_size=2, shuffle=True, num_workers=2, drop_last=False)
    elif s == "iterable_dispatch":  # an IterableDataset: dispatched by default; ids by key
        acc = Accelerator()
        dl = DataLoader(Stream(17), batch_size=2)
        key = lambda b: b.tolist()  # noqa: E731
    elif s == "iterable_shard":  # an IterableDataset sharded per rank (dispatch_batches=False); ids by key
        acc = Accelerator(dataloader_config=DataLoaderConfiguration(dispatch_batches=False))
        dl = DataLoader(Stream(17), batch_size=2)
        key = lambda b: b.tolist()  # noqa: E731
    elif s == "custom_sampler":  # a custom batch sampler, recorded from its indices (not modelled by the simulator)
        acc = Accelerator()
        dl = DataLoader(Ids(20), batch_sampler=Buckets(20))
        epochs = 1
    elif s == "resume":  # seedable sampler; the first job breaks off in epoch 1 after 2 batches
        acc = Accelerator(dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True, data_seed=5))
        dl = DataLoader(Ids(22), batch_size=2, shuffle=True)
        epochs = 3
        if a.phase == "first":
            crash_after = {1: 2}
    elif s == "seeded_differently":  # planted mistake: each rank seeds its own shuffle, nothing synchronised
        acc = Accelerator(rng_types=[])
        set_seed(100 + acc.process_index)
        dl = DataLoader(Ids(20), batch_size=2, shuffle=True)
        epochs = 1
    elif s == "uneven":  # planted mistake: even_batches=False over 21 samples on 2 ranks: one rank has a batch more
        acc = Accelerator(dataloader_config=DataLoaderConfiguration(even_batches=False))
        dl = DataLoader(Ids(21), batch_size=2)
        epochs = 1
    else:
        sys.exit(f"unknown scenario {s}")

    if s.startswith("iterable") and not a.plain:
        try:
            accelerate_sim.record(acc.prepare(DataLoader(Stream(4), batch_size=2)), os.path.join(a.out, "nokey"))
        except accelerate_sim.NotModelled as exc:
            received["no_key_error"] = str(exc)
        else:
            received["no_key_error"] = None

    prepared = acc.prepare(dl)
    received["len"] = len(prepared)
    received["loader_class"] = type(prepared).__name__
    if isinstance(dl.dataset, Ids):
        ids_of = content_ids
    else:
        ids_of = lambda b: b.tolist()  # noqa: E731

    def run_pass(loader, epoch, start_step=0):
        seen = {"epoch": epoch, "start_step": start_step, "batches": [], "end_of_dataloader": [], "remainder": [],
                "complete": False}
        received["epochs"].append(seen)
        it = loader if a.plain else accelerate_sim.record(loader, rec_dir, key=key, accelerator=acc, **record_kwargs)
        for step, batch in enumerate(it):
            seen["batches"].append(ids_of(batch))
            seen["end_of_dataloader"].append(bool(loader.end_of_dataloader))
            seen["remainder"].append(loader.remainder)
            if crash_after.get(epoch) == step + 1:
                write()
                raise RuntimeError(f"planted crash in epoch {epoch} after {step + 1} batches")
            if stop_after.get(epoch) == step + 1:
                break
        else:
            seen["complete"] = True

    def write():
        received["rng_after"] = torch.get_rng_state().sum().item()
        with open(os.path.join(a.out, f"received-{a.phase}-{rank}.json"), "w") as f:
            json.dump(received, f)

    if s == "resume" and a.phase == "resume":
        # The resumed job: epoch 1 from step 2 (skip_first_batches), then epoch 2, each loop setting the epoch.
        prepared.set_epoch(1)
        run_pass(acc.skip_first_batches(prepared, 2), 1, 2)
        prepared.set_epoch(2)
        run_pass(prepared, 2)
    else:
        for e in range(epochs):
            if s == "resume":
                prepared.set_epoch(e)
            run_pass(prepared, e)
    write()
    barrier()


if __name__ == "__main__":
    main()
