"""from_dataloader: the what-if for a real torch DataLoader and an Accelerator (or `accelerate config`'s defaults).

Reads what the simulation needs from the objects themselves — the dataset's length and kind, batch_size, drop_last,
the sampler's kind, a DataLoader generator's seed when it is still as seeded, the Accelerator's DataLoaderConfiguration
and placement — and refuses (NotModelled) what accel-sim does not model, naming it. torch is imported only here,
and nothing is moved to a device.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from typing import Any, Dict, Optional

from . import ConfigError, ConfigurationRejected, NotModelled, what_if

# Accelerate's distributed types whose data loading accel-sim does not model.
_UNMODELLED_DISTRIBUTED = {"MEGATRON_LM": "Megatron-LM prepares its data loaders its own way",
                           "XLA": "XLA's MpDeviceLoader and its generator handling"}


def installed_accelerate_version() -> Optional[str]:
    """The Accelerate the user's process runs: ``accelerate.__version__`` when it is imported, else the installed
    distribution's version (read from its metadata, without importing it); None when there is none."""
    module = sys.modules.get("accelerate")
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    try:
        from importlib import metadata
        return metadata.version("accelerate")
    except Exception:  # PackageNotFoundError, or metadata unreadable: no Accelerate to follow
        return None


def release_option(opts: Dict[str, Any], overrides: Dict[str, Any]) -> None:
    """Simulates the installed Accelerate (issue 45) unless ``accelerate_version=`` says otherwise; a version that is
    not a plain release (``1.17.0.dev0``) is NotModelled, naming it."""
    if "accelerate_version" in overrides:
        return
    version = installed_accelerate_version()
    if version is None:
        return
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise NotModelled(f"the installed Accelerate {version} is not a release accel-sim models (a release X.Y.Z; "
                          "pass accelerate_version='X.Y.Z' to simulate one)")
    opts["accelerate_version"] = version


def as_not_modelled(opts: Dict[str, Any], overrides: Dict[str, Any], error: ConfigError) -> Exception:
    """A refusal of the installed Accelerate's version is NotModelled (the user chose no option): never a silent
    answer for another release."""
    if "accelerate_version" not in overrides and "accelerate_version" in opts and "accelerate_version" in str(error):
        return NotModelled(f"the installed Accelerate {opts['accelerate_version']} is not modelled: {error}")
    return error


def torch_version_option(version: str) -> str:
    """The simulator's name for a torch's randperm: "2.6" for torch >= 2.6 (the inside-out loop), else "1.13"."""
    try:
        major, minor = (int(p) for p in version.split("+")[0].split(".")[:2])
    except ValueError:
        return "2.6"
    return "2.6" if (major, minor) >= (2, 6) else "1.13"


def default_accelerate_config_file() -> Optional[str]:
    """The file `accelerate config` writes and `accelerate launch` reads by default, when it exists (Accelerate's
    rule: $HF_HOME, else $XDG_CACHE_HOME/huggingface or ~/.cache/huggingface, then accelerate/default_config.yaml,
    or .json when only that exists)."""
    home = os.path.expanduser(os.environ.get(
        "HF_HOME", os.path.join(os.environ.get("XDG_CACHE_HOME", "~/.cache"), "huggingface")))
    for name in ("default_config.yaml", "default_config.json"):
        path = os.path.join(home, "accelerate", name)
        if os.path.isfile(path):
            return path
    return None


def _fresh_generator_state(torch: Any, g: Any) -> bool:
    """Whether a torch.Generator is still as manual_seed(initial_seed()) left it (no draw since)."""
    fresh = torch.Generator(device=g.device)
    fresh.manual_seed(g.initial_seed())
    return bool(torch.equal(fresh.get_state(), g.get_state()))


MODELLED_DATASETS = ("3.6", "4.8", "5.2")


def _is_hf_iterable(dataset: Any) -> bool:
    """A HuggingFace datasets.IterableDataset (told by its class, so that `datasets` is never imported here)."""
    return any(c.__module__.startswith("datasets.") and c.__name__ == "IterableDataset" for c in type(dataset).__mro__)


def _hf_iterable_options(dataset: Any, opts: Dict[str, Any], overrides: Dict[str, Any]) -> None:
    """What a datasets.IterableDataset tells of itself: its shards, its shuffle buffer, its split by node, the release.
    Its shards' sizes and its shuffle seed it does not keep: they come from ``shard_sizes=`` (or ``dataset_len=``
    spread evenly) and ``hf_shuffle=SEED``."""
    import datasets

    version = ".".join(datasets.__version__.split(".")[:2])
    if version not in MODELLED_DATASETS:
        raise NotModelled(f"datasets {datasets.__version__} is not modelled (accel-sim models the recorded releases "
                          f"{', '.join(MODELLED_DATASETS)}); pass datasets_version= with the nearest one to try")
    opts["dataset"] = "hf-iterable"
    opts["datasets_version"] = version
    ex = dataset._ex_iterable
    num_shards = int(ex.num_shards)
    buffer = None
    node = ex
    while node is not None:
        name = type(node).__name__
        if name == "BufferShuffledExamplesIterable":
            buffer = node
        elif name == "InterleavedShardsExamplesIterable":
            opts.setdefault("max_buffer_input_shards", int(node.max_input_shards))
        elif name not in ("ExamplesIterable", "ShuffledDataSourcesExamplesIterable"):
            raise NotModelled(f"a datasets.IterableDataset with {name} in its pipeline (map, filter, skip, take, "
                              "interleave_datasets, arrow formatting, ...) is not modelled: only "
                              "IterableDataset.from_generator over shards, optionally shuffled once")
        node = getattr(node, "ex_iterable", None)
    if buffer is not None:
        if "hf_shuffle" not in overrides:
            raise NotModelled("the datasets.IterableDataset is shuffled, and numpy's generator does not keep its seed: "
                              "pass hf_shuffle=SEED (the seed given to IterableDataset.shuffle)")
        opts["buffer_size"] = int(buffer.buffer_size)
    if version != "5.2":
        opts.pop("max_buffer_input_shards", None)
    dist = getattr(dataset, "_distributed", None)
    if dist is not None:
        # split_dataset_by_node(ds, rank, world_size) on every rank: the world is the job's.
        opts["split_by_node"] = True
        opts["_split_world"] = int(dist.world_size)
    if "shard_sizes" not in overrides:
        if overrides.get("dataset_len") is None:
            raise NotModelled(f"a streamed datasets.IterableDataset does not know its {num_shards} shards' sizes: pass "
                              "shard_sizes=[...] (examples per shard, in order) or dataset_len=N (spread evenly)")
        opts["num_shards"] = num_shards
    elif len(overrides["shard_sizes"]) != num_shards:
        raise ConfigError(f"shard_sizes: has {len(overrides['shard_sizes'])} entries, the dataset {num_shards} shards")
    else:
        opts["dataset_len"] = sum(overrides["shard_sizes"])


def _loader_options(torch: Any, dl: Any, opts: Dict[str, Any], overrides: Dict[str, Any]) -> None:
    from torch.utils.data import BatchSampler, IterableDataset, RandomSampler, SequentialSampler

    dataset = dl.dataset
    iterable = isinstance(dataset, IterableDataset)
    opts["dataset"] = "iterable" if iterable else "map"
    try:
        opts["dataset_len"] = len(dataset)
    except TypeError:
        opts["dataset_len"] = None  # the caller's dataset_len override is then required
    if _is_hf_iterable(dataset):
        _hf_iterable_options(dataset, opts, overrides)
    if dl.num_workers > 0:
        if getattr(dl, "in_order", True) is False:
            raise NotModelled("DataLoader(in_order=False) yields each batch as its worker delivers it: the order "
                              "depends on the workers' timing, which accel-sim does not guess (use in_order=True)")
        opts["num_workers"] = int(dl.num_workers)
        if dl.persistent_workers:
            opts["persistent_workers"] = True
    if dl.batch_size is None:
        if dl.batch_sampler is None:
            raise NotModelled("a DataLoader with batch_size=None (no automatic batching) is not modelled")
        batch_sampler = dl.batch_sampler
    else:
        batch_sampler = dl.batch_sampler
    if type(batch_sampler) is not BatchSampler:
        raise NotModelled(
            f"batch_sampler {type(batch_sampler).__module__}.{type(batch_sampler).__qualname__} is not modelled "
            "(accel-sim models torch.utils.data.BatchSampler, i.e. DataLoader(batch_size=..., drop_last=...))")
    opts["batch_size"] = batch_sampler.batch_size
    opts["drop_last"] = bool(batch_sampler.drop_last)
    sampler = batch_sampler.sampler
    if iterable:
        opts["shuffle"] = False
        return
    if type(sampler) is SequentialSampler:
        opts["shuffle"] = False
        return
    if type(sampler) is not RandomSampler:
        name = f"{type(sampler).__module__}.{type(sampler).__qualname__}"
        hint = (": remove it, Accelerate shards the loader itself" if type(sampler).__name__ == "DistributedSampler"
                else "")
        raise NotModelled(f"sampler {name} is not modelled (accel-sim models SequentialSampler, i.e. shuffle=False, "
                          f"and RandomSampler, i.e. shuffle=True){hint}")
    opts["shuffle"] = True
    if sampler.replacement:
        opts["replacement"] = True
    if getattr(sampler, "_num_samples", None) is not None:
        opts["num_samples"] = sampler._num_samples
    g = sampler.generator
    if g is None:
        return
    if g is not dl.generator:
        raise NotModelled("a RandomSampler with a generator of its own (not the DataLoader's generator) is not "
                          "modelled; write DataLoader(dataset, shuffle=True, generator=g) instead")
    if _fresh_generator_state(torch, g):
        opts["generator_seed"] = g.initial_seed()
    else:
        warnings.warn("accelerate_sim.from_dataloader: the DataLoader's generator has drawn since it was seeded, so its "
                      "seed is not readable; the sample ids in the report are one possible order (the counts hold)",
                      stacklevel=3)


def _accelerator_options(acc: Any, opts: Dict[str, Any]) -> None:
    dtype = getattr(getattr(acc, "distributed_type", None), "value", str(getattr(acc, "distributed_type", "")))
    if dtype in _UNMODELLED_DISTRIBUTED:
        raise NotModelled(f"distributed_type {dtype} is not modelled ({_UNMODELLED_DISTRIBUTED[dtype]})")
    opts["api"] = "accelerator"
    opts["num_processes"] = int(acc.num_processes)
    cfg = getattr(acc, "dataloader_config", None)

    def read(name: str) -> Any:
        return getattr(cfg, name) if cfg is not None and hasattr(cfg, name) else getattr(acc, name)

    opts["split_batches"] = bool(read("split_batches"))
    opts["even_batches"] = bool(read("even_batches"))
    opts["dispatch_batches"] = read("dispatch_batches")
    opts["use_seedable_sampler"] = bool(read("use_seedable_sampler"))
    if cfg is not None and getattr(cfg, "data_seed", None) is not None:
        opts["data_seed"] = int(cfg.data_seed)
    for name in ("non_blocking", "use_stateful_dataloader"):
        if cfg is not None and getattr(cfg, name, False):
            opts[name] = True
    opts["device_placement"] = bool(acc.device_placement)
    opts["rng_types"] = list(acc.rng_types) if acc.rng_types is not None else None
    mp = getattr(acc, "mixed_precision", "no")
    opts["mixed_precision"] = str(getattr(mp, "value", mp))


def _draws_before_prepare(torch: Any, opts: Dict[str, Any], overrides: Dict[str, Any]) -> None:
    """The words the script has drawn from torch's global generator since set_seed (a model built before prepare),
    read from the generator itself: Accelerate seeds a shuffled RandomSampler's generator from what is left, so the
    ids depend on it. Only a seed the caller states (set_seed=N) is trusted: an unseeded process's
    torch.initial_seed() is drawn from the OS and differs on every rank."""
    if "rng_draws" in overrides or "rng_state" in overrides or not opts.get("shuffle"):
        return
    if opts.get("set_seed") is None or opts.get("generator_seed") is not None or opts.get("dataset") == "iterable":
        return
    from . import _core
    try:
        seed, draws = _core.rng_state_draws(torch.get_rng_state().numpy().tobytes())
    except ValueError as exc:
        warnings.warn(f"accelerate_sim.from_dataloader: torch's global generator state is not readable ({exc}); the ids "
                      "assume nothing was drawn between set_seed and prepare (the counts hold)", stacklevel=4)
        return
    if seed != opts["set_seed"] % 2 ** 64:
        warnings.warn(f"accelerate_sim.from_dataloader: torch's global generator was seeded with {seed}, not "
                      f"set_seed={opts['set_seed']}; the ids assume set_seed({opts['set_seed']}) and nothing drawn "
                      "since (the counts hold)", stacklevel=4)
        return
    if draws:
        opts["rng_draws"] = draws


def dataloader_options(dataloader: Any, accelerator: Any = None, *, num_processes: Optional[int] = None,
                       **overrides: Any) -> Dict[str, Any]:
    """The what-if options read from a DataLoader (and an Accelerator): what from_dataloader simulates. Overrides
    (any what_if option) win; ``num_processes`` defaults to the Accelerator's, else $WORLD_SIZE under a launcher,
    else the `accelerate config` file's, else 1."""
    import torch
    from torch.utils.data import DataLoader

    cls = type(dataloader)
    if cls.__module__.startswith("accelerate") or cls.__name__ in ("DataLoaderShard", "DataLoaderDispatcher"):
        raise NotModelled(f"{cls.__name__} is a loader Accelerate already prepared: pass the DataLoader you give "
                          "to accelerator.prepare (or check a prepared one with accelerate_sim.testing.assert_loader_matches)")
    if not isinstance(dataloader, DataLoader):
        raise NotModelled(f"{cls.__module__}.{cls.__qualname__} is not a torch.utils.data.DataLoader")
    opts: Dict[str, Any] = {}
    _loader_options(torch, dataloader, opts, overrides)
    if accelerator is not None:
        _accelerator_options(accelerator, opts)
    else:
        config_file = default_accelerate_config_file()
        if config_file is not None:
            opts["config_file"] = config_file
        if num_processes is None and os.environ.get("WORLD_SIZE", "").isdigit():
            num_processes = int(os.environ["WORLD_SIZE"])
    if num_processes is not None:
        opts["num_processes"] = num_processes
    opts["torch_version"] = torch_version_option(torch.__version__)
    release_option(opts, overrides)
    split_world = opts.pop("_split_world", None)
    if split_world is not None:
        if opts.get("num_processes", split_world) != split_world:
            raise NotModelled(f"the dataset was split by node for {split_world} processes, the job has "
                              f"{opts['num_processes']}: accel-sim models split_dataset_by_node(ds, rank, num_processes)")
        opts["num_processes"] = split_world
    if opts.get("dataset") == "iterable" and opts.get("num_workers") and "worker_split" not in overrides:
        # Whether the dataset's __iter__ uses get_worker_info() is in its code, which accel-sim does not read.
        warnings.warn(f"accelerate_sim.from_dataloader: num_workers={opts['num_workers']} over an IterableDataset: "
                      "assuming it does not split its stream by worker (worker_split='none': every worker yields "
                      "all of it); pass worker_split='strided' or 'contiguous' if its __iter__ uses "
                      "torch.utils.data.get_worker_info()", stacklevel=3)
    opts.update(overrides)
    if opts.get("dataset") == "iterable" and opts.get("num_workers") and "worker_split" not in opts:
        opts["worker_split"] = "none"
    _draws_before_prepare(torch, opts, overrides)
    if opts.get("dataset_len") is None:
        raise NotModelled(f"the dataset ({type(dataloader.dataset).__qualname__}) has no __len__: pass "
                          "dataset_len=N (the number of samples it yields)")
    # Drop what the options leave at the CLI's defaults, so that the flags stay short and readable.
    for name, default in (("dispatch_batches", None), ("rng_types", ["generator"])):
        if name in opts and opts[name] == default and name not in overrides:
            del opts[name]
    return opts


def from_dataloader(dataloader: Any, accelerator: Any = None, *, num_processes: Optional[int] = None,
                    **overrides: Any) -> Dict[str, Any]:
    """The what-if report (dict, docs/report-json.md) for ``accelerator.prepare(dataloader)`` on num_processes ranks.

    Call it on one CPU before the training starts. It reads the DataLoader (dataset length or IterableDataset,
    batch_size, drop_last, SequentialSampler / RandomSampler with replacement / num_samples, a DataLoader
    generator's seed, num_workers, persistent_workers, in_order) and the Accelerator's settings, or `accelerate config`'s file when no Accelerator is given.
    The installed Accelerate (``accelerate.__version__``, or its distribution's metadata) is the release simulated,
    and the report's ``accelerate_version`` names it; one accel-sim does not model raises NotModelled.
    Raises NotModelled for a sampler, batch sampler, dataset or setup accel-sim does not model; ``overrides`` take
    any what_if option (e.g. ``set_seed=42`` when the script calls accelerate.utils.set_seed(42)). An
    IterableDataset with workers is assumed not to split its stream by worker (a warning says so): pass
    ``worker_split="strided"`` (itertools.islice(stream, worker_id, None, num_workers)) or ``"contiguous"`` when its
    __iter__ uses torch.utils.data.get_worker_info(). With set_seed
    given, call it just before ``accelerator.prepare``: it reads how far torch's global generator has moved since
    (a model built in between), which decides the ids of a shuffled RandomSampler.
    """
    opts = dataloader_options(dataloader, accelerator, num_processes=num_processes, **overrides)
    try:
        return what_if(**opts)
    except ConfigurationRejected:
        raise
    except ConfigError as e:
        raise as_not_modelled(opts, overrides, e) from e


__all__ = ["from_dataloader", "dataloader_options", "ConfigError"]
