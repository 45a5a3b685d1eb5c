"""python -m accelerate_sim.smoke: the real multi-process smoke run, with your own torch and Accelerate.

    python -m accelerate_sim.launch -n 2 -m accelerate_sim.smoke --dataset-len 1001 --shuffle --set-seed 42   # CPU gloo
    torchrun --nproc_per_node 4 -m accelerate_sim.smoke --dataset-len 100 --batch-size 8 --no-even-batches
    python -m accelerate_sim.smoke --dataset-len 10                      # one process

Every rank builds an Accelerator and a DataLoader over range(dataset_len) as the flags say, prepares it for real,
and iterates it through accelerate_sim.record into a temporary directory (or --out DIR); rank 0 then reads every rank's
file, simulates the same configuration (accelerate_sim.trace) and compares rank by rank, epoch by epoch, batch by batch
(ids, end_of_dataloader, remainder). It prints one verdict line, in the words of `accel-sim launch`:
"identical to the simulator's prediction" (exit 0), "real ranks differ from the simulator: first divergence at ..."
(exit 1); bad input exits 2. Every rank exits with rank 0's code (a launcher reports any non-zero exit as its own
failure code, 1 for accelerate launch and torchrun).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from typing import Any, Dict, List, Optional, Tuple

IDENTICAL = "identical to the simulator's prediction"
DIFFERS = "real ranks differ from the simulator: "


class _BadInput(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with the message, as the CLI does
        raise _BadInput(message)


def _at_least(low: int):
    """An argparse type: an integer >= low, or the rule it breaks."""
    def parse_int(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if v < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {v}")
        return v
    return parse_int


_positive = _at_least(1)
_non_negative = _at_least(0)


def parse(argv: List[str]) -> argparse.Namespace:
    p = _Parser(prog="python -m accelerate_sim.smoke", description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset-len", "--dataset_len", type=_non_negative, required=True, help="samples: range(N)")
    p.add_argument("--batch-size", "--batch_size", type=_positive, default=1)
    p.add_argument("--dataset", choices=["map", "iterable"], default="map")
    p.add_argument("--shuffle", action="store_true")
    p.add_argument("--drop-last", "--drop_last", action="store_true")
    p.add_argument("--set-seed", type=int, default=None, help="accelerate.utils.set_seed(S) before the DataLoader")
    p.add_argument("--split-batches", "--split_batches", action="store_true")
    p.add_argument("--no-even-batches", action="store_true")
    p.add_argument("--use-seedable-sampler", action="store_true")
    p.add_argument("--data-seed", type=int, default=None)
    p.add_argument("--epochs", type=_positive, default=1)
    p.add_argument("--out", default=None, help="keep the recording in this directory (default: a temporary one)")
    return p.parse_args(argv)


def _iterable(n: int) -> Any:
    from torch.utils.data import IterableDataset

    class RangeIterable(IterableDataset):
        def __init__(self, n: int):
            self.n = n

        def __len__(self) -> int:
            return self.n

        def __iter__(self) -> Any:
            return iter(range(self.n))

    return RangeIterable(n)


def sim_options(args: argparse.Namespace, num_processes: int, torch_version: str) -> Dict[str, Any]:
    opts: Dict[str, Any] = {"num_processes": num_processes, "dataset_len": args.dataset_len,
                            "batch_size": args.batch_size, "epochs": args.epochs, "torch_version": torch_version}
    if args.dataset != "map":
        opts["dataset"] = args.dataset
    for name in ("shuffle", "drop_last", "split_batches", "use_seedable_sampler"):
        if getattr(args, name):
            opts[name] = True
    if args.no_even_batches:
        opts["even_batches"] = False
    if args.set_seed is not None:
        opts["set_seed"] = args.set_seed
    if args.data_seed is not None:
        opts["data_seed"] = args.data_seed
    return opts


def compare(recorded: List[Dict[str, Any]], simulated: Dict[str, Any]) -> Optional[str]:
    """None when every rank's passes are the simulation's; else the first divergence, as trace diff words it."""
    sim_ranks = simulated.get("ranks", [])
    if len(sim_ranks) != len(recorded):
        return f"first divergence at ranks (top level): expected {len(sim_ranks)} ranks, actual {len(recorded)}"
    for r, (doc, sim) in enumerate(zip(recorded, sim_ranks)):
        real = doc["ranks"][0]
        real_epochs, sim_epochs = real["epochs"], sim["epochs"]
        for e in range(max(len(real_epochs), len(sim_epochs))):
            if e >= len(real_epochs) or e >= len(sim_epochs):
                return (f"first divergence at ranks[{r}].epochs (rank {r}): expected {len(sim_epochs)} passes, "
                        f"actual {len(real_epochs)}")
            a, x = real_epochs[e], sim_epochs[e]
            if not a["complete"]:
                return f"first divergence at ranks[{r}].epochs[{e}] (rank {r}, epoch {e}): the pass did not complete"
            for k in range(max(len(a["batches"]), len(x["batches"]))):
                for field in ("batches", "end_of_dataloader", "remainder"):
                    want = x[field][k] if k < len(x[field]) else "no batch"
                    got = a[field][k] if k < len(a[field]) else "no batch"
                    if want != got:
                        return (f"first divergence at ranks[{r}].epochs[{e}].{field}[{k}] (rank {r}, epoch {e}, "
                                f"batch {k}): expected {json.dumps(want)}, actual {json.dumps(got)}")
            if x.get("error"):
                return (f"first divergence at ranks[{r}].epochs[{e}].error (rank {r}, epoch {e}): expected "
                        f"{x['error'].get('type')}, actual none")
        if real["len"] != sim.get("len"):
            return f"first divergence at ranks[{r}].len (rank {r}): expected {sim.get('len')}, actual {real['len']}"
    return None


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}es" if word == "batch" else f"{n} {word}s"


def _barrier(world: int) -> None:
    # torch.distributed's own barrier: Accelerate 1.15's wait_for_everyone passes device_ids, which gloo on torch
    # 1.13 refuses.
    if world > 1:
        import torch.distributed as dist

        dist.barrier()


def run(args: argparse.Namespace) -> Tuple[int, str]:
    import torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader

    from accelerate import Accelerator
    from accelerate.utils import set_seed

    import accelerate_sim
    from ._dataloader import torch_version_option

    config: Dict[str, Any] = {}
    if args.split_batches:
        config["split_batches"] = True
    if args.no_even_batches:
        config["even_batches"] = False
    if args.use_seedable_sampler:
        config["use_seedable_sampler"] = True
    if args.data_seed is not None:
        config["data_seed"] = args.data_seed
    if config:
        try:
            from accelerate import DataLoaderConfiguration
        except ImportError:
            from accelerate.utils import DataLoaderConfiguration
        accelerator = Accelerator(dataloader_config=DataLoaderConfiguration(**config))
    else:
        accelerator = Accelerator()
    world, rank = accelerator.num_processes, accelerator.process_index
    if args.set_seed is not None:
        set_seed(args.set_seed)
    dataset = _iterable(args.dataset_len) if args.dataset == "iterable" else range(args.dataset_len)
    dl = DataLoader(dataset, batch_size=args.batch_size, shuffle=args.shuffle, drop_last=args.drop_last)

    out = args.out
    made_tmp = False
    if rank == 0 and out is None:
        out = tempfile.mkdtemp(prefix="accel-sim-smoke-")
        made_tmp = True
    if world > 1:
        holder = [out]
        dist.broadcast_object_list(holder, src=0)
        out = holder[0]
    if rank == 0 and args.out is not None and os.path.isdir(out):
        for name in os.listdir(out):  # a fresh recording, not a resumed one
            if name.startswith("rank-") and name.endswith(".json"):
                os.unlink(os.path.join(out, name))
    _barrier(world)

    opts = sim_options(args, world, torch_version_option(torch.__version__))
    try:
        prepared = accelerator.prepare(dl)
    except Exception as exc:  # noqa: BLE001 - Accelerate rejecting the configuration is a result to compare
        if rank != 0:
            return 0, ""
        try:
            simulated = accelerate_sim.trace(**opts)
        except accelerate_sim.ConfigError as err:
            return 2, f"accel-sim: {err}"
        want = (simulated.get("error") or {}).get("type")
        if want == type(exc).__name__:
            return 0, f"{IDENTICAL} (Accelerate rejects the configuration, as predicted: {type(exc).__name__}: {exc})"
        return 1, (DIFFERS + f"first divergence at error (top level): expected {want or 'no error'}, actual "
                   f"{type(exc).__name__}: {exc}")
    # Ids: the sampler's indices (map-style, DataLoaderShard); the samples themselves, which are their ids, for
    # iterable data and the dispatcher.
    key = (lambda b: b.tolist()) if (args.dataset == "iterable"
                                     or type(prepared).__name__ == "DataLoaderDispatcher") else None
    mismatch = None
    for _ in range(args.epochs):
        recorded = accelerate_sim.record(prepared, out, key=key, name="smoke", accelerator=accelerator)
        for step, batch in enumerate(recorded):
            if mismatch is None and key is None:
                ids = recorded._recorder.doc["ranks"][0]["epochs"][-1]["batches"][step]
                if batch.tolist() != ids:  # the samples are their own ids: the sampler's indices must be them
                    mismatch = f"rank {rank}: the recorder's ids {ids} are not the batch {batch.tolist()}"
    _barrier(world)

    code, line = 0, ""
    if rank == 0:
        docs = []
        for r in range(world):
            with open(os.path.join(out, f"rank-{r}.json")) as f:
                docs.append(json.load(f))
        try:
            simulated = accelerate_sim.trace(**opts)
        except accelerate_sim.ConfigError as exc:
            return 2, f"accel-sim: {exc}"
        diff = mismatch or compare(docs, simulated)
        if diff is None:
            batches = sum(len(e["batches"]) for d in docs for e in d["ranks"][0]["epochs"])
            code, line = 0, (f"{IDENTICAL} ({_count(world, 'rank')}, {_count(args.epochs, 'epoch')}, "
                             f"{_count(batches, 'batch')}; "
                             f"Accelerate {docs[0]['reference']['accelerate_version']}, torch {torch.__version__})")
        else:
            code, line = 1, DIFFERS + diff
        if made_tmp:
            shutil.rmtree(out, ignore_errors=True)
        else:
            line += f" (recording: {out})"
    if world > 1:
        holder = [code]
        dist.broadcast_object_list(holder, src=0)
        code = holder[0]
    return code, line


def main(argv: Optional[List[str]] = None) -> int:
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
    except _BadInput as exc:
        print(f"accelerate_sim.smoke: {exc}", file=sys.stderr)
        return 2
    try:
        code, line = run(args)
    except ImportError as exc:
        print(f"accelerate_sim.smoke: needs torch and Accelerate: {exc}", file=sys.stderr)
        return 2
    if line:
        print(line, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
