"""accel_sim.testing: a guard for a test suite — the live prepared loader against the simulation.

    from accel_sim.testing import assert_loader_matches
    dl = accelerator.prepare(DataLoader(dataset, batch_size=16, shuffle=True))
    assert_loader_matches(dl, steps=50)

assert_loader_matches iterates a copy of the prepared loader whose dataset yields each sample's index (the
original loader, its samplers and generators, Accelerate's GradientState and torch's global RNG are left as they
were), reads how it was prepared (ranks, process index, split_batches, even_batches, drop_last, sampler, data_seed,
dispatching), simulates the same with accel-sim and compares batch by batch. It raises LoaderMismatch at the first
divergence (rank, epoch, step, expected, actual).
"""

from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

from . import ConfigError, NotModelled, trace
from ._dataloader import as_not_modelled, release_option, torch_version_option

__all__ = ["assert_loader_matches", "prepared_loader_options", "LoaderMismatch"]


class LoaderMismatch(AssertionError):
    """The live loader yielded something else than the simulation: at ``rank``, ``epoch``, ``step``, the simulation
    expected ``expected`` (a list of sample ids, or None for the end of the pass) and the loader gave ``actual``."""

    def __init__(self, rank: int, epoch: int, step: int, expected: Any, actual: Any, options: Dict[str, Any]):
        self.rank, self.epoch, self.step = rank, epoch, step
        self.expected, self.actual, self.options = expected, actual, options

        def show(v: Any) -> str:
            return "end of the pass" if v is None else repr(v)

        super().__init__(f"rank {rank}, epoch {epoch}, step {step}: expected {show(expected)}, actual {show(actual)} "
                         f"(simulated with {options})")


def _index_dataset_classes():
    import torch.utils.data as tud

    class IndexDataset(tud.Dataset):
        """Sample i is i."""

        def __init__(self, n: int):
            self.n = n

        def __len__(self) -> int:
            return self.n

        def __getitem__(self, i: int) -> int:
            return i

    class IndexIterable(tud.IterableDataset):
        """Yields 0, 1, ..., n - 1."""

        def __init__(self, n: int):
            self.n = n

        def __len__(self) -> int:
            return self.n

        def __iter__(self):
            return iter(range(self.n))

    return IndexDataset, IndexIterable


def _name(obj: Any) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def prepared_loader_options(dl: Any, **overrides: Any) -> Dict[str, Any]:
    """How a loader returned by Accelerate (DataLoaderShard / DataLoaderDispatcher) was prepared, as accel-sim
    options for a direct prepare_data_loader call on its rank. Also returns the private keys ``_rank``,
    ``_user_dataset`` and ``_history`` (passes the loader already made)."""
    import torch
    from accelerate.data_loader import (BatchSamplerShard, DataLoaderDispatcher, DataLoaderShard,
                                        IterableDatasetShard, SeedableRandomSampler)
    from torch.utils.data import BatchSampler, IterableDataset, RandomSampler, SequentialSampler

    kind = type(dl)  # the real class (DataLoaderAdapter reports the wrapped DataLoader's as __class__)
    if not issubclass(kind, (DataLoaderShard, DataLoaderDispatcher)):
        raise NotModelled(f"{_name(dl)} is not a loader prepared by Accelerate (DataLoaderShard or "
                          "DataLoaderDispatcher): prepare it first, or use accel_sim.from_dataloader")
    if getattr(dl, "skip_batches", 0):
        raise NotModelled("a loader returned by skip_first_batches (skip_batches="
                          f"{dl.skip_batches}) is not checked by assert_loader_matches")
    if getattr(dl, "use_stateful_dataloader", False):
        raise NotModelled("use_stateful_dataloader=True is not checked by assert_loader_matches")
    base = dl.base_dataloader
    ds = base.dataset
    opts: Dict[str, Any] = {"api": "prepare_data_loader"}
    dispatcher = issubclass(kind, DataLoaderDispatcher)
    ranks, rank, split, even = 1, 0, False, True
    user_ds = ds
    bs = base.batch_sampler
    if type(bs).__name__ == "SkipBatchSampler" or type(getattr(bs, "batch_sampler", None)).__name__ == "SkipBatchSampler":
        raise NotModelled("a loader returned by skip_first_batches is not checked by assert_loader_matches")
    if dispatcher:
        ranks, rank, split = dl.state.num_processes, dl.state.process_index, dl.split_batches
        opts["dispatch_batches"] = True
        opts["put_on_device"] = True
        batch_size, drop_last = base.batch_size, bool(dl._drop_last)
        if bs is not None and batch_size is None:
            batch_size = bs.batch_size
    elif isinstance(ds, IterableDatasetShard):
        ranks, rank, split = ds.num_processes, ds.process_index, ds.split_batches
        batch_size, drop_last, user_ds = ds.batch_size, ds.drop_last, ds.dataset
    elif isinstance(bs, BatchSamplerShard):
        ranks, rank, split, even = bs.num_processes, bs.process_index, bs.split_batches, bs.even_batches
        batch_size, drop_last, bs = bs.batch_size, bs.drop_last, bs.batch_sampler
    else:  # one process: the user's batching as it was
        batch_size, drop_last = (base.batch_size, base.drop_last) if bs is None else (bs.batch_size, bs.drop_last)
    if not dispatcher:
        opts["dispatch_batches"] = False
        opts["put_on_device"] = dl.device is not None
        opts["rng_types"] = ["generator"] if "generator" in (dl.rng_types or []) else None
    if bs is not None and type(bs) is not BatchSampler and not isinstance(bs, BatchSamplerShard):
        raise NotModelled(f"batch_sampler {_name(bs)} is not modelled (only torch.utils.data.BatchSampler)")
    iterable = isinstance(user_ds, IterableDataset)
    opts.update(num_processes=ranks, split_batches=bool(split), even_batches=bool(even), batch_size=batch_size,
                drop_last=bool(drop_last), dataset="iterable" if iterable else "map")
    try:
        opts["dataset_len"] = len(user_ds)
    except TypeError:
        if "dataset_len" not in overrides:
            raise NotModelled(f"the dataset ({type(user_ds).__qualname__}) has no __len__: pass dataset_len=N")
    history = int(getattr(dl, "iteration", 0))
    sampler = None if iterable or bs is None else bs.sampler
    opts["shuffle"] = False
    opts["use_seedable_sampler"] = False
    reseed = None  # which generator the copy reseeds: "global" or the loader's generator
    if sampler is not None and type(sampler) is not SequentialSampler:
        if type(sampler) is SeedableRandomSampler:
            opts.update(shuffle=True, use_seedable_sampler=True, data_seed=int(sampler.initial_seed))
        elif type(sampler) is RandomSampler:
            opts["shuffle"] = True
            if sampler.generator is None:
                reseed = "global"
            elif sampler.generator is base.generator:
                reseed = "loader"
            else:
                raise NotModelled("a RandomSampler whose generator Accelerate drew at prepare time (several "
                                  "processes, use_seedable_sampler=False) cannot be reseeded for the check: use "
                                  "use_seedable_sampler=True, or DataLoader(generator=...)")
            history = 0  # the copy is reseeded right before it runs: earlier passes do not matter
        else:
            raise NotModelled(f"sampler {_name(sampler)} is not modelled (SequentialSampler, RandomSampler, "
                              "SeedableRandomSampler)")
        if opts["shuffle"]:
            if sampler.replacement:
                opts["replacement"] = True
            if getattr(sampler, "_num_samples", None) is not None:
                opts["num_samples"] = sampler._num_samples
    opts["torch_version"] = torch_version_option(torch.__version__)
    release_option(opts, overrides)
    opts.update(overrides)
    opts["_rank"], opts["_user_dataset"], opts["_history"], opts["_reseed"] = rank, user_ds, history, reseed
    return opts


def _generators(root: Any, skip: Dict[int, Any]) -> List[Any]:
    """torch.Generator objects reachable from the loader (its samplers, its DataLoader, the synchronised one)."""
    import torch

    found: Dict[int, Any] = {}
    seen = set(skip)
    stack = [(root, 0)]
    while stack:
        obj, depth = stack.pop()
        if id(obj) in seen or depth > 8:
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.Generator):
            found[id(obj)] = obj
        elif isinstance(obj, (list, tuple, set)):
            stack += [(v, depth + 1) for v in obj]
        elif isinstance(obj, dict):
            stack += [(v, depth + 1) for v in obj.values()]
        elif hasattr(obj, "__dict__") and type(obj).__module__.split(".")[0] in ("torch", "accelerate", "torchdata"):
            stack += [(v, depth + 1) for v in vars(obj).values()]
    return list(found.values())


def assert_loader_matches(prepared_dataloader: Any, steps: Optional[int] = None, *, epochs: int = 1, seed: int = 0,
                          **overrides: Any) -> Dict[str, Any]:
    """Iterates ``epochs`` passes of an index-yielding copy of ``prepared_dataloader`` (at most ``steps`` batches
    each; None: the whole pass) and checks every batch against accel-sim's simulation of the same preparation.

    A RandomSampler's order comes from torch's RNG, so the copy's generator (the global one, or the DataLoader's)
    is reseeded with ``seed`` before it runs and the simulation is told so; a SeedableRandomSampler and sequential
    loaders are checked as they stand (after the passes the loader already made). ``overrides`` replace what was
    read (any what_if option). Raises LoaderMismatch at the first divergence, NotModelled for what accel-sim does
    not model. Returns what was checked: rank, epochs, batches compared and the options simulated.
    """
    import torch
    from torch.utils.data import IterableDataset
    from torch.utils.data._utils.collate import default_collate

    if steps is not None and (not isinstance(steps, int) or steps < 1):
        raise ValueError(f"assert_loader_matches: steps must be None or an int >= 1, got {steps!r}")
    opts = prepared_loader_options(prepared_dataloader, **overrides)
    rank, user_ds = opts.pop("_rank"), opts.pop("_user_dataset")
    history, reseed = opts.pop("_history"), opts.pop("_reseed")
    if reseed == "global":
        opts.setdefault("set_seed", seed)
    elif reseed == "loader":
        opts.setdefault("generator_seed", seed)
    n = opts["dataset_len"]
    index_map, index_iterable = _index_dataset_classes()
    index_ds = index_iterable(n) if isinstance(user_ds, IterableDataset) else index_map(n)

    dl = prepared_dataloader
    memo: Dict[int, Any] = {id(user_ds): index_ds}
    # The user's collate_fn (often a tokenizer's collator) is replaced in the copy: never copied.
    collate = getattr(dl.base_dataloader, "collate_fn", None)
    if collate is not None:
        memo[id(collate)] = default_collate
    # Accelerate's process state is read-only here; its GradientState gets a private copy (the copy's begin()/end()
    # must not register it with the live one).
    if getattr(dl, "state", None) is not None:
        memo[id(dl.state)] = dl.state
    gs = getattr(dl, "gradient_state", None)
    if gs is not None:
        private = object.__new__(type(gs))
        private.__dict__ = {k: copy.copy(v) if isinstance(v, (list, dict)) else v for k, v in vars(gs).items()}
        memo[id(gs)] = private
    for g in _generators(dl, dict(memo)):
        clone = torch.Generator(device=g.device)
        clone.set_state(g.get_state())
        memo[id(g)] = clone
    copied = copy.deepcopy(dl, memo)
    copied.base_dataloader.collate_fn = default_collate
    if "device" in vars(copied) and copied.device is not None:
        copied.device = None  # ids stay on the CPU: placement does not change which samples a rank gets

    simulated_epochs = history + epochs
    try:
        expected_trace = trace(**dict(opts, epochs=simulated_epochs))
    except ConfigError as e:
        raise as_not_modelled(opts, overrides, e) from e
    if expected_trace.get("error"):
        e = expected_trace["error"]
        raise NotModelled(f"the simulation rejects this preparation ({e['type']}: {e['message']})")
    expected_rank = expected_trace["ranks"][rank]

    saved_rng = torch.get_rng_state()
    checked = 0
    try:
        if reseed == "global":
            torch.manual_seed(seed)
        elif reseed == "loader":
            memo[id(dl.base_dataloader.generator)].manual_seed(seed)
        for e in range(epochs):
            record = expected_rank["epochs"][history + e]
            expected: List[Any] = list(record["batches"])
            limit = len(expected) if steps is None else min(steps, len(expected))
            actual_iter = iter(copied)
            raised_as_simulated = False
            for step in range(limit + (1 if steps is None or steps > len(expected) else 0)):
                try:
                    batch = next(actual_iter)
                    actual = batch.tolist() if hasattr(batch, "tolist") else list(batch)
                except StopIteration:
                    actual = None
                except Exception as exc:  # noqa: BLE001 - compared with what the simulation raises
                    err = record.get("error")
                    if err and step >= len(expected) and type(exc).__name__ == err.get("type"):
                        raised_as_simulated = True
                        break
                    raise
                want = expected[step] if step < len(expected) else None
                if actual != want:
                    raise LoaderMismatch(rank, history + e, step, want, actual, opts)
                if actual is None:
                    break
                checked += 1
            if record.get("error") and not raised_as_simulated and (steps is None or steps > len(expected)):
                raise LoaderMismatch(rank, history + e, len(expected),
                                     f"{record['error']['type']}: {record['error']['message']}", "no error", opts)
            del actual_iter
    finally:
        torch.set_rng_state(saved_rng)
    return {"rank": rank, "epochs": epochs, "first_epoch": history, "batches_checked": checked, "options": opts}
