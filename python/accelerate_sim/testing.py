"""accelerate_sim.testing: a guard for a test suite — the live prepared loader against the simulation.

    from accelerate_sim.testing import assert_loader_matches
    dl = accelerator.prepare(DataLoader(dataset, batch_size=16, shuffle=True))
    assert_loader_matches(dl, steps=50)

assert_loader_matches iterates a copy of the prepared loader whose dataset yields each sample's index (the
original loader, its samplers and generators, Accelerate's GradientState and torch's global RNG are left as they
were), reads how it was prepared (ranks, process index, split_batches, even_batches, drop_last, sampler, data_seed,
dispatching, workers), simulates the same with accel-sim and compares batch by batch. It raises LoaderMismatch at the
first divergence (rank, epoch, step, expected, actual).

Two things the loader object does not say are read from behaviour: how an IterableDataset splits its stream over
DataLoader workers (its __iter__ is run once per worker under a stand-in get_worker_info() and compared item by item
with each split accel-sim models), and which seed Accelerate gave the generator it created at prepare (several ranks,
a default shuffled loader): the copy's generator is seeded by Accelerate's own prepare after torch.manual_seed(seed).
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any, Dict, List, Optional

from . import ConfigError, NotModelled, trace
from ._dataloader import as_not_modelled, release_option, torch_version_option

__all__ = ["assert_loader_matches", "prepared_loader_options", "LoaderMismatch", "WORKER_SPLITS"]

# The ways accel-sim models an IterableDataset's __iter__ to use get_worker_info() (core/data_loader_workers.hpp).
WORKER_SPLITS = ("none", "strided", "contiguous")


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

        def __reduce__(self):
            return _rebuild_index_dataset, (False, self.n)

    class IndexIterable(tud.IterableDataset):
        """Yields 0, 1, ..., n - 1; in DataLoader worker k, ``worker_positions[k]`` (the positions of the stream the
        user's dataset yields in that worker, as observed), so that the copy splits over workers as it does."""

        def __init__(self, n: int, worker_positions: Optional[List[List[int]]] = None):
            self.n = n
            self.worker_positions = worker_positions

        def __len__(self) -> int:
            return self.n

        def __reduce__(self):
            return _rebuild_index_dataset, (True, self.n, self.worker_positions)

        def __iter__(self):
            info = tud.get_worker_info()
            if info is None or self.worker_positions is None:
                return iter(range(self.n))
            return iter(self.worker_positions[info.id])

    return IndexDataset, IndexIterable


def _rebuild_index_dataset(iterable: bool, *args: Any) -> Any:
    """The copy's dataset, rebuilt by name where a DataLoader pickles it for its workers (the spawn context): the
    classes are made inside a function so that importing this module does not import torch."""
    return _index_dataset_classes()[1 if iterable else 0](*args)


def _item_key(item: Any) -> bytes:
    """One item a dataset yields as bytes equal for equal items (tensors and arrays by dtype, shape and values,
    containers element-wise): how a worker's items are matched with the stream's."""

    def plain(x: Any) -> Any:
        if hasattr(x, "tolist") and hasattr(x, "shape") and hasattr(x, "dtype"):  # torch.Tensor, numpy array/scalar
            return ("array", str(x.dtype), tuple(x.shape), x.tolist())
        if isinstance(x, dict):
            return ("dict", [(repr(k), plain(v)) for k, v in x.items()])
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, [plain(v) for v in x])
        return x

    value = plain(item)
    try:
        return pickle.dumps(value, protocol=4)
    except Exception:  # noqa: BLE001 - an item pickle refuses is compared by its repr
        return repr(value).encode()


def _split_positions(split: str, n: int, workers: int, worker: int) -> List[int]:
    """The positions of the stream worker `worker` yields under a modelled split (core/data_loader_workers.cpp)."""
    if split == "strided":  # itertools.islice(stream, worker_id, None, num_workers)
        return list(range(worker, n, workers))
    if split == "contiguous":  # the worker's block of ceil(n / num_workers), torch's documented example
        per = -(-n // workers)
        begin = min(n, worker * per)
        return list(range(begin, min(begin + per, n)))
    return list(range(n))  # "none": every worker yields the whole stream


def _worker_splits(dataset: Any, workers: int, n: int) -> Dict[str, List[List[int]]]:
    """The modelled splits the dataset's own items agree with: its __iter__ runs once as the main process sees it
    (the stream whose positions are the sample ids) and once per worker, with torch's get_worker_info() answering
    for that worker, and each worker's items are compared with the stream's at that split's positions. Returns
    {split: positions of each worker}. torch's, Python's and numpy's global RNG are left as they were."""
    import sys
    import torch
    from torch.utils.data._utils import worker as torch_worker

    def items(info: Any) -> List[bytes]:
        # get_worker_info() returns this module global, however the dataset imported the function.
        saved = torch_worker._worker_info
        torch_worker._worker_info = info
        try:
            return [_item_key(x) for x in iter(dataset)]
        finally:
            torch_worker._worker_info = saved

    np = sys.modules.get("numpy")
    saved = (torch.get_rng_state(), random.getstate(), np.random.get_state() if np is not None else None)
    try:
        stream = items(None)
        per_worker = [items(torch_worker.WorkerInfo(id=k, num_workers=workers, seed=k, dataset=dataset))
                      for k in range(workers)]
    finally:
        torch.set_rng_state(saved[0])
        random.setstate(saved[1])
        if np is not None:
            np.random.set_state(saved[2])
    agree: Dict[str, List[List[int]]] = {}
    for split in WORKER_SPLITS:
        positions = [_split_positions(split, n, workers, k) for k in range(workers)]
        if all(len(got) == len(pos) and all(p < len(stream) and stream[p] == g for p, g in zip(pos, got))
               for got, pos in zip(per_worker, positions)):
            agree[split] = positions
    return agree


def _read_worker_split(user_ds: Any, workers: int, n: int,
                       overrides: Dict[str, Any]) -> "tuple[str, List[List[int]]]":
    """The modelled split the dataset's items show and the positions each worker yields under it, which the copy
    reproduces (a worker_split= override is what is simulated); NotModelled when the dataset splits its stream some
    other way, or its items cannot tell the splits apart."""
    agree = _worker_splits(user_ds, workers, n)
    if not agree:
        raise NotModelled(f"{_name(user_ds)} splits its stream over the DataLoader's {workers} workers in a way "
                          "accel-sim does not model: what its workers yield follows none of worker_split='none' "
                          "(every worker the whole stream), 'strided' (itertools.islice(stream, worker_id, None, "
                          "num_workers)) or 'contiguous' (the worker's block of ceil(len / num_workers))")
    distinct = {tuple(map(tuple, positions)) for positions in agree.values()}
    given = overrides.get("worker_split")
    if given is None and len(distinct) > 1:
        raise NotModelled(f"the items of {_name(user_ds)} do not tell its worker split apart (they agree with "
                          f"{' and '.join(agree)}): pass worker_split=")
    if given in agree:
        return given, agree[given]
    # Told another split than the items show: the copy yields what the dataset does, so the check fails where the
    # simulation of the stated split first differs.
    return next(iter(agree.items()))


def _name(obj: Any) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def prepared_loader_options(dl: Any, **overrides: Any) -> Dict[str, Any]:
    """How a loader returned by Accelerate (DataLoaderShard / DataLoaderDispatcher) was prepared, as accel-sim
    options for a direct prepare_data_loader call on its rank. Also returns the private keys ``_rank``,
    ``_user_dataset``, ``_history`` (passes the loader already made), ``_reseed`` and ``_generator`` (what the copy
    reseeds) and ``_worker_positions`` (what an IterableDataset yields in each worker). An IterableDataset with
    workers is iterated here, once per worker and once whole, to read its split."""
    import torch
    from accelerate.data_loader import (BatchSamplerShard, DataLoaderDispatcher, DataLoaderShard,
                                        IterableDatasetShard, SeedableRandomSampler)
    from torch.utils.data import BatchSampler, IterableDataset, RandomSampler, SequentialSampler

    kind = type(dl)  # the real class (DataLoaderAdapter reports the wrapped DataLoader's as __class__)
    if not issubclass(kind, (DataLoaderShard, DataLoaderDispatcher)):
        raise NotModelled(f"{_name(dl)} is not a loader prepared by Accelerate (DataLoaderShard or "
                          "DataLoaderDispatcher): prepare it first, or use accelerate_sim.from_dataloader")
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
    worker_positions = None
    workers = int(getattr(base, "num_workers", 0) or 0)
    if workers > 0:
        if getattr(base, "in_order", True) is False:
            raise NotModelled("DataLoader(in_order=False) yields each batch as its worker delivers it: the order "
                              "depends on the workers' timing, which accel-sim does not guess (use in_order=True)")
        opts["num_workers"] = workers
        if base.persistent_workers:
            opts["persistent_workers"] = True
        if iterable:
            # How __iter__ uses get_worker_info() is in the dataset's code: read from what it yields per worker.
            n = overrides.get("dataset_len", opts.get("dataset_len"))
            opts["worker_split"], worker_positions = _read_worker_split(user_ds, workers, n, overrides)
    history = int(getattr(dl, "iteration", 0))
    sampler = None if iterable or bs is None else bs.sampler
    opts["shuffle"] = False
    opts["use_seedable_sampler"] = False
    reseed = None  # which generator the copy reseeds: "global", the loader's, or the one Accelerate created
    if sampler is not None and type(sampler) is not SequentialSampler:
        if type(sampler) is SeedableRandomSampler:
            opts.update(shuffle=True, use_seedable_sampler=True, data_seed=int(sampler.initial_seed))
        elif type(sampler) is RandomSampler:
            opts["shuffle"] = True
            if sampler.generator is None:
                reseed = "global"
            elif sampler.generator is base.generator:
                reseed = "loader"
            elif ranks > 1 and not dispatcher:
                # Several ranks, use_seedable_sampler=False: Accelerate gave the sampler a generator of its own at
                # prepare (seeded from torch's global generator since 1.6) and takes rank 0's state at every pass.
                # The copy's is seeded as Accelerate's prepare seeds it after torch.manual_seed(seed).
                reseed = "prepare"
            else:
                raise NotModelled("a RandomSampler with a generator of its own (not the DataLoader's) is not "
                                  "modelled; write DataLoader(dataset, shuffle=True, generator=g) instead")
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
    opts["_generator"] = sampler.generator if reseed == "prepare" else None
    opts["_worker_positions"] = worker_positions
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


def _prepared_generator_state(seed: int) -> Any:
    """The state of the generator the installed Accelerate's prepare_data_loader gives a shuffled sampler on several
    ranks (use_seedable_sampler=False), right after torch.manual_seed(seed): its own prepare runs on a two-sample
    loader, so the check follows its rule (an int64 drawn from the global generator since 1.6, never seeded
    before), not a copy of it. torch's global RNG is left as it was."""
    import torch
    from accelerate.data_loader import prepare_data_loader
    from torch.utils.data import DataLoader

    saved = torch.get_rng_state()
    try:
        torch.manual_seed(seed)
        probe = prepare_data_loader(DataLoader([0, 1], batch_size=1, shuffle=True), num_processes=2,
                                    process_index=0, dispatch_batches=False)
        return probe.batch_sampler.batch_sampler.sampler.generator.get_state()
    finally:
        torch.set_rng_state(saved)


def assert_loader_matches(prepared_dataloader: Any, steps: Optional[int] = None, *, epochs: int = 1, seed: int = 0,
                          **overrides: Any) -> Dict[str, Any]:
    """Iterates ``epochs`` passes of an index-yielding copy of ``prepared_dataloader`` (at most ``steps`` batches
    each; None: the whole pass) and checks every batch against accel-sim's simulation of the same preparation.

    A RandomSampler's order comes from torch's RNG, so the copy's generator (the global one, the DataLoader's, or the
    one Accelerate's prepare created on several ranks, seeded as that prepare seeds it after torch.manual_seed)
    is reseeded from ``seed`` before it runs and the simulation is told so; a SeedableRandomSampler and sequential
    loaders are checked as they stand (after the passes the loader already made). With DataLoader workers over an
    IterableDataset, the split its __iter__ makes is read from its items (``worker_split=`` states one: a dataset
    that splits otherwise then fails the check); a split accel-sim does not model is NotModelled. ``overrides``
    replace what was read (any what_if option). Raises LoaderMismatch at the first divergence, NotModelled for what accel-sim does
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
    generator, worker_positions = opts.pop("_generator"), opts.pop("_worker_positions")
    if reseed in ("global", "prepare"):
        opts.setdefault("set_seed", seed)
    elif reseed == "loader":
        opts.setdefault("generator_seed", seed)
    n = opts["dataset_len"]
    index_map, index_iterable = _index_dataset_classes()
    index_ds = index_iterable(n, worker_positions) if isinstance(user_ds, IterableDataset) else index_map(n)

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
    # A persistent-workers iterator of the live loader (its worker processes) is not copied: the copy starts its own.
    if getattr(dl.base_dataloader, "_iterator", None) is not None:
        memo[id(dl.base_dataloader._iterator)] = None
    for g in _generators(dl, dict(memo)):
        clone = torch.Generator(device=g.device)
        clone.set_state(g.get_state())
        memo[id(g)] = clone
    if reseed == "prepare":
        if id(generator) not in memo:
            memo[id(generator)] = torch.Generator(device=generator.device)
        memo[id(generator)].set_state(_prepared_generator_state(seed))
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
