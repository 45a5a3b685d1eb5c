"""accelerate_sim.record: what every rank of a real job saw, written in the golden schema, one file per rank.

    for batch in accelerate_sim.record(prepared_loader, "run1"):
        ...

The wrapper yields exactly the loader's batches. For a map-style dataset the ids are the indices the (batch) sampler
hands the dataset: while the loader creates its iterator (and fetches its first batches) the DataLoader's
``batch_sampler`` (or ``sampler``) is replaced by a tap that iterates the real one once and notes each batch of
indices; the tap is removed before the first batch reaches the loop, and the indices are matched to the yielded
batches in order (a DataLoaderShard prefetches one batch, workers several: the sampler runs in the main process and
the batches come back in its order). For iterable data, a DataLoaderDispatcher or any other loader, ``key`` (a
callable batch -> list of ints) gives the ids. Nothing is drawn from any generator, and len(), set_epoch,
end_of_dataloader and remainder are the loader's own.

Each rank writes ``out_dir/rank-<r>.json`` (the `accelerator` family's trace restricted to one rank, family
"recorded", docs/recording.md) at the end of every pass, and at exit for a pass that was broken off (complete false).
A file already there is appended to when this process's first pass is a resume (it starts past step 0 or epoch 0, or
resume=True), and replaced otherwise: running the same job twice gives one run's recording, not two runs' batches
counted as duplicates.
"""

from __future__ import annotations

import atexit
import json
import os
import platform
import sys
from collections import deque
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import NotModelled

_END = object()
_RECORDERS: Dict[Tuple[str, int], "_Recorder"] = {}


def _name(obj: Any) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def _rank() -> int:
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    except Exception:  # noqa: BLE001 - a backend that cannot answer: one process
        pass
    return 0


def _world() -> int:
    dist = sys.modules.get("torch.distributed")
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_world_size())
    except Exception:  # noqa: BLE001
        pass
    return 1


def _asked_world() -> Tuple[Optional[int], str]:
    """How many processes the launcher was asked for, where it tells, and by what: torchrun and accelerate launch's
    multi-process launchers set WORLD_SIZE; `accelerate launch --cpu --num_processes N` starts one process and sets
    nothing, so its command line (this process's parent) is read. (None, "") when nothing says."""
    env = os.environ.get("WORLD_SIZE")
    if env is not None and env.strip().isdigit():
        return int(env), f"WORLD_SIZE={env.strip()}"
    try:
        with open(f"/proc/{os.getppid()}/cmdline", "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return None, ""
    launcher = ("launch" in argv and any("accelerate" in a for a in argv)) or any(
        a.endswith(("accelerate.commands.launch", "accelerate/commands/launch.py")) for a in argv)
    if not launcher:
        return None, ""
    for i, a in enumerate(argv):
        for flag in ("--num_processes", "--num-processes"):
            value = a[len(flag) + 1:] if a.startswith(flag + "=") else (
                argv[i + 1] if a == flag and i + 1 < len(argv) else None)
            if value is not None and value.isdigit():
                cpu = " --cpu" if "--cpu" in argv else ""
                return int(value), f"`accelerate launch{cpu} {flag} {value}`"
    return None, ""


def _warn_world(world: int) -> None:
    asked, source = _asked_world()
    if asked is None or asked == world:
        return
    if source.startswith("`accelerate launch --cpu"):
        hint = (f" (`accelerate launch --cpu` starts a single process whatever --num_processes says; `python -m "
                f"accelerate_sim.launch -n {asked} SCRIPT` starts {asked} in one gloo group)")
    elif world == 1:
        hint = " (no process group yet: create the Accelerator before calling record())"
    else:
        hint = ""
    print(f"accelerate_sim.record: warning: the launch asked for {asked} processes ({source}) but this process is in a "
          f"world of {world}: the recording holds {world} rank{'s' if world != 1 else ''}{hint}",
          file=sys.stderr, flush=True)


def _sampler_generator_seed(loader: Any) -> Optional[int]:
    """The seed of the generator Accelerate synchronises for a shuffled sampler, before this pass synchronises it:
    prepare seeded it with one draw from torch's global generator, so `accel-sim diff --recorded` can tell how many
    words the script drew between set_seed and prepare (a model built there). None when there is none."""
    gen = vars(loader).get("synchronized_generator") if hasattr(loader, "__dict__") else None
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(gen, torch.Generator):
        return None
    try:
        return int(gen.initial_seed())
    except Exception:  # noqa: BLE001 - a device generator that cannot tell: nothing to note
        return None


def _planner_stopped(exc: BaseException) -> bool:
    """Whether `python -m accelerate_sim.plan` stopped the script at this pass's start (its _Stop, raised by the prepared
    loader's __iter__): no pass ran, so nothing is recorded."""
    return type(exc).__qualname__ == "_Stop" and type(exc).__module__ in ("__main__", "accelerate_sim.plan")


def _mro_names(obj: Any) -> set:
    return {c.__name__ for c in type(obj).__mro__}


def _base_dataloader(loader: Any) -> Any:
    """The torch DataLoader that runs the sampler: a prepared loader's base_dataloader, or the loader itself."""
    from torch.utils.data import DataLoader

    base = vars(loader).get("base_dataloader") if hasattr(loader, "__dict__") else None
    if base is not None:
        return base
    return loader if isinstance(loader, DataLoader) else None


def _unwrap_skip(bs: Any) -> Any:
    return bs.batch_sampler if type(bs).__name__ == "SkipBatchSampler" else bs


def _skipped_batches(loader: Any, base: Any) -> Optional[int]:
    """How many batches a loader made by skip_first_batches skips (None: not such a loader)."""
    n = vars(loader).get("skip_batches", 0) if hasattr(loader, "__dict__") else 0
    if n:
        return int(n)
    if base is not None:
        for s in (vars(base).get("batch_sampler"), vars(base).get("sampler")):
            if type(s).__name__ == "SkipBatchSampler":
                return int(s.skip_batches)
    return None


def _index_source(loader: Any) -> Tuple[Any, Optional[str]]:
    """(the DataLoader whose sampler gives the ids, None) or (None, why the ids cannot be known without key=)."""
    from torch.utils.data import IterableDataset

    names = _mro_names(loader)
    if "DataLoaderDispatcher" in names:
        return None, ("a DataLoaderDispatcher (dispatch_batches): rank 0 reads every batch and sends each rank its "
                      "slice, so this rank never sees the indices")
    base = _base_dataloader(loader)
    if base is None:
        return None, f"{_name(loader)} is neither a torch DataLoader nor a loader Accelerate prepared"
    if isinstance(base.dataset, IterableDataset):
        return None, f"the dataset ({type(base.dataset).__qualname__}) is an IterableDataset: it has no indices"
    if base.num_workers > 0 and getattr(base, "in_order", True) is False:
        return None, "DataLoader(in_order=False) yields batches in the workers' order, not the sampler's"
    if vars(base).get("batch_sampler") is None and vars(base).get("sampler") is None:
        return None, "the DataLoader has no sampler"
    return base, None


class _TapIter:
    __slots__ = ("_it", "_sink")

    def __init__(self, it: Any, sink: deque):
        self._it, self._sink = it, sink

    def __iter__(self) -> "_TapIter":
        return self

    def __next__(self) -> Any:
        item = next(self._it)
        self._sink.append(item if type(item) is not list else list(item))
        return item


class _Tap:
    """Stands in for the DataLoader's batch sampler (or sampler) while the loader creates its iterator: iterating it
    iterates the real one (once, at the same moment), noting each item; every other attribute is the real one's."""

    def __init__(self, real: Any, sink: deque):
        self.__dict__["_tap_real"] = real
        self.__dict__["_tap_sink"] = sink

    def __iter__(self) -> _TapIter:
        return _TapIter(iter(self._tap_real), self._tap_sink)

    def __len__(self) -> int:
        return len(self._tap_real)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_tap_real"], name)


def _install_tap(base: Any, sink: deque) -> Callable[[], None]:
    """Puts a _Tap in place of base's batch_sampler (or sampler, without automatic batching); returns the undo.
    DataLoader refuses to set these attributes after __init__: its __dict__ is written directly, and restored."""
    name = "batch_sampler" if vars(base).get("batch_sampler") is not None else "sampler"
    real = vars(base)[name]
    base.__dict__[name] = _Tap(real, sink)

    def restore() -> None:
        base.__dict__[name] = real

    return restore


def _as_ids(item: Any) -> List[int]:
    if isinstance(item, int):
        return [item]
    if hasattr(item, "tolist"):
        v = item.tolist()
        return [int(x) for x in v] if isinstance(v, list) else [int(v)]
    return [int(x) for x in item]


def _read_config(loader: Any, accelerator: Any) -> Tuple[Dict[str, Any], List[str]]:
    """The accelerator family's config keys, as far as the prepared loader (and the Accelerator, when given) tell
    them; null where they do not. Returns (config, what is not modelled)."""
    from torch.utils.data import BatchSampler, IterableDataset, RandomSampler, SequentialSampler

    not_modelled: List[str] = []
    names = _mro_names(loader)
    base = _base_dataloader(loader)
    acc: Dict[str, Any] = {"split_batches": None, "dispatch_batches": None, "even_batches": None,
                           "use_seedable_sampler": None, "data_seed": None}
    cfg: Dict[str, Any] = {"api": "accelerator", "dataset_kind": None, "dataset_len": None, "batch_size": None,
                           "num_processes": _world(), "shuffle": None, "drop_last": None, "accelerator": acc}
    if base is None:
        not_modelled.append(f"{_name(loader)} is not a torch DataLoader nor a loader Accelerate prepared")
        return cfg, not_modelled
    ds = base.dataset
    bs = _unwrap_skip(vars(base).get("batch_sampler"))
    if bs is None and type(vars(base).get("sampler")).__name__ == "SkipBatchSampler":
        bs = _unwrap_skip(vars(base).get("sampler"))  # skip_first_batches of a loader whose sampler is a batch sampler
    batch_size, drop_last = base.batch_size, base.drop_last
    if "DataLoaderDispatcher" in names:
        acc["dispatch_batches"] = True
        acc["split_batches"] = bool(loader.split_batches)
        cfg["num_processes"] = int(loader.state.num_processes)
        drop_last = bool(loader._drop_last)
        if batch_size is None and bs is not None:
            batch_size = bs.batch_size
    elif "DataLoaderShard" in names or "SkipDataLoader" in names:
        acc["dispatch_batches"] = False
    if type(ds).__name__ == "IterableDatasetShard":
        acc["split_batches"] = bool(ds.split_batches)
        cfg["num_processes"] = int(ds.num_processes)
        batch_size, drop_last, ds = ds.batch_size, ds.drop_last, ds.dataset
    elif type(bs).__name__ == "BatchSamplerShard":
        acc["split_batches"] = bool(bs.split_batches)
        acc["even_batches"] = bool(bs.even_batches)
        cfg["num_processes"] = int(bs.num_processes)
        batch_size, drop_last, bs = bs.batch_size, bs.drop_last, bs.batch_sampler
    elif bs is not None:
        batch_size, drop_last = bs.batch_size if hasattr(bs, "batch_size") else batch_size, getattr(bs, "drop_last", drop_last)
    iterable = isinstance(ds, IterableDataset)
    cfg["dataset_kind"] = "iterable" if iterable else "map"
    try:
        cfg["dataset_len"] = len(ds)
    except TypeError:
        cfg["dataset_len"] = None
        not_modelled.append(f"the dataset ({type(ds).__qualname__}) has no __len__")
    cfg["batch_size"] = batch_size
    cfg["drop_last"] = None if drop_last is None else bool(drop_last)
    custom_batches = bs is not None and type(bs) is not BatchSampler
    if custom_batches:
        not_modelled.append(f"batch_sampler {_name(bs)} (accel-sim models torch.utils.data.BatchSampler)")
    elif bs is None and not iterable and "DataLoaderDispatcher" not in names:
        not_modelled.append("a DataLoader with batch_size=None (no automatic batching)")
    if iterable:
        cfg["shuffle"] = False
    elif custom_batches:
        pass  # its order is its own: shuffle stays null
    else:
        sampler = getattr(bs, "sampler", None) if bs is not None else vars(base).get("sampler")
        kind = type(sampler).__name__
        if kind == "SeedableRandomSampler":
            cfg["shuffle"] = True
            acc["use_seedable_sampler"] = True
            acc["data_seed"] = int(sampler.initial_seed)
        elif type(sampler) is RandomSampler:
            cfg["shuffle"] = True
            acc["use_seedable_sampler"] = False
        elif type(sampler) is SequentialSampler:
            cfg["shuffle"] = False
        else:
            not_modelled.append(f"sampler {_name(sampler)} (accel-sim models SequentialSampler and RandomSampler)")
    if base.num_workers > 0 and getattr(base, "in_order", True) is False:
        not_modelled.append("DataLoader(in_order=False) with workers")
    if getattr(loader, "use_stateful_dataloader", False):
        not_modelled.append("use_stateful_dataloader=True is recorded, not compared")
    if accelerator is not None:
        from ._dataloader import _accelerator_options

        opts: Dict[str, Any] = {}
        try:
            _accelerator_options(accelerator, opts)
        except NotModelled as exc:
            not_modelled.append(str(exc))
        else:
            cfg["num_processes"] = opts["num_processes"]
            for k in ("split_batches", "even_batches", "use_seedable_sampler"):
                acc[k] = opts[k]
            acc["dispatch_batches"] = opts["dispatch_batches"]
            acc["data_seed"] = opts.get("data_seed")
    return cfg, not_modelled


def _reference() -> Dict[str, Any]:
    acc = sys.modules.get("accelerate")
    torch = sys.modules.get("torch")
    ref = {"accelerate_version": getattr(acc, "__version__", None), "torch": getattr(torch, "__version__", None),
           "python": platform.python_version(), "recorder": "accelerate_sim.record"}
    if torch is not None:
        # What the process seeded torch with (set_seed(s) makes it s): `accel-sim diff --recorded` simulates a shuffle
        # from it. Reading it draws nothing.
        ref["torch_initial_seed"] = int(torch.initial_seed())
    return ref


class _Recorder:
    """One out_dir on this rank: every pass recorded into it by this process, after those a file already held."""

    def __init__(self, out_dir: str, rank: int, name: Optional[str]):
        self.out_dir, self.rank = out_dir, rank
        self.path = os.path.join(out_dir, f"rank-{rank}.json")
        self.name = name or os.path.basename(os.path.normpath(out_dir))
        self.doc: Optional[Dict[str, Any]] = None
        self.previous: Optional[Dict[str, Any]] = None  # the file's recording, until this process's first pass decides
        self.decided = False
        self.replacing = False  # this run replaces an older one: stale files of ranks it lacks go at the first write
        self.replace_note = ""
        self.open: List[Dict[str, Any]] = []
        self.passes = 0
        self.set_epoch_value: Optional[int] = None
        if os.path.isfile(self.path):
            with open(self.path) as f:
                doc = json.load(f)
            if doc.get("family") != "recorded" or len(doc.get("ranks", [])) != 1:
                raise ValueError(f"accelerate_sim.record: {self.path} is not a recording of one rank (family 'recorded')")
            self.previous = doc
        atexit.register(self._at_exit)

    def decide(self, epoch: int, start_step: int, resume: Optional[bool]) -> None:
        """At this process's first pass: a resume (past step 0 or epoch 0, or resume=True) appends to the file's
        recording; a new run (epoch 0 from step 0, or resume=False) replaces it."""
        if self.decided:
            return
        self.decided = True
        if self.previous is None:
            self.replacing = True
            return
        appends = resume if resume is not None else (start_step > 0 or epoch > 0)
        if appends:
            self.doc = self.previous
        else:
            self.replacing = True
            # Said at the first write: a run stopped before its first pass (accelerate_sim.plan) replaces nothing.
            self.replace_note = (f"accelerate_sim.record: {self.path} held an earlier run; this run starts at epoch {epoch} "
                                 f"step {start_step}, so it replaces it (record(..., resume=True) appends instead)")
        self.previous = None

    def ensure_doc(self, loader: Any, accelerator: Any, first_pass: bool) -> None:
        if self.doc is not None:
            return
        config, not_modelled = _read_config(loader, accelerator)
        config["modelled"] = not not_modelled
        config["not_modelled"] = not_modelled
        try:
            length: Optional[int] = len(loader)
        except TypeError:
            length = None
        reference = _reference()
        if first_pass:
            seed = _sampler_generator_seed(loader)
            if seed is not None:
                reference["sampler_generator_seed"] = seed
        _warn_world(int(config["num_processes"]) if isinstance(config["num_processes"], int) else _world())
        self.doc = {"case": self.name, "family": "recorded", "config": config, "reference": reference,
                    "error": None, "ranks": [{"rank": self.rank, "loader_class": type(loader).__name__,
                                              "len": length, "epochs": []}]}

    def discard(self, entry: Dict[str, Any]) -> None:
        """Forgets a pass that never ran (the planner stopped it): nothing is written for it."""
        if entry in self.open:
            self.open.remove(entry)
        assert self.doc is not None
        epochs = self.doc["ranks"][0]["epochs"]
        if entry in epochs:
            epochs.remove(entry)
        self.passes -= 1

    def begin(self, epoch: int, start_step: int) -> Dict[str, Any]:
        assert self.doc is not None
        epochs = self.doc["ranks"][0]["epochs"]
        segment = sum(1 for e in epochs if e["epoch"] == epoch)
        entry = {"epoch": epoch, "segment": segment, "start_step": start_step, "batches": [],
                 "end_of_dataloader": [], "remainder": [], "complete": False}
        epochs.append(entry)
        self.open.append(entry)
        self.passes += 1
        return entry

    def end(self, entry: Dict[str, Any], complete: bool) -> None:
        entry["complete"] = complete
        if entry in self.open:
            self.open.remove(entry)
        self.write()

    def write(self) -> None:
        assert self.doc is not None
        try:
            text = json.dumps(self.doc, separators=(",", ":"))  # one shot: json's C encoder
        except TypeError:  # a sampler that hands out numpy ints or tensors: ids as Python ints, once
            for e in self.doc["ranks"][0]["epochs"]:
                e["batches"] = [b if all(type(i) is int for i in b) else _as_ids(b) for b in e["batches"]]
            text = json.dumps(self.doc, separators=(",", ":"))
        os.makedirs(self.out_dir, exist_ok=True)
        if self.replace_note:
            print(self.replace_note, file=sys.stderr, flush=True)
            self.replace_note = ""
        if self.replacing and self.rank == 0:
            # An older run with more ranks left files this run will never write: they are not this run's.
            world = self.doc["config"].get("num_processes")
            for entry in os.listdir(self.out_dir):
                if entry.startswith("rank-") and entry.endswith(".json") and entry[5:-5].isdigit():
                    if isinstance(world, int) and int(entry[5:-5]) >= world:
                        os.remove(os.path.join(self.out_dir, entry))
            self.replacing = False
        tmp = f"{self.path}.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(text)
            f.write("\n")
        os.replace(tmp, self.path)

    def _at_exit(self) -> None:
        if self.open:
            for entry in list(self.open):
                entry["complete"] = False
            self.open.clear()
            try:
                self.write()
            except Exception:  # noqa: BLE001 - at exit: nothing to raise to
                pass


class Recorded:
    """What ``accelerate_sim.record`` returns: iterate it instead of the loader. Every other attribute (len, set_epoch,
    end_of_dataloader, remainder, batch_size, ...) is the wrapped loader's."""

    def __init__(self, loader: Any, recorder: _Recorder, key: Optional[Callable[[Any], Any]], base: Any,
                 start_step: Optional[int], accelerator: Any, resume: Optional[bool]):
        d = self.__dict__
        d["_loader"], d["_recorder"], d["_key"], d["_base"] = loader, recorder, key, base
        d["_start_step"], d["_accelerator"], d["_resume"] = start_step, accelerator, resume

    def __len__(self) -> int:
        return len(self._loader)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.__dict__["_loader"], name)
        if name == "set_epoch" and callable(value):
            recorder = self.__dict__["_recorder"]

            def set_epoch(epoch: int, *args: Any, **kwargs: Any) -> Any:
                recorder.set_epoch_value = int(epoch)
                return value(epoch, *args, **kwargs)

            return set_epoch
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._loader, name, value)

    def __repr__(self) -> str:
        return f"accelerate_sim.record({self._loader!r}, {self._recorder.out_dir!r})"

    def _epoch(self) -> int:
        it = vars(self._loader).get("iteration") if hasattr(self._loader, "__dict__") else None
        if isinstance(it, int):
            return it
        rec = self._recorder
        if rec.set_epoch_value is not None:
            return rec.set_epoch_value
        return rec.passes

    def __iter__(self) -> Any:
        loader, rec, key, base = self._loader, self._recorder, self._key, self._base
        skipped = _skipped_batches(loader, base)
        start = skipped if skipped is not None else (self._start_step or 0)
        epoch = self._epoch()
        first_pass = not rec.decided
        rec.decide(epoch, start, self._resume)
        rec.ensure_doc(loader, self._accelerator, first_pass and epoch == 0 and start == 0)
        entry = rec.begin(epoch, start)
        return self._pass(loader, rec, key, base, entry)

    @staticmethod
    def _pass(loader: Any, rec: _Recorder, key: Any, base: Any, entry: Optional[Dict[str, Any]]) -> Any:
        assert entry is not None
        batches, eods, rems = entry["batches"], entry["end_of_dataloader"], entry["remainder"]
        has_state = hasattr(type(loader), "end_of_dataloader") or "end_of_dataloader" in getattr(loader, "__dict__", {})
        sink: Optional[deque] = None if key is not None else deque()
        complete = False
        try:
            restore = _install_tap(base, sink) if sink is not None else None
            try:
                it = iter(loader)
                batch = next(it, _END)
            except BaseException as exc:
                if _planner_stopped(exc):
                    rec.discard(entry)  # no pass ran: the planner stopped the script here
                    entry = None
                raise
            finally:
                if restore is not None:
                    restore()
            if batch is not _END and sink is not None:
                # A DataLoaderShard / SkipDataLoader with skip_batches fetches and drops that many batches first.
                drop = vars(loader).get("skip_batches", 0) if base is not loader else 0
                for _ in range(min(drop or 0, len(sink))):
                    sink.popleft()
            while batch is not _END:
                if sink is None:
                    batches.append(_as_ids(key(batch)))
                else:
                    try:
                        batches.append(sink.popleft())
                    except IndexError:
                        raise NotModelled(f"accelerate_sim.record: {_name(loader)} yielded a batch whose indices its "
                                          "sampler never handed out here: pass key=(batch -> list of ids)") from None
                if has_state:
                    eods.append(bool(loader.end_of_dataloader))
                    rems.append(loader.remainder)
                else:
                    eods.append(False)
                    rems.append(-1)
                yield batch
                batch = next(it, _END)
            complete = True
        finally:
            if entry is not None:
                rec.end(entry, complete)


def record(dataloader: Any, out_dir: "str | os.PathLike[str]", *, key: Optional[Callable[[Any], Any]] = None,
           name: Optional[str] = None, start_step: Optional[int] = None, accelerator: Any = None,
           resume: Optional[bool] = None) -> Recorded:
    """Wraps a (prepared) loader so that iterating it records, per pass, the ids of every batch this rank receives
    into ``out_dir/rank-<r>.json``; it yields exactly the loader's batches.

    ``key``: a callable batch -> list of ints (the batch's sample ids); required for an IterableDataset, a
    DataLoaderDispatcher, or any loader whose sampler indices cannot be seen (NotModelled says so); for a map-style
    dataset it replaces the sampler's indices. ``name``: the recording's ``case`` (default: out_dir's name).
    ``start_step``: the batches skipped before this pass, when the loader does not tell it (a loader made by
    skip_first_batches does). ``accelerator``: the Accelerator that prepared the loader, for its exact
    DataLoaderConfiguration (otherwise read from the loader, null where it does not tell).
    Call it on every rank; each pass is written at its end, and a pass broken off (break, exception) at the next
    write or at exit, with complete false. A file already in out_dir is appended to when this process's first pass is
    a resume (it starts past step 0, e.g. from skip_first_batches, or at an epoch past 0), and replaced when it is a
    new run (epoch 0, step 0); ``resume=True`` / ``False`` decides it instead.
    """
    if key is not None and not callable(key):
        raise TypeError(f"accelerate_sim.record: key must be a callable batch -> list of ids, got {type(key).__name__}")
    if start_step is not None and (not isinstance(start_step, int) or isinstance(start_step, bool) or start_step < 0):
        raise ValueError(f"accelerate_sim.record: start_step must be an int >= 0, got {start_step!r}")
    if resume is not None and not isinstance(resume, bool):
        raise TypeError(f"accelerate_sim.record: resume must be True, False or None, got {resume!r}")
    if isinstance(dataloader, Recorded):
        raise TypeError("accelerate_sim.record: the loader is already recorded")
    base, why = _index_source(dataloader)
    if key is None and base is None:
        raise NotModelled(f"accelerate_sim.record: {why}; pass key=(a callable batch -> list of sample ids), e.g. "
                          "key=lambda batch: batch['id'].tolist()")
    out = os.path.abspath(os.fspath(out_dir))
    rank = _rank()
    rec = _RECORDERS.get((out, rank))
    if rec is None:
        rec = _RECORDERS[(out, rank)] = _Recorder(out, rank, name)
    return Recorded(dataloader, rec, key, base, start_step, accelerator, resume)


__all__ = ["record", "Recorded"]
