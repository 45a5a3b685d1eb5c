"""Family `trainer-eval`: the real `transformers.Trainer.evaluate()` (unmodified, from PyPI; CPU, gloo process
groups), recording per rank which sample ids each evaluation step fed the model, the losses and predictions the
Trainer gathered (Accelerate's `gather_for_metrics`), and `metrics["eval_loss"]`.

    python golden/reference/trainer_eval.py CASE.json [--write] [--hang-timeout SECONDS]

Run it with the interpreter of the case's transformers release (golden/reference/setup-transformers):
build/reference-venv-transformers-5.25/bin/python for `"transformers_version": "5.25"`, ...-4.57 for "4.57". CASE
holds `case`, `family` ("trainer-eval") and `config` (golden/SCHEMA.md, `## trainer-eval`). The full case (config,
reference, error, ranks) is printed, or with --write written back to CASE. Exit codes: 0 recorded (a rank's
exception, hang or crash is a recorded result too), 2 bad input (the message names the field).

R = config.num_processes forked ranks in a gloo group on 127.0.0.1 each build the model, then
Trainer(model, args, eval_dataset=..., compute_metrics=...) and call trainer.evaluate() config.num_evaluations
times. No training. The data is a map-style torch Dataset whose sample i is {"x": tensor([float(i)]),
"labels": tensor([float(i)])} (with train_sampling_strategy "group_by_length" also "input_ids", a list of
config.lengths[i] zeros, which LengthGroupedSampler measures and the collator drops). The model's
forward(x, labels) returns {"loss": x.mean() + 0 * weight, "logits": x}: a step's loss is the mean of its sample
ids and its predictions are the ids themselves, so the gathered arrays and eval_loss show which samples were
weighted how. forward notes x's ids (the batch this rank's model saw).

What is recorded comes from the Trainer itself: transformers.trainer.EvalLoopContainer (the name evaluation_loop
builds its four containers from) is replaced by a subclass that only keeps what get_arrays() returned, i.e.
all_losses and all_preds exactly as evaluation_loop holds them after its loop (eval_loss is the mean of
np.concatenate(all_losses)); nothing the Trainer computes is changed.

A rank that returns (or raises) waits, holding its process-group connection open, until every rank has returned
or died; a rank still running after the hang timeout (blocked in a collective the others never join) is killed
and recorded as a Hang, with the batches it had fed its model. So a blocked rank is not woken up by its peers
tearing the group down, which is what happens next in a real script depending on what it does after evaluate().
"""
import argparse
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import record  # noqa: E402  (shims, then accelerate and torch, as every recorder)
import goldjson  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
import transformers.trainer  # noqa: E402
from transformers import Trainer, TrainingArguments  # noqa: E402

FAMILY = "trainer-eval"
API = "trainer-eval"
DEFAULT_HANG_TIMEOUT = 90.0
CONFIG_KEYS = ("api", "transformers_version", "dataset_len", "num_processes", "per_device_eval_batch_size",
               "dataloader_drop_last", "seed", "data_seed", "train_sampling_strategy", "accelerator_config",
               "eval_do_concat_batches", "compute_metrics", "eval_use_gather_object", "num_evaluations")
OPTIONAL_KEYS = ("lengths",)  # only with train_sampling_strategy "group_by_length" (required then)
ACCELERATOR_KEYS = ("split_batches", "dispatch_batches", "even_batches", "use_seedable_sampler")
VERSIONS = ("5.25", "4.57")
# Another 5.N release, recorded by the transformers release watch (golden/transformers-watch) with 5.25's configs.
WATCHED = re.compile(r"5\.[0-9]+$")


class BadInput(Exception):
    pass


def installed_version():
    return ".".join(transformers.__version__.split(".")[:2])


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _keys(obj, keys, where, optional=()):
    if not isinstance(obj, dict):
        raise BadInput(f"{where}: must be an object")
    for k in keys:
        if k not in obj:
            raise BadInput(f"{where}.{k}: is required")
    unknown = [k for k in obj if k not in keys and k not in optional]
    if unknown:
        raise BadInput(f"{where}.{unknown[0]}: not a key of the {FAMILY} family")


def _int(c, k, where, low, high=None):
    if not _is_int(c[k]) or c[k] < low or (high is not None and c[k] > high):
        raise BadInput(f"{where}.{k}: must be an integer >= {low}" + (f" and <= {high}" if high is not None else ""))


def _bool(c, k, where):
    if not isinstance(c[k], bool):
        raise BadInput(f"{where}.{k}: must be true or false")


def check_config(doc):
    if not isinstance(doc, dict):
        raise BadInput("input: must be a JSON object holding `case`, `family` and `config`")
    if not isinstance(doc.get("case"), str):
        raise BadInput("case: is required (a string)")
    if doc.get("family") != FAMILY:
        raise BadInput(f'family: must be "{FAMILY}"')
    c = doc.get("config")
    _keys(c, CONFIG_KEYS, "config", OPTIONAL_KEYS)
    if c["api"] != API:
        raise BadInput(f'config.api: must be "{API}"')
    if c["transformers_version"] not in VERSIONS and not WATCHED.match(str(c["transformers_version"])):
        raise BadInput(f"config.transformers_version: must be one of {', '.join(VERSIONS)} or a 5.N release "
                       "(the release watch)")
    if c["transformers_version"] != installed_version():
        raise BadInput(f"config.transformers_version: is {c['transformers_version']!r} but this interpreter runs "
                       f"transformers {transformers.__version__} (use build/reference-venv-transformers-"
                       f"{c['transformers_version']}/bin/python)")
    _int(c, "dataset_len", "config", 0, 1 << 20)  # ids are float32 in the model: exact up to 2^24
    _int(c, "num_processes", "config", 1, 16)
    _int(c, "per_device_eval_batch_size", "config", 1)
    _int(c, "seed", "config", 0)
    _int(c, "num_evaluations", "config", 1, 5)
    for k in ("dataloader_drop_last", "eval_do_concat_batches", "compute_metrics", "eval_use_gather_object"):
        _bool(c, k, "config")
    if c["data_seed"] is not None and (not _is_int(c["data_seed"]) or c["data_seed"] < 0):
        raise BadInput("config.data_seed: must be null or an integer >= 0")
    if c["train_sampling_strategy"] not in ("random", "sequential", "group_by_length"):
        raise BadInput('config.train_sampling_strategy: must be "random", "sequential" or "group_by_length"')
    if c["train_sampling_strategy"] == "group_by_length":
        lengths = c.get("lengths")
        if not isinstance(lengths, list) or len(lengths) != c["dataset_len"]:
            raise BadInput("config.lengths: must be a list of dataset_len integers >= 0 with train_sampling_strategy "
                           '"group_by_length"')
        if not all(_is_int(v) and v >= 0 for v in lengths):
            raise BadInput("config.lengths: every length must be an integer >= 0")
    elif "lengths" in c:
        raise BadInput('config.lengths: only with train_sampling_strategy "group_by_length"')
    if c["train_sampling_strategy"] == "sequential" and c["transformers_version"] == "4.57":
        raise BadInput('config.train_sampling_strategy: "sequential" needs transformers 5.25 (4.57 has no '
                       "TrainingArguments.train_sampling_strategy)")
    acc = c["accelerator_config"]
    _keys(acc, ACCELERATOR_KEYS, "config.accelerator_config")
    for k in ("split_batches", "even_batches", "use_seedable_sampler"):
        _bool(acc, k, "config.accelerator_config")
    if acc["dispatch_batches"] is not None and not isinstance(acc["dispatch_batches"], bool):
        raise BadInput("config.accelerator_config.dispatch_batches: must be null, true or false")
    return c


# ----------------------------------------------------------------------------------------------------------------
# The script every rank runs


SEEN = []        # this process's eval batches (sample ids), in the order its model saw them
CONTAINERS = []  # every EvalLoopContainer evaluation_loop built, in order (4 per loop)
PROGRESS = {"hook": None}


class RecordingContainer(transformers.trainer.EvalLoopContainer):
    """transformers' EvalLoopContainer, unchanged, keeping what get_arrays() returned."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.returned = None
        CONTAINERS.append(self)

    def get_arrays(self):
        self.returned = super().get_arrays()
        return self.returned


transformers.trainer.EvalLoopContainer = RecordingContainer


class IdDataset(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "labels": torch.tensor([float(i)])}


class LengthDataset(IdDataset):
    """IdDataset whose samples also hold "input_ids" of lengths[i] tokens: LengthGroupedSampler (lengths=None, as
    Trainer passes for a dataset that is not a datasets.Dataset) reads len(dataset[i]["input_ids"]) of every sample
    by iterating the dataset, so __getitem__ ends it with IndexError as a sequence does."""

    def __init__(self, lengths):
        super().__init__(len(lengths))
        self.lengths = lengths

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return dict(super().__getitem__(i), input_ids=[0] * self.lengths[i])


class EvalModel(torch.nn.Module):
    """forward(x, labels) -> {"loss": mean of the batch's ids, "logits": the ids}; one parameter (unused but for
    a 0 * weight term), no random draw."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))

    def forward(self, x, labels):
        SEEN.append([int(v) for v in x.view(-1).tolist()])
        if PROGRESS["hook"] is not None:
            PROGRESS["hook"]()
        return {"loss": x.mean() + 0.0 * self.weight.sum(), "logits": x.clone()}


def compute_metrics(eval_prediction):
    return {}


def training_arguments(c, output_dir):
    kwargs = dict(
        output_dir=output_dir,
        use_cpu=True,
        ddp_backend="gloo",
        report_to=[],
        disable_tqdm=True,
        logging_strategy="no",
        eval_strategy="no",
        save_strategy="no",
        dataloader_num_workers=0,
        per_device_eval_batch_size=c["per_device_eval_batch_size"],
        dataloader_drop_last=c["dataloader_drop_last"],
        seed=c["seed"],
        data_seed=c["data_seed"],
        accelerator_config=dict(c["accelerator_config"]),
        eval_do_concat_batches=c["eval_do_concat_batches"],
        eval_use_gather_object=c["eval_use_gather_object"],
    )
    if c["transformers_version"] != "4.57":
        kwargs["train_sampling_strategy"] = c["train_sampling_strategy"]
    elif c["train_sampling_strategy"] == "group_by_length":
        kwargs["group_by_length"] = True  # 4.57's spelling of the same LengthGroupedSampler
    return TrainingArguments(**kwargs)


def _plain(v, as_ids):
    """A numpy array / tensor / nested list as JSON values: arrays flattened to a list (ids as ints)."""
    if v is None:
        return None
    if isinstance(v, torch.Tensor):
        v = v.detach().cpu().numpy()
    if isinstance(v, np.ndarray):
        flat = [x.item() for x in v.reshape(-1)]
        if as_ids:
            flat = [int(x) if float(x).is_integer() else x for x in flat]
        return flat if v.ndim >= 1 else flat[0]
    if isinstance(v, (list, tuple)):
        return [_plain(x, as_ids) for x in v]
    if isinstance(v, (np.generic,)):
        v = v.item()
    if as_ids and isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def run_eval(c, rank, progress, output_dir):
    # The Trainer prints its metrics to stdout; in a rank that is noise beside the recorded case.
    sys.stdout.flush()
    os.dup2(2, 1)
    for key in [key for key in os.environ if key.startswith("ACCELERATE_")]:
        del os.environ[key]
    evaluations = []
    state = {"evaluations": evaluations}

    def note():
        if evaluations:
            evaluations[-1]["batches"] = SEEN[evaluations[-1]["first"]:]
        progress({"evaluations": [{k: v for k, v in e.items() if k != "first"} for e in evaluations]})

    where = "trainer"
    try:
        model = EvalModel()  # before the Trainer (whose __init__ calls set_seed), as users do
        args = training_arguments(c, output_dir)
        data = LengthDataset(c["lengths"]) if "lengths" in c else IdDataset(c["dataset_len"])
        trainer = Trainer(model=model, args=args, eval_dataset=data,
                          compute_metrics=compute_metrics if c["compute_metrics"] else None)
        where = "evaluate"
        PROGRESS["hook"] = note
        for _ in range(c["num_evaluations"]):
            evaluations.append({"first": len(SEEN), "batches": []})
            first_container = len(CONTAINERS)
            metrics = trainer.evaluate()
            losses_c, preds_c = CONTAINERS[first_container], CONTAINERS[first_container + 1]
            e = evaluations[-1]
            e["batches"] = SEEN[e["first"]:]
            e["losses"] = _plain(losses_c.returned, as_ids=False)
            e["predictions"] = _plain(preds_c.returned, as_ids=True)
            loss = metrics.get("eval_loss")
            e["eval_loss"] = None if loss is None else float(loss)
            note()
    except Exception as exc:
        traceback.print_exc()  # to stderr, for whoever reads the recording's log; the case keeps type and message
        state["error"] = record.error_object(exc, where)
    PROGRESS["hook"] = None
    if evaluations:
        evaluations[-1]["batches"] = SEEN[evaluations[-1]["first"]:]
    state["evaluations"] = [{k: v for k, v in e.items() if k != "first"} for e in evaluations]
    return state


def _stable(message):
    """gloo names the peer's ephemeral port ("[127.0.0.1]:40311"), which changes from run to run: written as PORT."""
    return re.sub(r"\[127\.0\.0\.1\]:\d+", "[127.0.0.1]:PORT", message)


def _crash_message(rank, st, log):
    """Why a rank died without a result: its signal or exit status, and the C++ exception that terminate()
    printed (gloo's enforce failures), when there is one."""
    how = ""
    if st is not None and os.WIFSIGNALED(st):
        how = f" (killed by {signal.Signals(os.WTERMSIG(st)).name})"
    elif st is not None and os.WIFEXITED(st):
        how = f" (exit status {os.WEXITSTATUS(st)})"
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("terminate called after throwing"):
            what = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].strip().startswith("what():") else ""
            return f"rank {rank} exited without a result{how}: {line.strip()}" + (f"; {what}" if what else "")
    return f"rank {rank} exited without a result{how}"


def run_group_held(n, worker, hang_timeout):
    """record.run_group, except that a rank that has its result keeps its process (and its gloo connections) until
    every rank has a result or is gone; then all are released together. A rank still running at hang_timeout is
    killed: {"partial": its last progress, "failure": {"type": "Hang", ...}}; one that died without a result:
    {"partial", "failure": {"type": "Crash", ...}}."""
    port = record.free_port()
    tmp = tempfile.mkdtemp(prefix="accel-sim-record-eval-")
    release = os.path.join(tmp, "release")
    pids = {}
    try:
        for rank in range(n):
            pid = os.fork()
            if pid == 0:  # the rank
                code = 0
                try:
                    log = os.open(os.path.join(tmp, f"rank{rank}.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    os.dup2(log, 2)
                    os.close(log)
                    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank),
                                       "WORLD_SIZE": str(n), "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": str(n),
                                       "OMP_NUM_THREADS": "1"})
                    torch.set_num_threads(1)
                    out = os.path.join(tmp, f"rank{rank}.json")
                    progress = lambda rec, _p=os.path.join(tmp, f"rank{rank}.partial.json"): record._write_json(_p, rec)
                    try:
                        result = worker(rank, progress)
                    except BaseException as exc:
                        result = {"failure": {**record.error_object(exc, "worker"),
                                              "traceback": traceback.format_exc()}}
                    record._write_json(out, result)
                    while not os.path.exists(release):
                        time.sleep(0.02)
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
        alive = dict(pids)
        status = {}
        released = False
        while alive and time.monotonic() < deadline:
            for rank, pid in list(alive.items()):
                done, st = os.waitpid(pid, os.WNOHANG)
                if done:
                    del alive[rank]
                    status[rank] = st
            if not released and all(os.path.exists(os.path.join(tmp, f"rank{r}.json")) for r in alive):
                with open(release, "w"):
                    pass
                released = True
            if alive:
                time.sleep(0.02)
        hung = {rank for rank in alive if not os.path.exists(os.path.join(tmp, f"rank{rank}.json"))}
        for rank, pid in alive.items():
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        results = {}
        for rank in range(n):
            log = ""
            if os.path.exists(os.path.join(tmp, f"rank{rank}.log")):
                with open(os.path.join(tmp, f"rank{rank}.log"), errors="replace") as f:
                    log = f.read()
                sys.stderr.write(f"----- rank {rank} -----\n{log}")
            path = os.path.join(tmp, f"rank{rank}.json")
            partial_path = os.path.join(tmp, f"rank{rank}.partial.json")
            partial = None
            if os.path.exists(partial_path):
                with open(partial_path) as f:
                    partial = json.load(f)
            if rank in hung:
                results[rank] = {"partial": partial, "failure": {
                    "where": "evaluate", "type": "Hang",
                    "message": f"rank {rank} was still running after {hang_timeout:g} s (blocked, e.g. in a "
                               "collective the other ranks never joined) and was killed"}}
            elif os.path.exists(path):
                with open(path) as f:
                    results[rank] = json.load(f)
            else:
                results[rank] = {"partial": partial, "failure": {
                    "where": "evaluate", "type": "Crash", "message": _crash_message(rank, status.get(rank), log)}}
            if "failure" in results[rank] and "traceback" in results[rank]["failure"]:
                sys.stderr.write(results[rank]["failure"].pop("traceback"))
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def record_trainer_eval(doc, hang_timeout=DEFAULT_HANG_TIMEOUT):
    c = check_config(doc)
    reference = record.reference_object()
    reference["transformers"] = transformers.__version__
    R = c["num_processes"]
    tmp = tempfile.mkdtemp(prefix="accel-sim-trainer-eval-")
    try:
        results = run_group_held(R, lambda rank, p: run_eval(c, rank, p, os.path.join(tmp, "out")), hang_timeout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ranks = []
    for rank in range(R):
        res = results[rank]
        rec = {"rank": rank}
        if "failure" in res:  # hung, crashed, or the worker itself failed
            rec["evaluations"] = (res.get("partial") or {}).get("evaluations", [])
            rec["error"] = res["failure"]
        else:
            rec["evaluations"] = res["evaluations"]
            if "error" in res:
                rec["error"] = res["error"]
        if "error" in rec:
            rec["error"] = dict(rec["error"], message=_stable(rec["error"]["message"]))
        for e in rec["evaluations"]:  # a fixed key order; an unfinished evaluation has batches only
            for k in ("losses", "predictions", "eval_loss"):
                e.setdefault(k, None)
        rec["evaluations"] = [{k: e[k] for k in ("batches", "losses", "predictions", "eval_loss") if k in e}
                              for e in rec["evaluations"]]
        rec.setdefault("error", None)
        ranks.append(rec)
    return {"case": doc["case"], "family": FAMILY, "config": c, "reference": reference, "error": None,
            "ranks": ranks}


def main(argv=None):
    p = argparse.ArgumentParser(prog="golden/reference/trainer_eval.py", description=__doc__.split("\n\n")[0])
    p.add_argument("case", help="the case file (holding case, family and config)")
    p.add_argument("--write", action="store_true", help="write the recorded case back to the file")
    p.add_argument("--hang-timeout", type=float, default=DEFAULT_HANG_TIMEOUT,
                   help="seconds before a blocked rank is killed (default %(default)s)")
    args = p.parse_args(argv)
    try:
        with open(args.case) as f:
            doc = json.load(f)
    except OSError as exc:
        print(f"trainer_eval: {args.case}: cannot be read ({exc.strerror})", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"trainer_eval: {args.case}: not valid JSON ({exc})", file=sys.stderr)
        return 2
    try:
        out = record_trainer_eval(doc, args.hang_timeout)
    except BadInput as exc:
        print(f"trainer_eval: {args.case}: {exc}", file=sys.stderr)
        return 2
    text = goldjson.dumps(out)
    if args.write:
        with open(args.case, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
