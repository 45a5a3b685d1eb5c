"""The release recordings (issue 29): the same cases recorded with several Accelerate releases, each installed
unmodified from PyPI into build/reference-venv-accelerate-<X.Y.Z> (golden/reference/setup-releases).

    <venv>/bin/python golden/reference/releases_set.py OUTDIR [--only CASE ...] [--hang-timeout S]

writes OUTDIR/<case>.json for every case of CASES (below), in the golden schema (golden/SCHEMA.md, `## releases`),
with `config.accelerate_version` = the running release. golden/record-releases runs it for each release.

record.py itself imports names that old releases lack (SeedableRandomSampler before 0.24, DataLoaderConfiguration
before 0.28, skip_first_batches before 0.16, ...), and passes keyword arguments they refuse. This recorder imports
only `prepare_data_loader`, `Accelerator`, `set_seed` and `gather_object` (in every release from 0.14), passes an
option only when the config names it (a release without that option raises TypeError, which is recorded as the
case's error: what the user of that release gets), and reads each attribute only where the release has it:

- `iteration_after`: `loader.iteration`, null before 0.24 (no such counter; nothing calls set_epoch).
- `end_of_dataloader` / `remainder`: the loader's own attributes from 0.20; before, Accelerate keeps them on
  `GradientState` (read there).
- `sampler_epoch_after`: the epoch of the SeedableRandomSampler that actually yields the indices (the sampler inside
  the BatchSamplerShard's batch sampler, or the loader's batch sampler's), null when that sampler is not one.
- `skip_first_batches`: `accelerate.data_loader.skip_first_batches` / `Accelerator.skip_first_batches`; before 0.16
  there is none: the pass records `{"where": "skip_first_batches", "type": "ImportError" / "AttributeError"}`.
- `set_epoch`: `loader.set_epoch(e)`; before 0.24 a prepared DataLoaderShard has none (AttributeError, recorded).

Family `resume` (resume.py's, SCHEMA.md `## resume`): two gloo process groups per case (one process each rank,
also with one process); the first runs the whole uninterrupted training and calls `accelerator.save_state(ckpt)`
after S batches of epoch E (before epoch E's pass when S == 0), the second runs the same start (Accelerator,
set_seed, DataLoader, prepare), `accelerator.load_state(ckpt)`, then epochs E.. skipping by `with`
(`accelerator.skip_first_batches`, AttributeError before 0.16; `continue`; `none`). Whatever a release raises is
the rank's `error` (`where` "first_group" / "second_group"), as resume.py records it.

Loader families (map, iterable, seedable, skip, dispatch) call `Accelerator(cpu=True)` first (see init_state).
Every case runs in forked processes (one process per rank in a gloo group on 127.0.0.1 when multiprocess, else one
child that builds every rank's loader in turn), so no Accelerate singleton survives from one case to the next.
"""
import argparse
import json
import logging
import os
import platform
import shutil
import signal
import socket
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import shims  # noqa: E402  (must come before accelerate)
import goldjson  # noqa: E402
import group_results  # noqa: E402
import resume  # noqa: E402  (the resume family's two trainings, shared with record.py)

import torch  # noqa: E402
import accelerate  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.data_loader import prepare_data_loader  # noqa: E402
from accelerate.utils import gather_object, set_seed  # noqa: E402
from torch.utils.data import DataLoader, Dataset, IterableDataset  # noqa: E402

SCHEMA_VERSION = 1
VERSION = accelerate.__version__

# ----------------------------------------------------------------------------------------------------------------
# The cases (the same for every release). Keys as in SCHEMA.md; `accelerate_version` is added when recording.


def _acc(name, n, b, R, epochs=2, **kw):
    c = {"api": "accelerator", "dataset_kind": kw.pop("kind", "map"), "dataset_len": n, "batch_size": b,
         "drop_last": kw.pop("drop_last", False), "num_processes": R, "shuffle": kw.pop("shuffle", False),
         "epochs": epochs, "schedule": kw.pop("schedule", ["prepared"] * epochs), "set_epoch": kw.pop("set_epoch", None),
         "skip_first_batches": kw.pop("skip", None), "set_seed": kw.pop("set_seed", None),
         "accelerator": kw.pop("accelerator", {}), "multiprocess": R > 1}
    if "generator_seed" in kw:
        c["generator_seed"] = kw.pop("generator_seed")
    if "dataset_generator" in kw:
        c["dataset_generator"] = kw.pop("dataset_generator")
    assert not kw, kw
    return name, c


def _pdl(name, n, b, R, epochs=1, **kw):
    c = {"api": "prepare_data_loader", "dataset_kind": kw.pop("kind", "map"), "dataset_len": n, "batch_size": b,
         "num_processes": R, "drop_last": kw.pop("drop_last", False), "shuffle": kw.pop("shuffle", False)}
    opts = kw.pop("options", {})  # prepare_data_loader keyword arguments, passed only when present
    c.update(opts)
    skip = kw.pop("skip", None)
    if skip is not None:
        c["api"] = "prepare_data_loader+skip_first_batches"
    c.update({"torch_manual_seed": kw.pop("torch_manual_seed", None), "epochs": epochs,
              "schedule": kw.pop("schedule", ["skipped" if skip is not None else "prepared"] * epochs),
              "set_epoch": kw.pop("set_epoch", None), "skip_first_batches": skip,
              "multiprocess": kw.pop("multiprocess", False)})
    assert not kw, kw
    return name, c


def _metrics(name, n, b, R, **kw):
    c = {"api": "accelerator+gather_for_metrics", "dataset_kind": kw.pop("kind", "map"), "dataset_len": n,
         "batch_size": b, "drop_last": kw.pop("drop_last", False), "num_processes": R, "accelerator": kw.pop("accelerator", {}),
         "multiprocess": True, "use_gather_object": False, "break_after": None}
    assert not kw, kw
    return name, c


# The resume family's orders: (shuffle, set_seed, accelerator options), as resume_set.py's "seq", "rand" and
# "seedable-setseed".
RESUME_ORDERS = {
    "seq": (False, None, {}),
    "rand": (True, 42, {}),
    "seedable": (True, 5, {"use_seedable_sampler": True}),
}


def _resume(name, order, R, epoch, step, mode, loop_set_epoch=False, n=23, b=3, epochs=3):
    """A `resume` case, keyed as resume_set.py writes them (golden/cases/resume-*.json)."""
    shuffle, seed, acc = RESUME_ORDERS[order]
    c = {"api": "resume", "dataset_len": n, "batch_size": b, "num_processes": R, "multiprocess": True,
         "shuffle": shuffle, "set_seed": seed, "epochs": epochs}
    if acc:
        c["accelerator"] = dict(acc)
    c["resume"] = {"epoch": epoch, "step": step, "with": mode, "loop_set_epoch": loop_set_epoch}
    return name, c


CASES = dict([
    # accelerator: Accelerator(cpu=True, ...).prepare(DataLoader(...)) as a user script does, gloo groups for R > 1.
    # The acceptance job of issue 29: set_seed(42), DataLoader(range(1001), shuffle=True), 2 processes, 2 epochs.
    _acc("rel-accel-shuffle-n2-b1-l1001-s42", 1001, 1, 2, shuffle=True, set_seed=42),
    _acc("rel-accel-shuffle-n2-b3-l23-s42", 23, 3, 2, epochs=3, shuffle=True, set_seed=42),
    _acc("rel-accel-shuffle-n2-b3-l23-s7", 23, 3, 2, epochs=3, shuffle=True, set_seed=7),
    _acc("rel-accel-shuffle-n3-b2-l20-s42", 20, 2, 3, shuffle=True, set_seed=42),
    _acc("rel-accel-shuffle-n2-b3-l23-s42-setepoch", 23, 3, 2, epochs=3, shuffle=True, set_seed=42,
         set_epoch=[0, 1, 2]),
    _acc("rel-accel-shuffle-n1-b3-l10-s42", 10, 3, 1, shuffle=True, set_seed=42),
    # A user generator: DataLoader(generator=torch.Generator().manual_seed(7)), shared by the loader and its sampler.
    _acc("rel-accel-shuffle-n2-b3-l23-s42-gen7", 23, 3, 2, epochs=3, shuffle=True, set_seed=42, generator_seed=7),
    # An iterable dataset owning a torch.Generator, not dispatched: synchronised from rank 0 (0.14-0.23) or reseeded
    # with the epoch by IterableDatasetShard (0.24+).
    _acc("rel-accel-itergen-n2-b2-l10-nodispatch", 10, 2, 2, epochs=3, kind="iterable", dataset_generator=True,
         set_seed=42, accelerator={"dispatch_batches": False}),
    _acc("rel-accel-seq-n3-b2-l10", 10, 2, 3),
    _acc("rel-accel-seq-n3-b2-l10-noeven", 10, 2, 3, accelerator={"even_batches": False}),
    _acc("rel-accel-iter-n2-b2-l9", 9, 2, 2, epochs=1, kind="iterable"),
    _acc("rel-accel-seedable-n2-b3-l23-s42", 23, 3, 2, epochs=3, shuffle=True, set_seed=42,
         accelerator={"use_seedable_sampler": True}),
    # set_epoch values that are not the loader's own count: reach the sampler inside BatchSamplerShard from 1.7 only.
    _acc("rel-accel-seedable-n2-b3-l23-s42-setepoch-0-0-5", 23, 3, 2, epochs=3, shuffle=True, set_seed=42,
         set_epoch=[0, 0, 5], accelerator={"use_seedable_sampler": True}),
    _acc("rel-accel-seedable-n2-b3-l23-d5", 23, 3, 2, epochs=2, shuffle=True, set_seed=42,
         accelerator={"use_seedable_sampler": True, "data_seed": 5}),
    _acc("rel-accel-skip-n2-b3-l23-k2-s42", 23, 3, 2, epochs=3, shuffle=True, set_seed=42,
         schedule=["prepared", "skipped", "prepared"], skip=2),
    _acc("rel-accel-seedable-skip-n2-b3-l23-k1-s42", 23, 3, 2, epochs=3, shuffle=True, set_seed=42,
         schedule=["prepared", "skipped", "prepared"], skip=1, accelerator={"use_seedable_sampler": True}),
    # map / iterable / seedable / skip: prepare_data_loader(dl, num_processes=R, process_index=r, ...) per rank.
    _pdl("rel-map-n2-b3-l10-even", 10, 3, 2),
    _pdl("rel-map-n2-b3-l10-noeven", 10, 3, 2, options={"even_batches": False}),
    _pdl("rel-map-n3-b2-l10-split", 10, 6, 3, options={"split_batches": True}),
    _pdl("rel-map-n3-b4-l23-drop", 23, 4, 3, drop_last=True),
    _pdl("rel-iter-n2-b2-l9", 9, 2, 2, kind="iterable"),
    _pdl("rel-iter-n3-b2-l10-drop", 10, 2, 3, kind="iterable", drop_last=True),
    _pdl("rel-shuffle-pdl-n2-b3-l23-t42", 23, 3, 2, epochs=2, shuffle=True, torch_manual_seed=42),
    _pdl("rel-seed-n2-b3-l20-t42", 20, 3, 2, epochs=3, shuffle=True, torch_manual_seed=42,
         options={"use_seedable_sampler": True}),
    _pdl("rel-seed-n2-b3-l20-d7", 20, 3, 2, epochs=2, shuffle=True, torch_manual_seed=42,
         options={"use_seedable_sampler": True, "data_seed": 7}),
    _pdl("rel-skip-map-n2-b2-l13-k2", 13, 2, 2, epochs=2, skip=2),
    _pdl("rel-skip-iter-n2-b2-l13-k2", 13, 2, 2, epochs=1, kind="iterable", skip=2),
    # dispatch: DataLoaderDispatcher in gloo groups.
    _pdl("rel-dispatch-map-n2-b2-l9", 9, 2, 2, options={"dispatch_batches": True}, multiprocess=True),
    _pdl("rel-dispatch-iter-n3-b2-l10", 10, 2, 3, kind="iterable", options={"dispatch_batches": True},
         multiprocess=True),
    # metrics: gather_for_metrics / gather every step.
    _metrics("rel-metrics-map-n2-b3-l10", 10, 3, 2),
    _metrics("rel-metrics-map-n3-b2-l11", 11, 2, 3),
    _metrics("rel-metrics-iter-n2-b2-l9", 9, 2, 2, kind="iterable"),
    # remainder 0 (12 % 6): 0.14-0.15 cut the last gathered batch to [:0].
    _metrics("rel-metrics-map-n2-b3-l12", 12, 3, 2),
    # drop_last: before 0.24 the remainder (10 % 6 = 4) is computed anyway and cuts the last full batch.
    _metrics("rel-metrics-map-n2-b3-l10-drop", 10, 3, 2, drop_last=True),
    # resume: save_state after S batches of epoch E, load_state in a fresh gloo group, continue (resume.py's family).
    _resume("rel-resume-seq-n2-e0s2-skip", "seq", 2, 0, 2, "skip_first_batches"),
    _resume("rel-resume-rand-n2-e0s2-skip", "rand", 2, 0, 2, "skip_first_batches"),
    _resume("rel-resume-rand-n2-e1s2-skip", "rand", 2, 1, 2, "skip_first_batches"),
    _resume("rel-resume-rand-n2-e1s2-skip-setepoch", "rand", 2, 1, 2, "skip_first_batches", loop_set_epoch=True),
    _resume("rel-resume-rand-n2-e0s2-continue", "rand", 2, 0, 2, "continue"),
    _resume("rel-resume-rand-n2-e1s1-none", "rand", 2, 1, 1, "none"),
    _resume("rel-resume-rand-n1-e1s2-skip", "rand", 1, 1, 2, "skip_first_batches"),
    _resume("rel-resume-rand-n3-e1s2-skip-setepoch", "rand", 3, 1, 2, "skip_first_batches", loop_set_epoch=True),
    _resume("rel-resume-seedable-n2-e1s2-skip", "seedable", 2, 1, 2, "skip_first_batches"),
    _resume("rel-resume-seedable-n2-e1s2-skip-setepoch", "seedable", 2, 1, 2, "skip_first_batches",
            loop_set_epoch=True),
    _resume("rel-resume-seedable-n2-e0s2-continue", "seedable", 2, 0, 2, "continue"),
])

# prepare_data_loader keyword arguments a config may carry (passed only when present).
PDL_OPTIONS = ("split_batches", "even_batches", "use_seedable_sampler", "data_seed", "dispatch_batches")
# Accelerator options: DataLoaderConfiguration fields where the release has that class (0.28+), else Accelerator
# keyword arguments (as the releases before 0.28 take them).
DATALOADER_CONFIGURATION_FIELDS = ("split_batches", "dispatch_batches", "even_batches", "use_seedable_sampler",
                                   "data_seed", "non_blocking")


def family_of(c):
    api = c["api"]
    if api == "accelerator":
        return "accelerator"
    if api == "accelerator+gather_for_metrics":
        return "metrics"
    if api == "resume":
        return "resume"
    if c.get("dispatch_batches") is True:
        return "dispatch"
    if c.get("skip_first_batches") is not None:
        return "skip"
    if c["dataset_kind"] == "iterable":
        return "iterable"
    if c.get("use_seedable_sampler"):
        return "seedable"
    return "map"


# ----------------------------------------------------------------------------------------------------------------
# Provenance, datasets, helpers


def reference_object():
    versions = {}
    try:
        with open(os.path.join(sys.prefix, "VERSIONS.json")) as f:
            versions = json.load(f)
    except (OSError, ValueError):
        pass
    return {
        "accelerate_version": VERSION,
        "accelerate_commit": None,  # a PyPI wheel carries no commit
        "torch": torch.__version__,
        "torch_package": versions.get("torch_package") if torch.__file__.startswith("/usr/lib/python3/") else None,
        "python": platform.python_version(),
        "shims": list(shims.SHIMS),
        "schema_version": SCHEMA_VERSION,
    }


def error_object(exc, where=None):
    e = {} if where is None else {"where": where}
    e["type"] = type(exc).__name__
    e["message"] = str(exc)
    return e


class RangeDataset(Dataset):
    def __init__(self, n, tensors):
        self.n, self.tensors = n, tensors

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor(i, dtype=torch.int64) if self.tensors else int(i)


class GeneratorIterableDataset(IterableDataset):
    """Owns a torch.Generator (record.py's): yields torch.randperm(n, generator=self.generator) on each pass."""

    def __init__(self, n, tensors):
        self.n, self.tensors = n, tensors
        self.generator = torch.Generator()

    def __len__(self):
        return self.n

    def __iter__(self):
        for v in torch.randperm(self.n, generator=self.generator):
            yield v.clone() if self.tensors else int(v)


class RangeIterableDataset(IterableDataset):
    def __init__(self, n, tensors):
        self.n, self.tensors = n, tensors

    def __len__(self):
        return self.n

    def __iter__(self):
        for i in range(self.n):
            yield torch.tensor(i, dtype=torch.int64) if self.tensors else i


def build_user_dataloader(c, tensors):
    if c.get("torch_manual_seed") is not None:
        torch.manual_seed(c["torch_manual_seed"])
    if c.get("dataset_kind", "map") == "iterable":
        cls = GeneratorIterableDataset if c.get("dataset_generator") else RangeIterableDataset
        return DataLoader(cls(c["dataset_len"], tensors), batch_size=c["batch_size"], drop_last=c["drop_last"])
    generator = None
    if c.get("generator_seed") is not None:
        generator = torch.Generator()
        generator.manual_seed(c["generator_seed"])
    return DataLoader(RangeDataset(c["dataset_len"], tensors), batch_size=c["batch_size"],
                      shuffle=c.get("shuffle", False), drop_last=c.get("drop_last", False), generator=generator)


def batch_ids(batch):
    if isinstance(batch, torch.Tensor):
        return [int(x) for x in batch.reshape(-1).tolist()]
    return [int(x) for x in batch]


def loader_attributes(loader):
    values, errors = {}, {}
    for key, read in (("len", lambda: len(loader)), ("total_batch_size", lambda: loader.total_batch_size),
                      ("total_dataset_length", lambda: loader.total_dataset_length)):
        try:
            values[key] = int(read())
        except Exception as exc:
            values[key] = None
            errors[key] = error_object(exc)
    return values, errors


def yielding_sampler(loader):
    """The sampler whose indices the loader's batches are made of (inside BatchSamplerShard / SkipBatchSampler)."""
    bs = loader.sampler if isinstance(getattr(loader, "sampler", None), torch.utils.data.BatchSampler) else \
        getattr(loader, "batch_sampler", None)
    seen = 0
    while bs is not None and seen < 4:
        inner = getattr(bs, "batch_sampler", None)
        if inner is None:
            return getattr(bs, "sampler", None)
        bs, seen = inner, seen + 1
    return None


def seedable_epoch(loader):
    s = yielding_sampler(loader)
    if s is not None and type(s).__name__ == "SeedableRandomSampler":
        return int(s.epoch)
    return None


def loader_state(loader):
    """end_of_dataloader / remainder: the loader's (0.20+), else GradientState's (where older releases keep them)."""
    if hasattr(type(loader), "end_of_dataloader") or hasattr(loader, "end_of_dataloader"):
        return bool(loader.end_of_dataloader), int(loader.remainder)
    from accelerate.state import GradientState
    gs = GradientState()
    return bool(gs.end_of_dataloader), int(getattr(gs, "remainder", -1))


def library_skip(prepared, k):
    from accelerate.data_loader import skip_first_batches  # ImportError before 0.16: recorded
    return skip_first_batches(prepared, k)


def run_passes(c, prepared, progress=None, skip=library_skip):
    set_epoch = c.get("set_epoch")
    records = []
    for j in range(c["epochs"]):
        role = c["schedule"][j]
        rec = {"epoch": j, "loader": role, "set_epoch": None if set_epoch is None else set_epoch[j]}
        batches, eod, rem, error = [], [], [], None
        loader = prepared
        if role == "skipped":
            try:
                loader = skip(prepared, c["skip_first_batches"])
            except Exception as exc:
                loader, error = None, error_object(exc, "skip_first_batches")
            if loader is not None:
                values, errors = loader_attributes(loader)
                rec["skipped_loader"] = {**values, "attr_errors": errors, "loader_class": type(loader).__name__}
        if loader is not None:
            try:
                if set_epoch is not None:
                    loader.set_epoch(set_epoch[j])
                for batch in loader:
                    batches.append(batch_ids(batch))
                    e, r = loader_state(loader)
                    eod.append(e)
                    rem.append(r)
            except Exception as exc:
                error = error_object(exc, "iterate")
        rec["batches"], rec["end_of_dataloader"], rec["remainder"] = batches, eod, rem
        it = getattr(loader if loader is not None else prepared, "iteration", None)
        rec["iteration_after"] = None if it is None else int(it)
        rec["sampler_epoch_after"] = seedable_epoch(prepared)
        rec["error"] = error
        records.append(rec)
        if progress is not None:
            progress(records)
    return records


def empty_rank_record(rank):
    return {"rank": rank, "loader_class": None, "len": None, "total_batch_size": None, "total_dataset_length": None,
            "attr_errors": {}, "epochs": []}


# ----------------------------------------------------------------------------------------------------------------
# Forked ranks (as record.py's run_group: gloo on 127.0.0.1 when n > 1; one plain child process when n == 1)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_json(path, value):
    with open(path + ".tmp", "w") as f:
        json.dump(value, f)
    os.replace(path + ".tmp", path)


def run_group(n, worker, hang_timeout, distributed=True):
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="accel-sim-releases-")
    pids = {}
    try:
        for rank in range(n):
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    for k in [k for k in os.environ if k.startswith("ACCELERATE_")]:
                        del os.environ[k]
                    if distributed:
                        os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank),
                                           "WORLD_SIZE": str(n), "LOCAL_RANK": str(rank),
                                           "LOCAL_WORLD_SIZE": str(n)})
                    os.environ["OMP_NUM_THREADS"] = "1"
                    torch.set_num_threads(1)
                    out = os.path.join(tmp, f"rank{rank}.json")
                    progress = lambda rec, _p=os.path.join(tmp, f"rank{rank}.partial.json"): _write_json(_p, rec)
                    try:
                        result = worker(rank, progress)
                    except BaseException as exc:
                        result = {"failure": {**error_object(exc, "worker"), "traceback": traceback.format_exc()}}
                    _write_json(out, result)
                    try:
                        if torch.distributed.is_initialized():
                            torch.distributed.destroy_process_group()
                    except Exception:
                        pass
                except BaseException:
                    traceback.print_exc()
                    code = 1
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            pids[rank] = pid
        deadline = time.monotonic() + hang_timeout
        running = dict(pids)
        while running and time.monotonic() < deadline:
            for rank, pid in list(running.items()):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    del running[rank]
            if running:
                time.sleep(0.02)
        hung = set(running)
        for rank, pid in running.items():
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        results = {}
        for rank in range(n):
            path = os.path.join(tmp, f"rank{rank}.json")
            ppath = os.path.join(tmp, f"rank{rank}.partial.json")
            partial = None
            if os.path.exists(ppath):
                with open(ppath) as f:
                    partial = json.load(f)
            if rank in hung:
                results[rank] = {"partial": partial, "failure": {
                    "where": "iterate" if partial is not None else "prepare_data_loader", "type": "Hang",
                    "message": f"rank {rank} was still running after {hang_timeout:g} s (blocked, e.g. in a "
                               "collective the other ranks never joined) and was killed"}}
            elif os.path.exists(path):
                with open(path) as f:
                    results[rank] = json.load(f)
            else:
                results[rank] = {"partial": partial, "failure": {
                    "where": "worker", "type": "Crash", "message": f"rank {rank} exited without a result"}}
            if "traceback" in results[rank].get("failure", {}):
                sys.stderr.write(results[rank]["failure"].pop("traceback"))
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ranks_of(results, n):
    ranks = []
    for r in range(n):
        res = results[r]
        if "record" in res:
            ranks.append(res["record"])
        elif "prepare_error" in res:
            ranks.append({**empty_rank_record(r), "error": res["prepare_error"]})
        else:
            rec = dict(res.get("partial") or empty_rank_record(r))
            rec["error"] = res["failure"]
            ranks.append(rec)
    return ranks


# ----------------------------------------------------------------------------------------------------------------
# Loader families


def pdl_kwargs(c):
    return {k: c[k] for k in PDL_OPTIONS if k in c}


def init_state():
    """Accelerate's shared state (and, in a gloo group, the process group) before prepare_data_loader: releases
    before 0.34 read AcceleratorState() there, which refuses to start without an Accelerator ("Please make sure to
    properly initialize your accelerator via `accelerator = Accelerator()`..."); Accelerator(cpu=True) sets it up in
    every release and draws nothing from torch's generator (record.py does the same for rng_types cases)."""
    Accelerator(cpu=True)


def record_loader_single(c, hang_timeout):
    def child(_rank, _progress):
        init_state()
        n = c["num_processes"]
        ranks = []
        for r in range(n):
            try:
                dl = build_user_dataloader(c, tensors=False)
            except ValueError as exc:
                return {"case_error": error_object(exc, "DataLoader")}
            try:
                prepared = prepare_data_loader(dl, num_processes=n, process_index=r, **pdl_kwargs(c))
            except Exception as exc:
                return {"case_error": error_object(exc, "prepare_data_loader")}
            values, errors = loader_attributes(prepared)
            ranks.append({"rank": r, "loader_class": type(prepared).__name__, **values, "attr_errors": errors,
                          "epochs": run_passes(c, prepared)})
        return {"ranks": ranks}

    res = run_group(1, child, hang_timeout, distributed=False)[0]
    if "case_error" in res:
        return res["case_error"], []
    if "failure" in res:
        return res["failure"], []
    return None, res["ranks"]


def record_loader_multi(c, hang_timeout):
    def worker(rank, progress):
        init_state()
        try:
            dl = build_user_dataloader(c, tensors=True)
        except ValueError as exc:
            return {"prepare_error": error_object(exc, "DataLoader")}
        try:
            prepared = prepare_data_loader(dl, device=torch.device("cpu"), put_on_device=True, **pdl_kwargs(c))
        except Exception as exc:
            return {"prepare_error": error_object(exc, "prepare_data_loader")}
        values, errors = loader_attributes(prepared)
        record = {"rank": rank, "loader_class": type(prepared).__name__, **values, "attr_errors": errors,
                  "epochs": []}
        progress(record)

        def on_pass(epochs):
            record["epochs"] = epochs
            progress(record)

        record["epochs"] = run_passes(c, prepared, on_pass)
        return {"record": record}

    n = c["num_processes"]
    results = run_group(n, worker, hang_timeout)
    error = group_results.case_error(results, n, ())
    if error:
        return error, []
    return None, ranks_of(results, n)


# ----------------------------------------------------------------------------------------------------------------
# Accelerator and metrics families


def make_accelerator(acc):
    kwargs = {"cpu": True}
    fields = {k: acc[k] for k in DATALOADER_CONFIGURATION_FIELDS if k in acc}
    if fields:
        try:
            from accelerate.utils import DataLoaderConfiguration
        except ImportError:
            DataLoaderConfiguration = None
        if DataLoaderConfiguration is not None:
            kwargs["dataloader_config"] = DataLoaderConfiguration(**fields)
        else:
            kwargs.update(fields)  # the release's own Accelerator arguments (TypeError where it has none)
    return Accelerator(**kwargs)


def accelerator_setup(c, rank):
    try:
        accelerator = make_accelerator(c.get("accelerator", {}))
    except Exception as exc:
        return {"accelerator_error": error_object(exc, "Accelerator")}
    if c.get("set_seed") is not None:
        try:
            set_seed(c["set_seed"])
        except Exception as exc:
            return {"seed_error": error_object(exc, "set_seed")}
    try:
        dl = build_user_dataloader(c, tensors=True)
    except ValueError as exc:
        return {"prepare_error": error_object(exc, "DataLoader")}
    try:
        prepared = accelerator.prepare(dl)
    except Exception as exc:
        return {"prepare_error": error_object(exc, "Accelerator.prepare")}
    return accelerator, prepared


def record_accelerator(c, hang_timeout):
    def worker(rank, progress):
        setup = accelerator_setup(c, rank)
        if isinstance(setup, dict):
            return setup
        accelerator, prepared = setup
        values, errors = loader_attributes(prepared)
        record = {"rank": rank, "loader_class": type(prepared).__name__, **values, "attr_errors": errors,
                  "epochs": []}
        progress(record)

        def on_pass(epochs):
            record["epochs"] = epochs
            progress(record)

        def skip(loader, k):
            return accelerator.skip_first_batches(loader, k)  # AttributeError before 0.16: recorded

        record["epochs"] = run_passes(c, prepared, on_pass, skip=skip)
        return {"record": record}

    n = c["num_processes"]
    results = run_group(n, worker, hang_timeout, distributed=n > 1)
    error = group_results.case_error(results, n, ("accelerator_error", "seed_error"))
    if error:
        return error, []
    return None, ranks_of(results, n)


class _Captured(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def record_metrics(c, hang_timeout):
    """record_metrics.py's loop (SCHEMA.md `## metrics`), calling gather_for_metrics(batch) without the
    use_gather_object argument (absent before 0.30; every case here has it false, its default)."""
    def worker(rank, progress):
        setup = accelerator_setup(c, rank)
        if isinstance(setup, dict):
            return setup
        accelerator, prepared = setup
        logger = logging.getLogger("accelerate.accelerator")
        captured = _Captured()
        logger.addHandler(captured)
        logger.setLevel(logging.DEBUG)
        record = {"rank": rank, "loader_class": type(prepared).__name__, "steps": [], "error": None}
        progress(record)
        it = iter(prepared)
        step, in_loop = 0, True
        while True:
            batch = None
            if in_loop:
                try:
                    batch = next(it)
                except StopIteration:
                    in_loop = False
                except Exception as exc:
                    record["error"] = error_object(exc, "iterate")
                    in_loop = False
            sizes = gather_object([None if batch is None else len(batch_ids(batch))])
            if all(s is None for s in sizes):
                break
            if batch is None:
                continue
            left = [r for r, s in enumerate(sizes) if s is None]
            if left:
                record["error"] = {"where": "gather", "type": "Hang", "message":
                                   f"ranks {', '.join(str(r) for r in left)} had no batch at step {step}: the "
                                   "gather never completes"}
                in_loop = False
                continue
            gs = accelerator.gradient_state
            rec = {"step": step, "batch": batch_ids(batch), "end_of_dataloader": bool(gs.end_of_dataloader),
                   "remainder": int(gs.remainder)}
            unequal = len(set(sizes)) > 1
            msg = f"batch sizes per rank {sizes}: gloo's all_gather needs the same size on every rank"
            captured.messages.clear()
            if unequal:
                rec["gather_for_metrics"] = None
                rec["gather_for_metrics_error"] = {"type": "UnequalSizes", "message": msg}
            else:
                try:
                    rec["gather_for_metrics"] = batch_ids(accelerator.gather_for_metrics(batch))
                    rec["gather_for_metrics_error"] = None
                except Exception as exc:
                    rec["gather_for_metrics"] = None
                    rec["gather_for_metrics_error"] = error_object(exc)
            rec["log"] = list(captured.messages)
            if unequal:
                rec["gather"], rec["gather_error"] = None, {"type": "UnequalSizes", "message": msg}
            else:
                rec["gather"], rec["gather_error"] = batch_ids(accelerator.gather(batch)), None
            record["steps"].append(rec)
            progress(record)
            step += 1
        logger.removeHandler(captured)
        return {"record": record}

    n = c["num_processes"]
    results = run_group(n, worker, hang_timeout)
    error = group_results.case_error(results, n, ("accelerator_error", "seed_error"))
    if error:
        return error, []
    ranks = []
    for r in range(n):
        res = results[r]
        if "record" in res:
            ranks.append(res["record"])
        else:
            rec = dict(res.get("partial") or {"rank": r, "loader_class": None, "steps": []})
            rec["error"] = res.get("failure") or res.get("prepare_error")
            ranks.append(rec)
    return None, ranks


# ----------------------------------------------------------------------------------------------------------------
# Resume family: resume.py's two process groups, with only the names every release has


def resume_script_start(c):
    """What both process groups run first: Accelerator(...), set_seed, the user's DataLoader, prepare."""
    accelerator = make_accelerator(c.get("accelerator", {}))
    if c.get("set_seed") is not None:
        set_seed(c["set_seed"])
    dl = build_user_dataloader(c, tensors=True)
    return accelerator, accelerator.prepare(dl)


def resume_first_group(c, ckpt):
    accelerator, dl = resume_script_start(c)
    return {"uninterrupted": resume.uninterrupted_epochs(c, dl, lambda: accelerator.save_state(ckpt), batch_ids)}


def resume_second_group(c, ckpt):
    accelerator, dl = resume_script_start(c)
    accelerator.load_state(ckpt)
    return {"resumed": resume.resumed_epochs(c, accelerator, dl, batch_ids)}


def _resume_guard(fn, c, ckpt):
    try:
        return fn(c, ckpt)
    except Exception as exc:
        return {"error": error_object(exc, fn.__name__[len("resume_"):])}


def record_resume(c, hang_timeout):
    """resume.py's record_resume: (error, ranks); a failure is the rank's `error` (the first group's, else the
    second's), the case's error is null."""
    assert c["resume"]["with"] in ("skip_first_batches", "continue", "none"), c["resume"]
    return None, resume.two_groups(c["num_processes"], run_group, hang_timeout,
                                   lambda rank, ckpt: _resume_guard(resume_first_group, c, ckpt),
                                   lambda rank, ckpt: _resume_guard(resume_second_group, c, ckpt))


# ----------------------------------------------------------------------------------------------------------------


def record(name, config, hang_timeout):
    c = dict(config)
    c["accelerate_version"] = VERSION
    family = family_of(c)
    out = {"case": name, "family": family, "config": c, "reference": reference_object()}
    if family == "accelerator":
        error, ranks = record_accelerator(c, hang_timeout)
    elif family == "metrics":
        error, ranks = record_metrics(c, hang_timeout)
    elif family == "resume":
        error, ranks = record_resume(c, hang_timeout)
    elif c.get("multiprocess"):
        error, ranks = record_loader_multi(c, hang_timeout)
    else:
        error, ranks = record_loader_single(c, hang_timeout)
    out.update(error=error, ranks=ranks)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir")
    p.add_argument("--only", nargs="*", help="record only these cases")
    p.add_argument("--hang-timeout", type=float, default=30.0)
    p.add_argument("--list", action="store_true", help="print the case names and exit")
    args = p.parse_args(argv)
    if args.list:
        print("\n".join(CASES))
        return 0
    os.makedirs(args.outdir, exist_ok=True)
    names = args.only or list(CASES)
    for name in names:
        if name not in CASES:
            print(f"releases_set: unknown case {name}", file=sys.stderr)
            return 2
        t = time.monotonic()
        trace = record(name, CASES[name], args.hang_timeout)
        with open(os.path.join(args.outdir, name + ".json"), "w") as f:
            f.write(goldjson.dumps(trace))
        status = "error " + trace["error"]["type"] if trace["error"] else "ok"
        rank_errors = sorted({r["error"]["type"] for r in trace["ranks"] if r.get("error")} |
                             {e["error"]["type"] for r in trace["ranks"] for e in r.get("epochs", []) if e["error"]})
        if rank_errors:
            status += " (on ranks/passes: " + ", ".join(rank_errors) + ")"
        print(f"{VERSION} {name}: {status} ({time.monotonic() - t:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
