"""accelerate_sim.from_dataloader on real HuggingFace datasets.IterableDataset loaders (issue 27), in the torch-2 reference
environment (datasets 5.2, torch 2.15): what it reads of the dataset, what it asks for, what it refuses, and that
the report it returns is the one the recorded real job (golden/cases-torch2/hf-shard-n4-s10x41-b2-e1.json) shows.
Run by hf_from_dataloader_test.sh with accelerate_sim on sys.path; prints "N passed, M failed"."""
import json
import os
import sys
import warnings

import datasets
import torch
from datasets.distributed import split_dataset_by_node

import accelerate_sim

SIZES = [5, 3, 7, 2, 4, 6, 1, 3, 8, 2]
GOLDEN = os.path.join(os.environ["ACCEL_SIM_SOURCE_DIR"], "golden", "cases-torch2")


def stream(sizes=SIZES):
    offsets = [sum(sizes[:s]) for s in range(len(sizes))]

    def gen(shards):
        for s in shards:
            for k in range(sizes[s]):
                yield {"id": offsets[s] + k}

    datasets.disable_progress_bars()
    return datasets.IterableDataset.from_generator(gen, gen_kwargs={"shards": list(range(len(sizes)))})


def loader(ds, **kw):
    return torch.utils.data.DataLoader(ds, batch_size=2, **kw)


def test_unequal_shards_take_the_shard_path_as_recorded():
    report = accelerate_sim.from_dataloader(loader(stream()), num_processes=4, dispatch_batches=False, shard_sizes=SIZES)
    hf = report["hf_dataset"]
    assert hf["path"] == "shard", hf
    assert hf["examples_per_rank"] == [15, 12, 4, 10], hf
    assert hf["datasets_version"] == "5.2"
    with open(os.path.join(GOLDEN, "hf-shard-n4-s10x41-b2-e1.json")) as f:
        recorded = json.load(f)
    steps = [len(r["epochs"][0]["batches"]) for r in recorded["ranks"]]
    assert report["scenarios"][0]["steps_per_rank"] == steps, (report["scenarios"][0]["steps_per_rank"], steps)
    assert "hf-uneven-shards" in [w["code"] for w in report["findings"]]


def test_shard_sizes_or_a_length_are_required():
    try:
        accelerate_sim.from_dataloader(loader(stream()), num_processes=4)
    except accelerate_sim.NotModelled as e:
        assert "shard_sizes=[...]" in str(e), e
    else:
        raise AssertionError("no NotModelled")
    report = accelerate_sim.from_dataloader(loader(stream()), num_processes=4, dataset_len=40, dispatch_batches=False)
    assert report["hf_dataset"]["num_shards"] == 10


def test_a_shuffle_needs_its_seed_and_reads_the_buffer():
    ds = stream().shuffle(seed=7, buffer_size=4)
    try:
        accelerate_sim.from_dataloader(loader(ds), num_processes=2, shard_sizes=SIZES)
    except accelerate_sim.NotModelled as e:
        assert "hf_shuffle=SEED" in str(e), e
    else:
        raise AssertionError("no NotModelled")
    report = accelerate_sim.from_dataloader(loader(ds), num_processes=2, shard_sizes=SIZES, hf_shuffle=7,
                                       dispatch_batches=False)
    assert report["hf_dataset"]["shuffled"] is True
    assert "buffer_size=4" in report["order"], report["order"]


def test_a_split_by_node_is_read():
    ds = split_dataset_by_node(stream([4, 4, 4, 4]), rank=0, world_size=2)
    report = accelerate_sim.from_dataloader(loader(ds), shard_sizes=[4, 4, 4, 4], dispatch_batches=False)
    assert report["hf_dataset"]["split_by_node"] is True and report["num_processes"] == 2, report["hf_dataset"]
    try:
        accelerate_sim.from_dataloader(loader(ds), num_processes=4, shard_sizes=[4, 4, 4, 4])
    except accelerate_sim.NotModelled as e:
        assert "split by node for 2 processes" in str(e), e
    else:
        raise AssertionError("no NotModelled")


def test_an_unmodelled_pipeline_is_named():
    try:
        accelerate_sim.from_dataloader(loader(stream().map(lambda ex: ex)), num_processes=2, shard_sizes=SIZES)
    except accelerate_sim.NotModelled as e:
        assert "MappedExamplesIterable" in str(e), e
    else:
        raise AssertionError("no NotModelled")


def test_workers_are_read():
    report = accelerate_sim.from_dataloader(loader(stream(), num_workers=2), num_processes=2, shard_sizes=SIZES,
                                       dispatch_batches=False)
    assert report["input"]["num_workers"] == 2, report["input"]


if __name__ == "__main__":
    passed = failed = 0
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and callable(fn):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn()
                passed += 1
            except Exception as e:  # noqa: BLE001  (reported, then counted)
                failed += 1
                print(f"FAIL {name}: {type(e).__name__}: {e}")
    print(f"hf_from_dataloader: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
