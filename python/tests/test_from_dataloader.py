"""from_dataloader on real torch DataLoaders (Debian's python3-torch)."""

import os
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import (DataLoader, Dataset, IterableDataset, RandomSampler, SequentialSampler,  # noqa: E402
                              TensorDataset, WeightedRandomSampler)
from torch.utils.data.distributed import DistributedSampler  # noqa: E402

import accelerate_sim  # noqa: E402


class Stream(IterableDataset):
    def __init__(self, n, with_len=True):
        self.n, self.with_len = n, with_len

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        if not self.with_len:
            raise TypeError("no len")
        return self.n


class WorkerStrided(IterableDataset):
    """Splits its stream by worker, as torch's docs show: islice(stream, worker_id, None, num_workers)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


def yielded_by(dl):
    ids = []
    for batch in dl:
        ids.extend(int(x) for x in batch)
    return ids


class NoLen(Dataset):
    def __getitem__(self, i):
        return i


def test_a_training_scripts_loader():
    # The shape of a real script's loader: a TensorDataset of features/labels, shuffled, a seeded generator.
    features = torch.randn(1001, 8)
    labels = torch.randint(0, 2, (1001,))
    g = torch.Generator().manual_seed(1234)
    dl = DataLoader(TensorDataset(features, labels), batch_size=4, shuffle=True, generator=g, num_workers=0)
    options = accelerate_sim.dataloader_options(dl, num_processes=64)
    assert options["dataset_len"] == 1001 and options["batch_size"] == 4 and options["shuffle"] is True
    assert options["generator_seed"] == 1234 and options["drop_last"] is False
    report = accelerate_sim.from_dataloader(dl, num_processes=64)
    # 1001 samples over 64 ranks x 4 per step: 4 steps per rank, 1024 yielded, 23 padded.
    assert report["scenarios"][0]["steps_per_rank"] == [4] * 64
    assert report["scenarios"][0]["duplicated"] == 1024 - 1001
    assert report["order_differs_every_run"] is False


def test_the_simulated_order_is_torchs_order_for_one_process():
    # One process: Accelerator().prepare yields the DataLoader's own batches. The simulated order (torch's randperm
    # reproduced in C++, the generator's _base_seed draw included) must equal what torch itself yields here.
    n = 57
    dl = DataLoader(list(range(n)), batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(99))
    options = accelerate_sim.dataloader_options(dl, num_processes=1)
    simulated = accelerate_sim.trace(**options)["ranks"][0]["epochs"][0]["batches"]
    actual = [batch.tolist() for batch in DataLoader(list(range(n)), batch_size=5, shuffle=True,
                                                     generator=torch.Generator().manual_seed(99))]
    assert simulated == actual


def test_a_model_built_between_set_seed_and_prepare_is_read_from_the_generator():
    # Issue 25: the model's initialisation draws from the global generator, which a generator-less RandomSampler
    # then draws its seed from. from_dataloader reads the generator's state, so the simulated ids are torch's own.
    n = 57
    torch.manual_seed(42)
    torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    dl = DataLoader(list(range(n)), batch_size=5, shuffle=True)
    options = accelerate_sim.dataloader_options(dl, num_processes=1, set_seed=42)
    assert options["rng_draws"] > 32 * 64  # at least one word per weight
    simulated = accelerate_sim.trace(**options)["ranks"][0]["epochs"][0]["batches"]
    actual = [batch.tolist() for batch in dl]  # what torch yields from here, on this generator
    assert simulated == actual
    del options["rng_draws"]
    assert accelerate_sim.trace(**options)["ranks"][0]["epochs"][0]["batches"] != actual
    # A seed the caller states that the generator was not seeded with is not trusted.
    with pytest.warns(UserWarning, match="seeded with 42, not set_seed=7"):
        assert "rng_draws" not in accelerate_sim.dataloader_options(dl, num_processes=1, set_seed=7)


def test_sequential_drop_last_and_iterable():
    dl = DataLoader(list(range(10)), batch_size=3, drop_last=True)
    assert accelerate_sim.dataloader_options(dl)["drop_last"] is True
    report = accelerate_sim.from_dataloader(dl, num_processes=2)
    assert report["scenarios"][0]["dropped"] == 4  # 3 full batches: 2 ranks x 1 step; ids 6..9 never seen
    it = accelerate_sim.from_dataloader(DataLoader(Stream(1002), batch_size=8), num_processes=4)
    assert it["dataset_kind"] == "iterable"
    assert it["scenarios"][0]["loader_class"] == "DataLoaderDispatcher"  # the Accelerator's default on an iterable
    assert accelerate_sim.from_dataloader(DataLoader(Stream(10, with_len=False), batch_size=2), num_processes=2,
                                     dataset_len=10)["dataset_len"] == 10


def test_sampler_options_are_read():
    ds = list(range(100))
    dl = DataLoader(ds, batch_size=4, sampler=RandomSampler(ds, replacement=True, num_samples=40))
    options = accelerate_sim.dataloader_options(dl, num_processes=2)
    assert options["replacement"] is True and options["num_samples"] == 40
    assert accelerate_sim.from_dataloader(dl, num_processes=2)["scenarios"][0]["samples_yielded"] == 40
    dl = DataLoader(ds, batch_size=4, sampler=SequentialSampler(ds))
    assert accelerate_sim.dataloader_options(dl)["shuffle"] is False


def test_advanced_generator_warns_and_is_not_taken_as_seeded():
    g = torch.Generator().manual_seed(5)
    torch.randint(0, 10, (3,), generator=g)
    dl = DataLoader(list(range(20)), batch_size=2, shuffle=True, generator=g)
    with pytest.warns(UserWarning, match="drawn since it was seeded"):
        options = accelerate_sim.dataloader_options(dl, num_processes=2)
    assert "generator_seed" not in options


@pytest.mark.parametrize("make,what", [
    (lambda: DataLoader(list(range(10)), sampler=DistributedSampler(list(range(10)), num_replicas=2, rank=0)),
     "DistributedSampler"),
    (lambda: DataLoader(list(range(10)), sampler=WeightedRandomSampler([1.0] * 10, 10)), "WeightedRandomSampler"),
    (lambda: DataLoader(list(range(10)), batch_sampler=[[0, 1], [2, 3]]), "batch_sampler"),
    (lambda: DataLoader(list(range(10)), batch_size=None), "batch_size=None"),
    (lambda: DataLoader(NoLen(), batch_size=2), "has no __len__"),
    (lambda: DataLoader(Stream(10, with_len=False), batch_size=2), "has no __len__"),
    (lambda: DataLoader(list(range(10)), batch_size=2, sampler=RandomSampler(list(range(10)),
                                                                              generator=torch.Generator())),
     "generator of its own"),
])
def test_not_modelled_is_refused_by_name(make, what):
    with pytest.raises(accelerate_sim.NotModelled, match=what.replace("(", r"\(").replace(")", r"\)")):
        accelerate_sim.from_dataloader(make(), num_processes=2)


@pytest.mark.parametrize("dataset,split", [(Stream(13), None), (WorkerStrided(13), "strided")])
def test_iterable_with_workers_matches_the_real_loader(dataset, split):
    # num_workers=2 on one process: the what-if's samples and steps are those the real worker processes yield.
    dl = DataLoader(dataset, batch_size=2, num_workers=2)
    real = yielded_by(dl)
    extra = {} if split is None else {"worker_split": split}
    if split is None:
        with pytest.warns(UserWarning, match="assuming it does not split its stream by worker"):
            report = accelerate_sim.from_dataloader(dl, num_processes=1, dispatch_batches=False, **extra)
    else:
        report = accelerate_sim.from_dataloader(dl, num_processes=1, dispatch_batches=False, **extra)
    first = report["scenarios"][0]
    assert report["input"]["num_workers"] == 2
    assert first["samples_yielded"] == len(real)
    assert first["max_times_seen"] == max(real.count(i) for i in set(real))
    codes = [w["code"] for w in report["warnings"]]
    assert ("worker-duplicates" in codes) == (split is None)


def test_in_order_false_is_refused():
    dl = DataLoader(Stream(10), batch_size=2, num_workers=2)
    dl.in_order = False  # torch >= 2.6's keyword, set as that DataLoader keeps it
    with pytest.raises(accelerate_sim.NotModelled, match="in_order=False"):
        accelerate_sim.from_dataloader(dl, num_processes=2)


def test_not_a_dataloader():
    with pytest.raises(accelerate_sim.NotModelled, match="not a torch.utils.data.DataLoader"):
        accelerate_sim.from_dataloader([1, 2, 3])


def test_accelerate_config_file_and_world_size(tmp_path, monkeypatch):
    # Without an Accelerator: `accelerate config`'s default file supplies num_processes, as under accelerate launch.
    home = tmp_path / "hf"
    (home / "accelerate").mkdir(parents=True)
    (home / "accelerate" / "default_config.yaml").write_text(
        "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_machines: 1\nnum_processes: 16\n"
        "mixed_precision: 'no'\n")
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    dl = DataLoader(list(range(1001)), batch_size=4)
    report = accelerate_sim.from_dataloader(dl)
    assert report["num_processes"] == 16
    assert report["launch"]["config_file"].endswith("default_config.yaml")
    assert accelerate_sim.from_dataloader(dl, num_processes=3)["num_processes"] == 3  # the argument wins
    monkeypatch.setenv("WORLD_SIZE", "5")
    assert accelerate_sim.from_dataloader(dl)["num_processes"] == 5  # under a launcher
    monkeypatch.setenv("HF_HOME", str(tmp_path / "none"))
    monkeypatch.delenv("WORLD_SIZE")
    assert accelerate_sim.from_dataloader(dl)["num_processes"] == 1


def test_with_a_real_accelerator(accelerate):
    from accelerate import Accelerator
    from accelerate.utils import DataLoaderConfiguration

    acc = Accelerator(cpu=True, dataloader_config=DataLoaderConfiguration(even_batches=False,
                                                                          use_seedable_sampler=True, data_seed=3))
    dl = DataLoader(list(range(1001)), batch_size=4, shuffle=True)
    options = accelerate_sim.dataloader_options(dl, acc, num_processes=8)
    assert options["even_batches"] is False and options["use_seedable_sampler"] is True and options["data_seed"] == 3
    assert options["api"] == "accelerator" and options["num_processes"] == 8
    report = accelerate_sim.from_dataloader(dl, acc, num_processes=8)
    assert report["order"] == "SeedableRandomSampler(seed=3)"
    assert report["scenarios"][0]["duplicated"] == 0
    assert accelerate_sim.from_dataloader(dl, acc)["num_processes"] == acc.num_processes == 1


# Issue 45: the installed Accelerate is the release simulated (its module's __version__ when imported), never a silent
# 1.15.0; one accel-sim does not model is NotModelled, naming it. A stand-in module carries the version here.
class _Accelerate:
    def __init__(self, version):
        self.__version__ = version


@pytest.mark.parametrize("version", ["0.28.0", "1.15.0", "1.16.0"])
def test_from_dataloader_simulates_the_installed_accelerate(monkeypatch, version):
    monkeypatch.setitem(__import__("sys").modules, "accelerate", _Accelerate(version))
    dl = DataLoader(range(1001), batch_size=1)
    # 1.16.0 requires torch >= 2.6: on an older torch the installed pair is refused, naming the release.
    from accelerate_sim._dataloader import torch_version_option
    if version == "1.16.0" and torch_version_option(torch.__version__) == "1.13":
        with pytest.raises(accelerate_sim.NotModelled, match="installed Accelerate 1.16.0"):
            accelerate_sim.from_dataloader(dl, num_processes=2)
        return
    report = accelerate_sim.from_dataloader(dl, num_processes=2)
    assert report["accelerate_version"] == version


def test_an_unmodelled_installed_accelerate_is_not_modelled(monkeypatch):
    dl = DataLoader(range(10), batch_size=1)
    for version, words in [("1.17.0", "installed Accelerate 1.17.0 is not modelled"),
                           ("1.17.0.dev0", "installed Accelerate 1.17.0.dev0 is not a release")]:
        monkeypatch.setitem(__import__("sys").modules, "accelerate", _Accelerate(version))
        with pytest.raises(accelerate_sim.NotModelled, match=words):
            accelerate_sim.from_dataloader(dl, num_processes=2)
    # An explicit accelerate_version= is the user's choice: simulated, whatever is installed.
    assert accelerate_sim.from_dataloader(dl, num_processes=2, accelerate_version="0.28.0")["accelerate_version"] == "0.28.0"
