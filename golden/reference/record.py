"""Records a golden-schema trace (golden/SCHEMA.md) by running the real HuggingFace Accelerate.

    record.py [INPUT] [--case NAME] [--hang-timeout SECONDS] [-o OUTPUT]

INPUT is a JSON file holding a `config` object (a golden case file works as is) or `-` / nothing for stdin. The
trace is written to OUTPUT (stdout by default) in the golden files' layout. Exit codes: 0 recorded (a configuration
Accelerate rejects is a recorded trace too), 2 bad input.

Run it with the reference environment's interpreter (golden/record does). Single-process families build, for each
rank, a fresh user DataLoader and call `prepare_data_loader(dl, num_processes=N, process_index=r, ...)` as
Accelerate's own tests do; `multiprocess: true` configs (every `dispatch` case, `sched-dist-*`) run one forked
process per rank in a real gloo group on 127.0.0.1; a rank still running after the hang timeout is killed and
recorded with type "Hang".
"""
import argparse
import itertools
import json
import math
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import shims  # noqa: E402  (must come before accelerate)
import goldjson  # noqa: E402
import group_results  # noqa: E402
from record_metrics import METRICS_API, BadMetricsInput, record_metrics  # noqa: E402

import torch  # noqa: E402
import accelerate  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.data_loader import (  # noqa: E402
    BatchSamplerShard,
    SeedableRandomSampler,
    prepare_data_loader,
    skip_first_batches,
)
from accelerate.optimizer import AcceleratedOptimizer  # noqa: E402
from accelerate.scheduler import AcceleratedScheduler  # noqa: E402
from accelerate.state import AcceleratorState, GradientState, PartialState  # noqa: E402
from accelerate.utils import DataLoaderConfiguration, GradientAccumulationPlugin, set_seed  # noqa: E402
from torch.utils.data import DataLoader, Dataset, IterableDataset, RandomSampler  # noqa: E402

SCHEMA_VERSION = 1
DEFAULT_HANG_TIMEOUT = float(os.environ.get("ACCEL_SIM_HANG_TIMEOUT", "60"))


class BadInput(Exception):
    pass


# ----------------------------------------------------------------------------------------------------------------
# Provenance


def _torch_package():
    """The Debian package that provides the running torch (e.g. "python3-torch 1.13.1+dfsg-4"), or None."""
    versions = os.path.join(sys.prefix, "VERSIONS.json")
    try:
        with open(versions) as f:
            recorded = json.load(f)
        if recorded.get("torch") == torch.__version__ and "torch_package" in recorded:
            return recorded["torch_package"]
    except (OSError, ValueError):
        pass
    if not torch.__file__.startswith("/usr/lib/python3/"):
        return None
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}", "python3-torch"],
                             capture_output=True, text=True, check=True).stdout.strip()
        return out or None
    except (OSError, subprocess.CalledProcessError):
        return None


def reference_object():
    return {
        "accelerate_version": accelerate.__version__,
        # A release installed from PyPI carries no git commit; the golden files were made from a checkout.
        "accelerate_commit": os.environ.get("ACCEL_SIM_ACCELERATE_COMMIT") or None,
        "torch": torch.__version__,
        "torch_package": _torch_package(),
        "python": platform.python_version(),
        "shims": list(shims.SHIMS),
        "schema_version": SCHEMA_VERSION,
    }


def family_of(config):
    """Same rule as trace::family_of in the C++ code."""
    api = config.get("api", "prepare_data_loader")
    if api == "accelerator":
        return "accelerator"
    if api == "resume":
        return "resume"
    if api == METRICS_API:
        return "metrics"
    if api.startswith("Accelerator.prepare") or api.startswith("AcceleratedScheduler"):
        return "scheduler"
    if api == "BatchSamplerShard":
        return "bss_varying"
    if api == "SeedableRandomSampler":
        return "randperm"
    if config.get("dispatch_batches") is True:
        return "dispatch"
    if config.get("skip_first_batches") is not None:
        return "skip"
    if config.get("dataset_kind", "map") == "iterable":
        return "iterable"
    if config.get("dataset_kind", "map") in ("hf-iterable", "hf-map"):
        return "hf"
    if config.get("use_seedable_sampler") is True:
        return "seedable"
    return "map"


def error_object(exc, where=None):
    e = {}
    if where is not None:
        e["where"] = where
    e["type"] = type(exc).__name__
    e["message"] = str(exc)
    return e


# ----------------------------------------------------------------------------------------------------------------
# Datasets whose sample i is i (a 0-d int64 tensor in multi-process runs, as the golden files describe)


class RangeDataset(Dataset):
    def __init__(self, n, tensors):
        self.n = n
        self.tensors = tensors

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor(i, dtype=torch.int64) if self.tensors else int(i)


def split_by_worker(stream, n, split):
    """The part of the stream this DataLoader worker keeps (config.worker_split), as a dataset using
    torch.utils.data.get_worker_info() does: none, every worker yields all of it; strided,
    islice(stream, worker_id, None, num_workers); contiguous, torch's documented per-worker block."""
    info = torch.utils.data.get_worker_info()
    if info is None or split == "none":
        return stream
    if split == "strided":
        return itertools.islice(stream, info.id, None, info.num_workers)
    per = int(math.ceil(n / float(info.num_workers)))
    begin = min(n, info.id * per)
    return itertools.islice(stream, begin, min(begin + per, n))


class RangeIterableDataset(IterableDataset):
    def __init__(self, n, tensors, worker_split="none"):
        self.n = n
        self.tensors = tensors
        self.worker_split = worker_split

    def __len__(self):
        return self.n

    def __iter__(self):
        for i in split_by_worker(iter(range(self.n)), self.n, self.worker_split):
            yield torch.tensor(i, dtype=torch.int64) if self.tensors else i


class GeneratorIterableDataset(IterableDataset):
    """Owns a torch.Generator (and no set_epoch), so IterableDatasetShard reseeds it with the epoch."""

    def __init__(self, n, tensors, worker_split="none"):
        self.n = n
        self.tensors = tensors
        self.worker_split = worker_split
        self.generator = torch.Generator()

    def __len__(self):
        return self.n

    def __iter__(self):
        perm = torch.randperm(self.n, generator=self.generator)
        for v in split_by_worker(iter(perm), self.n, self.worker_split):
            yield v.clone() if self.tensors else int(v)


def hf_iterable_dataset(c, rank):
    """A HuggingFace datasets.IterableDataset (config.dataset_kind "hf-iterable"), built locally: from_generator over
    gen_kwargs {"shards": [...]}, shard s yielding {"id": ...} for the ids offset(s) .. offset(s) + size(s) - 1;
    then config.hf_shuffle (IterableDataset.shuffle) and, with config.split_by_node, split_dataset_by_node(rank,
    num_processes) as the script would call it on every rank before prepare."""
    import datasets
    from datasets.distributed import split_dataset_by_node
    sizes = c["shard_sizes"]
    offsets = [sum(sizes[:s]) for s in range(len(sizes))]

    def gen(shards):
        for s in shards:
            for k in range(sizes[s]):
                yield {"id": offsets[s] + k}

    want = c.get("datasets_version")
    if want is not None and not datasets.__version__.startswith(want + ".") and datasets.__version__ != want:
        print(f"record: note: config.datasets_version is {want!r} but the reference runs datasets "
              f"{datasets.__version__}", file=sys.stderr)
    datasets.disable_progress_bars()
    ds = datasets.IterableDataset.from_generator(gen, gen_kwargs={"shards": list(range(len(sizes)))})
    sh = c.get("hf_shuffle")
    if sh is not None:
        extra = {"max_buffer_input_shards": sh["max_buffer_input_shards"]} if "max_buffer_input_shards" in sh else {}
        ds = ds.shuffle(seed=sh["seed"], buffer_size=sh["buffer_size"], **extra)
    if c.get("split_by_node"):
        ds = split_dataset_by_node(ds, rank=rank, world_size=c["num_processes"])
    return ds


def hf_map_dataset(c):
    """A map-style HuggingFace datasets.Dataset (config.dataset_kind "hf-map"): Dataset.from_dict({"id": 0..n-1}),
    shuffled with .shuffle(seed=config.hf_shuffle.seed) when given (an index map drawn by numpy)."""
    import datasets
    datasets.disable_progress_bars()
    ds = datasets.Dataset.from_dict({"id": list(range(c["dataset_len"]))})
    if c.get("hf_shuffle") is not None:
        ds = ds.shuffle(seed=c["hf_shuffle"]["seed"])
    return ds


def batch_ids(batch):
    if isinstance(batch, dict):  # a datasets example batch: its "id" column
        batch = batch["id"]
    if isinstance(batch, torch.Tensor):
        return [int(x) for x in batch.reshape(-1).tolist()]
    return [int(x) for x in batch]


# ----------------------------------------------------------------------------------------------------------------
# Data-loader families: map, iterable, seedable, skip, dispatch


def check_loader_config(c):
    required = ["dataset_len", "batch_size", "num_processes"]
    for k in required:
        if not isinstance(c.get(k), int) or isinstance(c.get(k), bool):
            raise BadInput(f"config.{k}: is required (an integer)")
    if c.get("dataset_kind", "map") not in ("map", "iterable", "hf-iterable", "hf-map"):
        raise BadInput('config.dataset_kind: must be "map", "iterable", "hf-iterable" or "hf-map"')
    mesh = c.get("device_mesh")
    if mesh is not None:
        if not isinstance(mesh, list) or not mesh or any(
                not (isinstance(d, list) and len(d) == 2 and isinstance(d[0], str) and _is_int(d[1]) and d[1] >= 1)
                for d in mesh):
            raise BadInput('config.device_mesh: must be a non-empty list of [name, size >= 1], outermost first')
        size = 1
        for _, n in mesh:
            size *= n
        if size != c["num_processes"]:
            raise BadInput(f"config.device_mesh: its sizes multiply to {size}, not num_processes "
                           f"({c['num_processes']})")
        if not c.get("multiprocess"):
            raise BadInput("config.device_mesh: needs multiprocess (a DeviceMesh spans a real process group)")
    tv = c.get("torch_version")
    if tv is not None:
        major, minor = (int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
        # "2.6" stands for every torch from 2.6 on (the simulator's two randperm loops: 1.13 .. 2.5, and >= 2.6).
        if not ((tv == "1.13" and major < 2) or (tv == "2.6" and (major, minor) >= (2, 6))):
            print(f"record: note: config.torch_version is {tv!r} but the reference runs torch {torch.__version__}; "
                  "torch's randperm differs between them only for n >= 214,748,364", file=sys.stderr)
    if c.get("shuffle") and c.get("torch_manual_seed") is None and (
            (c.get("use_seedable_sampler") and c.get("data_seed") is None)
            or (not c.get("use_seedable_sampler") and c.get("generator_seed") is None)):
        # torch seeds its default CPU generator from the OS at start-up, so this order is one random draw.
        what = ("SeedableRandomSampler's seed is torch.initial_seed()" if c.get("use_seedable_sampler") else
                "prepare_data_loader seeds the sampler's generator from torch's global generator")
        print(f"record: note: shuffle with no data_seed/torch_manual_seed: {what}, which torch draws from the OS "
              f"at start-up ({torch.initial_seed()} in this run), so this order changes from run to run",
              file=sys.stderr)


def epochs_of(c):
    epochs = c.get("epochs", 1)
    schedule = c.get("schedule")
    if schedule is None:
        schedule = ["skipped" if c.get("skip_first_batches") is not None else "prepared"] * epochs
    if len(schedule) != epochs:
        raise BadInput("config.schedule: must have `epochs` entries")
    set_epoch = c.get("set_epoch")
    if set_epoch is not None and len(set_epoch) != epochs:
        raise BadInput("config.set_epoch: must have `epochs` entries")
    return epochs, schedule, set_epoch


class SeedRefused(Exception):
    """torch.manual_seed refused the script's seed (+ rank), before the DataLoader or Accelerate ran."""

    def __init__(self, exc):
        super().__init__(str(exc))
        self.exc = exc


def worker_kwargs(c):
    """DataLoader(num_workers=..., persistent_workers=..., prefetch_factor=..., in_order=...) as the config gives
    them; in_order only where this torch has it (2.6+)."""
    kw = {}
    if c.get("num_workers"):
        kw["num_workers"] = c["num_workers"]
    if c.get("persistent_workers"):
        kw["persistent_workers"] = True
    if c.get("prefetch_factor") is not None:
        kw["prefetch_factor"] = c["prefetch_factor"]
    if c.get("in_order") is not None:
        kw["in_order"] = c["in_order"]
    return kw


def build_user_dataloader(c, tensors, rank=0):
    n = c["dataset_len"]
    workers = worker_kwargs(c)
    if c.get("torch_manual_seed") is not None:
        # seed_per_rank: each process called set_seed(seed + process_index).
        try:
            torch.manual_seed(c["torch_manual_seed"] + (rank if c.get("seed_per_rank") else 0))
        except (RuntimeError, ValueError) as exc:  # 1.13 raises RuntimeError, torch 2 ValueError
            raise SeedRefused(exc)
    if c.get("dataset_kind", "map") == "hf-iterable":
        return DataLoader(hf_iterable_dataset(c, rank), batch_size=c["batch_size"], drop_last=c.get("drop_last", False),
                          **workers)
    if c.get("dataset_kind", "map") == "iterable":
        split = c.get("worker_split", "none")
        ds = (GeneratorIterableDataset(n, tensors, split) if c.get("dataset_generator")
              else RangeIterableDataset(n, tensors, split))
        if c.get("shuffle"):
            return DataLoader(ds, batch_size=c["batch_size"], drop_last=c.get("drop_last", False), shuffle=True,
                              **workers)
        return DataLoader(ds, batch_size=c["batch_size"], drop_last=c.get("drop_last", False), **workers)
    ds = hf_map_dataset(c) if c.get("dataset_kind") == "hf-map" else RangeDataset(n, tensors)
    generator = None
    if c.get("generator_seed") is not None:
        generator = torch.Generator()
        generator.manual_seed(c["generator_seed"])
    if c.get("shuffle") and (c.get("replacement") or c.get("num_samples") is not None):
        sampler = RandomSampler(ds, replacement=bool(c.get("replacement")), num_samples=c.get("num_samples"),
                                generator=generator)
        return DataLoader(ds, batch_size=c["batch_size"], sampler=sampler, drop_last=c.get("drop_last", False),
                          generator=generator, **workers)
    return DataLoader(ds, batch_size=c["batch_size"], shuffle=bool(c.get("shuffle")),
                      drop_last=c.get("drop_last", False), generator=generator, **workers)


def loader_attributes(loader):
    values = {}
    errors = {}
    readers = [("len", lambda: len(loader)),
               ("total_batch_size", lambda: loader.total_batch_size),
               ("total_dataset_length", lambda: loader.total_dataset_length)]
    for key, read in readers:
        try:
            values[key] = int(read())
        except Exception as exc:  # recorded, as Accelerate raised it
            values[key] = None
            errors[key] = error_object(exc)
    return values, errors


def seedable_sampler_of(loader):
    try:
        sampler = loader.get_sampler()
    except Exception:
        return None
    return sampler if isinstance(sampler, SeedableRandomSampler) else None


def run_passes(c, prepared, progress=None, skip=skip_first_batches):
    """The rank record's epochs: each pass of the schedule over the prepared or a freshly skipped loader
    (`skip(prepared, k)` makes the skipped one: accelerate.data_loader.skip_first_batches, or an Accelerator's)."""
    epochs, schedule, set_epoch = epochs_of(c)
    sampler = seedable_sampler_of(prepared)
    records = []
    for j in range(epochs):
        role = schedule[j]
        rec = {"epoch": j, "loader": role, "set_epoch": None if set_epoch is None else set_epoch[j]}
        batches, eod, rem = [], [], []
        error = None
        loader = prepared
        if role == "skipped":
            try:
                loader = skip(prepared, c["skip_first_batches"])
            except Exception as exc:
                loader = None
                error = error_object(exc, "skip_first_batches")
            if loader is not None:
                values, errors = loader_attributes(loader)
                rec["skipped_loader"] = {**values, "attr_errors": errors, "loader_class": type(loader).__name__}
        elif role != "prepared":
            raise BadInput(f'config.schedule: entries must be "prepared" or "skipped", got {role!r}')
        if loader is not None:
            try:
                if set_epoch is not None:
                    loader.set_epoch(set_epoch[j])
                for batch in loader:
                    batches.append(batch_ids(batch))
                    eod.append(bool(loader.end_of_dataloader))
                    rem.append(int(loader.remainder))
            except Exception as exc:
                error = error_object(exc, "iterate")
        rec["batches"] = batches
        rec["end_of_dataloader"] = eod
        rec["remainder"] = rem
        rec["iteration_after"] = int((loader if loader is not None else prepared).iteration)
        rec["sampler_epoch_after"] = int(sampler.epoch) if sampler is not None else None
        rec["error"] = error
        records.append(rec)
        if progress is not None:
            progress(records)
    return records


def rank_record(rank, prepared, epochs):
    values, errors = loader_attributes(prepared)
    return {"rank": rank, "loader_class": type(prepared).__name__, **values, "attr_errors": errors,
            "epochs": epochs}


def record_loader_single(c):
    n = c["num_processes"]
    ranks = []
    for r in range(n):
        try:
            dl = build_user_dataloader(c, tensors=False, rank=r)
        except SeedRefused as refused:
            return error_object(refused.exc, "torch.manual_seed"), []
        except ValueError as exc:  # torch's DataLoader / RandomSampler refused the user's loader
            return error_object(exc, "DataLoader"), []
        kwargs = dict(num_processes=n, process_index=r, split_batches=c.get("split_batches", False),
                      even_batches=c.get("even_batches", True),
                      use_seedable_sampler=c.get("use_seedable_sampler", False), data_seed=c.get("data_seed"),
                      dispatch_batches=c.get("dispatch_batches"))
        if c.get("put_on_device"):
            kwargs.update(device=torch.device("cpu"), put_on_device=True)
        try:
            prepared = prepare_data_loader(dl, **kwargs)
        except Exception as exc:
            return error_object(exc, "prepare_data_loader"), []
        values, errors = loader_attributes(prepared)
        record = {"rank": r, "loader_class": type(prepared).__name__, **values, "attr_errors": errors}
        record["epochs"] = run_passes(c, prepared)
        ranks.append(record)
    return None, ranks


def loader_worker(c, rank, progress):
    """One rank of a multi-process run: N and the rank come from the gloo group."""
    PartialState(cpu=True)
    if c.get("rng_types"):
        # synchronize_rng_states reads AcceleratorState, which an Accelerator would have set up.
        Accelerator(cpu=True)
    try:
        dl = build_user_dataloader(c, tensors=True, rank=rank)
    except SeedRefused as refused:
        return {"seed_error": error_object(refused.exc, "torch.manual_seed")}
    except ValueError as exc:
        return {"prepare_error": error_object(exc, "DataLoader")}
    rng_types = list(c["rng_types"]) if c.get("rng_types") else None
    mesh = None
    if c.get("device_mesh"):
        # The user's own DeviceMesh, as init_device_mesh lays it out (last dimension innermost).
        from torch.distributed.device_mesh import init_device_mesh
        mesh = init_device_mesh("cpu", tuple(n for _, n in c["device_mesh"]),
                                mesh_dim_names=tuple(name for name, _ in c["device_mesh"]))
    try:
        # Multiprocess golden cases put batches on the device; a config may say otherwise.
        put_on_device = c.get("put_on_device", True) if c.get("put_on_device") is not None else True
        prepared = prepare_data_loader(dl, device=torch.device("cpu"), put_on_device=put_on_device,
                                       split_batches=c.get("split_batches", False),
                                       even_batches=c.get("even_batches", True),
                                       use_seedable_sampler=c.get("use_seedable_sampler", False),
                                       data_seed=c.get("data_seed"), rng_types=rng_types,
                                       dispatch_batches=c.get("dispatch_batches"),
                                       **({"torch_device_mesh": mesh} if mesh is not None else {}))
    except Exception as exc:
        return {"prepare_error": error_object(exc, "prepare_data_loader")}
    values, errors = loader_attributes(prepared)
    record = {"rank": rank, "loader_class": type(prepared).__name__, **values, "attr_errors": errors, "epochs": []}
    progress(record)

    def on_pass(epochs):
        record["epochs"] = epochs
        progress(record)

    record["epochs"] = run_passes(c, prepared, on_pass)
    return {"record": record}


def empty_rank_record(rank):
    return {"rank": rank, "loader_class": None, "len": None, "total_batch_size": None, "total_dataset_length": None,
            "attr_errors": {}, "epochs": []}


def record_loader_multi(c, hang_timeout):
    n = c["num_processes"]
    results = run_group(n, lambda rank, progress: loader_worker(c, rank, progress), hang_timeout)
    # torch.manual_seed refusing a rank's seed fails the job there, whatever the other ranks then do.
    error = group_results.case_error(results, n, ("seed_error",))
    if error:
        return error, []
    ranks = []
    for r in range(n):
        res = results[r]
        if "record" in res:
            ranks.append(res["record"])
        elif "prepare_error" in res:
            ranks.append({**empty_rank_record(r), "error": res["prepare_error"]})
        else:  # hung or crashed: what it had recorded so far, and why it stopped
            rec = res.get("partial") or empty_rank_record(r)
            rec = dict(rec)
            rec["error"] = res["failure"]
            ranks.append(rec)
    return None, ranks


# ----------------------------------------------------------------------------------------------------------------
# Multi-process runs: forked ranks in a gloo group on 127.0.0.1


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_json(path, value):
    tmp = path + ".tmp"
    with open(path + ".tmp", "w") as f:
        json.dump(value, f)
    os.replace(tmp, path)


def run_group(n, worker, hang_timeout):
    """Forks n ranks (from this process, in which torch has run nothing yet), each running worker(rank, progress)
    in a gloo group; returns {rank: result}. A rank still running after hang_timeout seconds is killed: its result
    is {"partial": last progress, "failure": {"where", "type": "Hang", "message"}}."""
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="accel-sim-record-")
    pids = {}
    try:
        for rank in range(n):
            pid = os.fork()
            if pid == 0:  # the rank
                code = 0
                try:
                    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank),
                                       "WORLD_SIZE": str(n), "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": str(n),
                                       "OMP_NUM_THREADS": "1"})
                    torch.set_num_threads(1)
                    out = os.path.join(tmp, f"rank{rank}.json")
                    progress = lambda rec, _p=os.path.join(tmp, f"rank{rank}.partial.json"): _write_json(_p, rec)
                    try:
                        result = worker(rank, progress)
                    except BaseException as exc:  # an unexpected failure of this rank, reported, not hidden
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
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done:
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
            partial_path = os.path.join(tmp, f"rank{rank}.partial.json")
            partial = None
            if os.path.exists(partial_path):
                with open(partial_path) as f:
                    partial = json.load(f)
            if rank in hung:
                results[rank] = {"partial": partial, "failure": {
                    "where": "iterate" if partial is not None else "prepare_data_loader", "type": "Hang",
                    "message": f"rank {rank} was still running after {hang_timeout:g} s (blocked, e.g. in a collective the "
                               "other ranks never joined) and was killed"}}
            elif os.path.exists(path):
                with open(path) as f:
                    results[rank] = json.load(f)
            else:
                results[rank] = {"partial": partial, "failure": {
                    "where": "worker", "type": "Crash", "message": f"rank {rank} exited without a result"}}
            if "failure" in results[rank] and "traceback" in results[rank]["failure"]:
                sys.stderr.write(results[rank]["failure"].pop("traceback"))
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------------------------------------------
# bss_varying and randperm


class DropLastBatches:
    """An explicit list of batches with a `drop_last` attribute that is true (and no batch_size)."""

    def __init__(self, batches):
        self.batches = batches
        self.drop_last = True

    def __iter__(self):
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)


def record_bss(c):
    batches = [list(b) for b in c["batch_sampler"]]
    n = c["num_processes"]
    ranks = []
    for r in range(n):
        source = DropLastBatches(batches) if c.get("drop_last") else batches
        try:
            shard = BatchSamplerShard(source, num_processes=n, process_index=r,
                                      split_batches=c.get("split_batches", False),
                                      even_batches=c.get("even_batches", True))
        except Exception as exc:
            return error_object(exc, "BatchSamplerShard"), []
        attr_errors = {}
        try:
            length = int(len(shard))
        except Exception as exc:
            length = None
            attr_errors["len"] = error_object(exc)
        epochs = []
        for j in range(c.get("epochs", 1)):
            got, error = [], None
            try:
                for b in shard:
                    got.append([int(x) for x in b])
            except Exception as exc:
                error = error_object(exc, "iterate")
            epochs.append({"epoch": j, "batches": got, "error": error})
        ranks.append({"rank": r, "len": length, "attr_errors": attr_errors, "epochs": epochs})
    return None, ranks


def record_randperm(c):
    n, seed = c["n"], c["data_seed"]
    sampler = SeedableRandomSampler(data_source=range(n), data_seed=seed)
    epochs = [{"epoch": j, "permutation": [int(i) for i in sampler]} for j in range(c.get("epochs", 1))]
    g = torch.Generator()
    g.manual_seed(seed)
    return epochs, [int(i) for i in torch.randperm(n, generator=g).tolist()]


# ----------------------------------------------------------------------------------------------------------------
# scheduler


def make_torch_scheduler(spec, optimizer):
    kind = spec["kind"]
    if kind == "linear_warmup":
        w, t = spec["warmup_steps"], spec["training_steps"]

        def f(s):
            if s < w:
                return float(s) / float(max(1, w))
            return max(0.0, float(t - s) / float(max(1, t - w)))
        return torch.optim.lr_scheduler.LambdaLR(optimizer, f)
    if kind == "step":
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=spec["step_size"], gamma=spec["gamma"])
    if kind == "onecycle_linear":
        return torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=spec["max_lr"], total_steps=spec["total_steps"], pct_start=spec["pct_start"],
            anneal_strategy="linear", cycle_momentum=False, div_factor=spec["div_factor"],
            final_div_factor=spec["final_div_factor"], three_phase=False)
    raise BadInput(f'config.scheduler.kind: must be "linear_warmup", "step" or "onecycle_linear", got {kind!r}')


def sched_snapshot(torch_sched):
    return {"last_epoch": int(torch_sched.last_epoch), "step_count": int(torch_sched._step_count),
            "lr": float(torch_sched.get_last_lr()[0])}


def write_world_size(n):
    """Single-process scheduler runs: the world size written into Accelerate's shared state."""
    PartialState._shared_state["num_processes"] = n
    AcceleratorState._shared_state["num_processes"] = n


def sched_loop_rank(c, rank, multiprocess):
    plugin = GradientAccumulationPlugin(num_steps=c["gradient_accumulation_steps"],
                                        adjust_scheduler=c["adjust_scheduler"],
                                        sync_with_dataloader=c["sync_with_dataloader"])
    accelerator = Accelerator(cpu=True, gradient_accumulation_plugin=plugin,
                              step_scheduler_with_optimizer=c["step_with_optimizer"],
                              dataloader_config=DataLoaderConfiguration(split_batches=c["split_batches"]))
    if not multiprocess:
        write_world_size(c["num_processes"])
    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=c["scheduler"]["base_lr"])
    scheduler = make_torch_scheduler(c["scheduler"], optimizer)
    if c.get("dataset_len") is not None:
        dl = DataLoader(RangeDataset(c["dataset_len"], tensors=multiprocess), batch_size=c["batch_size"])
        if c.get("parallelism_config"):
            # Accelerator(parallelism_config=...)'s loader, as accelerator_setup makes it (the real Accelerator refuses
            # ParallelismConfig on CPU); the model, optimizer and scheduler go through accelerator.prepare.
            if not multiprocess:
                raise BadInput("config.parallelism_config: needs multiprocess (a DeviceMesh spans a process group)")
            dl = prepare_with_parallelism(accelerator, dl, parallelism_mesh(c["parallelism_config"]))
            model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
        else:
            model, optimizer, dl, scheduler = accelerator.prepare(model, optimizer, dl, scheduler)
        dataloader_len = len(dl)
    else:
        model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
        dl, dataloader_len = None, None
    gs = accelerator.gradient_state
    inner = scheduler.scheduler
    record = {
        "rank": rank,
        "effective": {
            "gradient_state_num_steps": gs.num_steps,
            "gradient_state_adjust_scheduler": gs.adjust_scheduler,
            "gradient_state_sync_with_dataloader": gs.sync_with_dataloader,
            "accelerator_state_num_processes": AcceleratorState().num_processes,
        },
        "dataloader_len": dataloader_len,
        "initial": sched_snapshot(inner),
    }
    skipped = set(c.get("skipped_micro_steps", []))
    steps, error = [], None
    micro = 0
    for epoch in range(c["epochs"]):
        source = dl if dl is not None else range(c["micro_steps_per_epoch"])
        for batch_index, _ in enumerate(source):
            with accelerator.accumulate(model):
                optimizer.step()
                optimizer._is_overflow = micro in skipped  # what a GradScaler overflow leaves behind
                before = inner.last_epoch
                try:
                    scheduler.step()
                except Exception as exc:
                    error = {"micro_step": micro, **error_object(exc, "scheduler.step")}
                snap = sched_snapshot(inner)
                steps.append({"micro_step": micro, "epoch": epoch, "batch_index": batch_index,
                              "sync_gradients": bool(accelerator.sync_gradients),
                              "end_of_dataloader": bool(gs.end_of_dataloader),
                              "step_was_skipped": bool(optimizer.step_was_skipped),
                              "scheduler_calls": snap["last_epoch"] - before, **snap})
                if error is None:
                    optimizer.zero_grad()
            micro += 1
            if error is not None:
                break
        if error is not None:
            break
    record["steps"] = steps
    record["error"] = error
    return record


def sched_direct(c):
    Accelerator(cpu=True)
    write_world_size(c["num_processes"])
    gs = GradientState()
    gs.plugin_kwargs = {**gs.plugin_kwargs, "adjust_scheduler": c["adjust_scheduler"]}
    base = torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=c["scheduler"]["base_lr"])
    inner = make_torch_scheduler(c["scheduler"], base)
    optimizer = AcceleratedOptimizer(base)
    scheduler = AcceleratedScheduler(inner, optimizer, step_with_optimizer=c["step_with_optimizer"],
                                     split_batches=c["split_batches"])
    record = {"rank": 0,
              "effective": {"gradient_state_adjust_scheduler": gs.adjust_scheduler,
                            "accelerator_state_num_processes": AcceleratorState().num_processes},
              "initial": sched_snapshot(inner)}
    skipped = set(c.get("skipped_micro_steps", []))
    steps, error = [], None
    for k, sync in enumerate(c["sync_pattern"]):
        gs._set_sync_gradients(bool(sync))
        optimizer.step()
        optimizer._is_overflow = k in skipped
        before = inner.last_epoch
        try:
            scheduler.step()
        except Exception as exc:
            error = {"micro_step": k, **error_object(exc, "scheduler.step")}
        snap = sched_snapshot(inner)
        steps.append({"micro_step": k, "sync_gradients": bool(gs.sync_gradients),
                      "step_was_skipped": bool(optimizer.step_was_skipped),
                      "scheduler_calls": snap["last_epoch"] - before, **snap})
        if error is not None:
            break
    record["steps"] = steps
    record["error"] = error
    return record


def record_scheduler(c, hang_timeout):
    if c.get("api") == "AcceleratedScheduler.step(direct)":
        return [sched_direct(c)]
    if not c.get("multiprocess"):
        return [sched_loop_rank(c, 0, multiprocess=False)]
    n = c["num_processes"]
    results = run_group(n, lambda rank, progress: {"record": sched_loop_rank(c, rank, multiprocess=True)},
                        hang_timeout)
    ranks = []
    for r in range(n):
        res = results[r]
        ranks.append(res["record"] if "record" in res else {"rank": r, "error": res["failure"]})
    return ranks


# ----------------------------------------------------------------------------------------------------------------
# accelerator: Accelerator(...).prepare(user_dataloader), as a user script calls it

ACCELERATOR_CONFIG_KEYS = ("api", "dataset_kind", "dataset_len", "batch_size", "num_processes", "drop_last",
                           "shuffle", "generator_seed", "dataset_generator", "epochs", "schedule", "set_epoch",
                           "skip_first_batches", "set_seed", "set_seed_device_specific", "accelerator",
                           "multiprocess", "torch_version", "model_before_prepare", "global_rng_draws",
                           "global_rng_state", "num_workers", "worker_split", "persistent_workers",
                           "prefetch_factor", "in_order", "shard_sizes", "hf_shuffle", "split_by_node",
                           "datasets_version")
# config.accelerator keys that are Accelerator(...) arguments; the others are DataLoaderConfiguration fields.
ACCELERATOR_KWARGS = ("device_placement", "rng_types")
DATALOADER_CONFIGURATION_FIELDS = ("split_batches", "dispatch_batches", "even_batches", "use_seedable_sampler",
                                   "data_seed", "non_blocking", "use_stateful_dataloader")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_accelerator_config(c):
    unknown = sorted(set(c) - set(ACCELERATOR_CONFIG_KEYS))
    if unknown:
        raise BadInput(f"config.{unknown[0]}: not a key of the accelerator family")
    for k in ("dataset_len", "batch_size", "num_processes"):
        if not _is_int(c.get(k)):
            raise BadInput(f"config.{k}: is required (an integer)")
    if c["num_processes"] < 1:
        raise BadInput("config.num_processes: must be at least 1")
    if c.get("dataset_kind", "map") not in ("map", "iterable", "hf-iterable", "hf-map"):
        raise BadInput('config.dataset_kind: must be "map", "iterable", "hf-iterable" or "hf-map"')
    for k in ("drop_last", "shuffle", "dataset_generator", "set_seed_device_specific", "multiprocess"):
        if k in c and not isinstance(c[k], bool):
            raise BadInput(f"config.{k}: must be true or false")
    for k in ("generator_seed", "set_seed", "skip_first_batches"):
        if c.get(k) is not None and not _is_int(c[k]):
            raise BadInput(f"config.{k}: must be an integer or null")
    # shuffle=True on an iterable dataset is passed on: torch's DataLoader refuses it, and that is recorded.
    if c.get("dataset_kind", "map") == "iterable" and c.get("generator_seed") is not None:
        raise BadInput("config.generator_seed: applies to map-style datasets only")
    if c.get("dataset_kind", "map") == "map" and c.get("dataset_generator"):
        raise BadInput("config.dataset_generator: applies to iterable datasets only")
    if c.get("set_seed_device_specific") and c.get("set_seed") is None:
        raise BadInput("config.set_seed_device_specific: needs config.set_seed")
    if c["num_processes"] > 1 and not c.get("multiprocess"):
        raise BadInput("config.multiprocess: must be true when num_processes > 1 (an Accelerator's ranks are "
                       "real processes)")
    acc = c.get("accelerator", {})
    if not isinstance(acc, dict):
        raise BadInput("config.accelerator: must be an object")
    unknown = sorted(set(acc) - set(ACCELERATOR_KWARGS) - set(DATALOADER_CONFIGURATION_FIELDS) - {"parallelism_config"})
    if unknown:
        raise BadInput(f"config.accelerator.{unknown[0]}: not an Accelerator / DataLoaderConfiguration option "
                       "the recorder knows")
    for k in ("device_placement", "split_batches", "even_batches", "use_seedable_sampler", "non_blocking"):
        if k in acc and not isinstance(acc[k], bool):
            raise BadInput(f"config.accelerator.{k}: must be true or false")
    if "dispatch_batches" in acc and acc["dispatch_batches"] is not None and not isinstance(acc["dispatch_batches"],
                                                                                         bool):
        raise BadInput("config.accelerator.dispatch_batches: must be true, false or null")
    if acc.get("data_seed") is not None and not _is_int(acc["data_seed"]):
        raise BadInput("config.accelerator.data_seed: must be an integer or null")
    rng = acc.get("rng_types")
    if rng is not None and (not isinstance(rng, list) or any(not isinstance(t, str) for t in rng)):
        raise BadInput("config.accelerator.rng_types: must be null or a list of strings")
    pc = acc.get("parallelism_config")
    if pc is not None:
        if not isinstance(pc, dict) or sorted(set(pc) - set(PARALLELISM_SIZES)) or any(
                not _is_int(v) or v < 1 for v in pc.values()):
            raise BadInput("config.accelerator.parallelism_config: must be an object of sizes >= 1 among "
                           + ", ".join(PARALLELISM_SIZES))
        total = 1
        for v in pc.values():
            total *= v
        if total != c["num_processes"]:
            raise BadInput("config.accelerator.parallelism_config: the recorder takes only configs whose sizes "
                           "multiply to num_processes (the others are ParallelismConfig's ValueError, modelled "
                           "from the source)")
    epochs_of(c)  # schedule / set_epoch lengths
    if c.get("model_before_prepare") not in (None, *MODELS_BEFORE_PREPARE):
        raise BadInput(f"config.model_before_prepare: must be null or one of {', '.join(MODELS_BEFORE_PREPARE)}")
    if c.get("global_rng_draws") is not None and (not _is_int(c["global_rng_draws"]) or c["global_rng_draws"] < 0):
        raise BadInput("config.global_rng_draws: must be an integer >= 0 or null")
    if c.get("global_rng_state") is not None and not c.get("model_before_prepare"):
        # Written by the recorder (the state after building model_before_prepare), rewritten on every recording.
        raise BadInput("config.global_rng_state: is what the recorder writes after model_before_prepare; give "
                       "model_before_prepare or global_rng_draws instead")
    if c.get("shuffle") and c.get("generator_seed") is None and c.get("set_seed") is None and not (
            acc.get("use_seedable_sampler") and acc.get("data_seed") is not None):
        print("record: note: shuffle with no set_seed, generator_seed or (use_seedable_sampler + data_seed): the "
              f"order comes from torch's OS-seeded default generator ({torch.initial_seed()} in this process), so it "
              "changes from run to run; and the forked ranks here all inherit that one seed, whereas separately "
              "launched processes (accelerate launch, torchrun) each draw their own", file=sys.stderr)


# ParallelismConfig's sizes, in the order its mesh lays them out (outermost first; parallelism_config.py, _get_mesh).
PARALLELISM_SIZES = ("dp_replicate_size", "dp_shard_size", "cp_size", "sp_size", "tp_size")


def parallelism_mesh(pc):
    """The DeviceMesh ParallelismConfig(**pc) builds: its dimensions in _get_mesh's order, sizes of 1 left out, and
    none when sp_size > 1 (DeepSpeed's Ulysses builds its own) or every size is 1."""
    if pc.get("sp_size", 1) > 1:
        return None
    dims = [(name[:-len("_size")], pc.get(name, 1)) for name in PARALLELISM_SIZES if pc.get(name, 1) > 1]
    if not dims:
        return None
    from torch.distributed.device_mesh import init_device_mesh
    return init_device_mesh("cpu", tuple(n for _, n in dims), mesh_dim_names=tuple(d for d, _ in dims))


def prepare_with_parallelism(accelerator, dl, mesh):
    """Accelerator.prepare_data_loader's one call (accelerator.py), with the mesh its ParallelismConfig builds: the
    real Accelerator refuses ParallelismConfig on a CPU job ("only compatible DistributedType.FSDP (version 2) or
    DistributedType.Multi{Device} or DistributedType.DEEPSPEED, but got DistributedType.MULTI_CPU"), so the recorder
    makes that call itself, with the Accelerator's own settings, unmodified otherwise."""
    return prepare_data_loader(
        dl, accelerator.device, num_processes=accelerator.num_processes, process_index=accelerator.process_index,
        split_batches=accelerator.split_batches, put_on_device=accelerator.device_placement,
        rng_types=accelerator.rng_types.copy(), dispatch_batches=accelerator.dispatch_batches,
        even_batches=accelerator.even_batches, use_seedable_sampler=accelerator.use_seedable_sampler,
        data_seed=accelerator.dataloader_config.data_seed, non_blocking=accelerator.non_blocking,
        use_stateful_dataloader=accelerator.use_stateful_dataloader, torch_device_mesh=mesh)


def reset_accelerate_singletons():
    """Forget AcceleratorState / PartialState / GradientState (each Accelerator of a case starts from nothing)."""
    AcceleratorState._reset_state(True)
    GradientState._reset_state()


# What a script builds between set_seed and prepare (config.model_before_prepare): its initialisation draws from
# torch's global generator, and Accelerate seeds a shuffled sampler's generator from what is left.
MODELS_BEFORE_PREPARE = ("linear", "mlp")


def build_model_before_prepare(kind):
    if kind == "linear":
        return torch.nn.Linear(10, 5)
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))


def accelerator_setup(c, rank, seen=None):
    """A rank's script up to its prepared loader: Accelerator(...), set_seed, the user's DataLoader,
    accelerator.prepare(dl). Returns (accelerator, prepared), or a result dict naming the failure. `seen`, when
    given, receives the global generator's state just before prepare (torch.get_rng_state(), hex)."""
    for k in [k for k in os.environ if k.startswith("ACCELERATE_")]:
        del os.environ[k]  # Accelerate reads options from these; the config says everything
    reset_accelerate_singletons()
    acc = c.get("accelerator", {})
    kwargs = {"cpu": True}
    for k in ACCELERATOR_KWARGS:
        if k in acc:
            kwargs[k] = list(acc[k]) if isinstance(acc[k], list) else acc[k]
    fields = {k: acc[k] for k in DATALOADER_CONFIGURATION_FIELDS if k in acc}
    try:
        if fields:
            kwargs["dataloader_config"] = DataLoaderConfiguration(**fields)
        accelerator = Accelerator(**kwargs)
    except Exception as exc:
        return {"accelerator_error": error_object(exc, "Accelerator")}
    # A user script seeds after creating its Accelerator (device_specific needs AcceleratorState().process_index;
    # Accelerator() itself draws nothing from torch's generator) and before building its DataLoader.
    if c.get("set_seed") is not None:
        try:
            set_seed(c["set_seed"], device_specific=bool(c.get("set_seed_device_specific")))
        except Exception as exc:
            return {"seed_error": error_object(exc, "set_seed")}
    if c.get("model_before_prepare"):
        build_model_before_prepare(c["model_before_prepare"])
    if c.get("global_rng_draws"):
        torch.empty(c["global_rng_draws"], dtype=torch.int32).random_()  # one 32-bit word per element
    if seen is not None:
        seen["global_rng_state"] = torch.get_rng_state().numpy().tobytes().hex()
    try:
        dl = build_user_dataloader(c, tensors=True, rank=rank)
    except ValueError as exc:  # torch's DataLoader refused the user's loader, before Accelerate saw it
        return {"prepare_error": error_object(exc, "DataLoader")}
    try:
        if acc.get("parallelism_config"):
            prepared = prepare_with_parallelism(accelerator, dl, parallelism_mesh(acc["parallelism_config"]))
        else:
            prepared = accelerator.prepare(dl)
    except Exception as exc:
        return {"prepare_error": error_object(exc, "Accelerator.prepare")}
    return accelerator, prepared


def accelerator_rank(c, rank, progress):
    """One rank's script: Accelerator(...), set_seed, the user's DataLoader, accelerator.prepare(dl), the passes."""
    seen = {}
    setup = accelerator_setup(c, rank, seen)
    if isinstance(setup, dict):
        return setup
    accelerator, prepared = setup
    values, errors = loader_attributes(prepared)
    record = {"rank": rank, "loader_class": type(prepared).__name__, **values, "attr_errors": errors, "epochs": []}
    progress(record)

    def on_pass(epochs):
        record["epochs"] = epochs
        progress(record)

    record["epochs"] = run_passes(c, prepared, on_pass, skip=accelerator.skip_first_batches)
    return {"record": record, **seen}


def record_accelerator(c, hang_timeout):
    check_accelerator_config(c)
    n = c["num_processes"]
    if c.get("multiprocess"):
        results = run_group(n, lambda rank, progress: accelerator_rank(c, rank, progress), hang_timeout)
    else:  # num_processes 1: this process is the job (one Accelerator), its state forgotten afterwards
        environ = dict(os.environ)
        try:
            results = {0: accelerator_rank(c, 0, lambda rec: None)}
        finally:
            reset_accelerate_singletons()
            os.environ.clear()
            os.environ.update(environ)
    # A script that fails on every rank at the same point with the same error fails there (named for rank 0);
    # Accelerator() and set_seed run before anything else, so a failure there on any rank is the job's failure.
    error = group_results.case_error(results, n, ("accelerator_error", "seed_error"))
    if c.get("model_before_prepare") and "global_rng_state" in results.get(0, {}):
        # What the simulator is given, as a user gives it: the state rank 0 saw just before prepare.
        c["global_rng_state"] = results[0]["global_rng_state"]
    if error:
        return error, []
    ranks = []
    for r in range(n):
        res = results[r]
        if "record" in res:
            ranks.append(res["record"])
        elif "prepare_error" in res:
            ranks.append({**empty_rank_record(r), "error": res["prepare_error"]})
        else:  # hung or crashed: what it had recorded so far, and why it stopped
            rec = dict(res.get("partial") or empty_rank_record(r))
            rec["error"] = res["failure"]
            ranks.append(rec)
    return None, ranks


# ----------------------------------------------------------------------------------------------------------------


def record(doc, case_name=None, hang_timeout=DEFAULT_HANG_TIMEOUT):
    """The trace (a dict in the golden key order) for a document holding `config`."""
    if not isinstance(doc, dict):
        raise BadInput("input: must be a JSON object holding a `config` object")
    config = doc.get("config")
    if config is None and "api" in doc:
        config = doc  # a bare config
    if not isinstance(config, dict):
        raise BadInput("input: must be a JSON object holding a `config` object")
    family = doc.get("family") if isinstance(doc.get("family"), str) and "config" in doc else family_of(config)
    name = case_name or (doc.get("case") if isinstance(doc.get("case"), str) else None) or "reference"
    out = {"case": name, "family": family, "config": config, "reference": reference_object()}
    try:
        if family == "randperm":
            epochs, perm = record_randperm(config)
            out.update(error=None, epochs=epochs, torch_randperm_seed=perm)
        elif family == "bss_varying":
            error, ranks = record_bss(config)
            out.update(error=error, ranks=ranks)
        elif family == "scheduler":
            out.update(error=None, ranks=record_scheduler(config, hang_timeout))
        elif family == "accelerator":
            error, ranks = record_accelerator(config, hang_timeout)
            out.update(error=error, ranks=ranks)
        elif family == "resume":
            import resume  # its own module: save_state / load_state across two process groups
            error, ranks = resume.record_resume(config, hang_timeout, sys.modules[__name__])
            out.update(error=error, ranks=ranks)
        elif family == "metrics":
            error, ranks = record_metrics(config, hang_timeout, run_group, accelerator_setup,
                                          check_accelerator_config)
            out.update(error=error, ranks=ranks)
        else:
            check_loader_config(config)
            # Dispatch and rng synchronisation need real collectives: a gloo group of processes.
            dispatch = config.get("dispatch_batches")
            if dispatch is None:
                dispatch = bool(config.get("put_on_device")) and config.get("dataset_kind", "map") in (
                    "iterable", "hf-iterable")
            # One process with `multiprocess: false` has no group (issue 51): its dispatcher's broadcast(None) is a
            # no-op there, and Accelerate's own check raises ValueError, where a gloo group raises TypeError first.
            if config.get("multiprocess") or (dispatch and config["num_processes"] > 1) or config.get("rng_types"):
                error, ranks = record_loader_multi(config, hang_timeout)
            else:
                error, ranks = record_loader_single(config)
            out.update(error=error, ranks=ranks)
    except BadMetricsInput as exc:
        raise BadInput(str(exc)) from exc
    except (KeyError, TypeError) as exc:
        raise BadInput(f"config: missing or malformed field ({type(exc).__name__}: {exc})") from exc
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="golden/record", description=__doc__.split("\n\n")[0])
    p.add_argument("input", nargs="?", default="-", help="JSON file holding a `config` object (- for stdin)")
    p.add_argument("--case", help="case name to write (default: the input's `case`, else \"reference\")")
    p.add_argument("-o", "--output", help="write the trace here instead of stdout")
    p.add_argument("--hang-timeout", type=float, default=DEFAULT_HANG_TIMEOUT,
                   help="seconds before a blocked rank of a multi-process run is killed (default %(default)s)")
    args = p.parse_args(argv)
    try:
        text = sys.stdin.read() if args.input == "-" else open(args.input).read()
    except OSError as exc:
        print(f"record: {args.input}: cannot be read ({exc.strerror})", file=sys.stderr)
        return 2
    try:
        doc = json.loads(text)
    except ValueError as exc:
        print(f"record: {args.input}: not valid JSON ({exc})", file=sys.stderr)
        return 2
    try:
        trace = record(doc, args.case, args.hang_timeout)
    except BadInput as exc:
        print(f"record: {exc}", file=sys.stderr)
        return 2
    text = goldjson.dumps(trace)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
