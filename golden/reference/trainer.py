"""Family `trainer`: the real `transformers.Trainer` (unmodified, from PyPI; CPU, gloo process groups), recording
which sample ids each rank trains on in each optimizer step, uninterrupted and resumed from a checkpoint.

    python golden/reference/trainer.py CASE.json [--write] [--hang-timeout SECONDS]

Run it with the interpreter of the case's transformers release (golden/reference/setup-transformers):
build/reference-venv-transformers-5.25/bin/python for `"transformers_version": "5.25"`, ...-4.57 for "4.57". CASE
holds `case`, `family` ("trainer") and `config` (golden/SCHEMA.md, `## trainer`). The full case (config, reference,
error, ranks) is printed, or with --write written back to CASE. Exit codes: 0 recorded (a rank's exception is a
recorded result too), 2 bad input (the message names the field).

The first job is R = config.num_processes forked ranks in a gloo group (record.py's run_group) running
Trainer(...).train() to the end; with config.resume it also saves checkpoint-G (save_strategy "steps", save_steps
G). The second job (only with config.resume) is a new group of fresh processes, R2 = resume.num_processes, with
the resume's batch shape and ignore_data_skip, calling trainer.train(resume_from_checkpoint=<output_dir>/checkpoint-G).

The data is a map-style torch Dataset whose sample i is {"x": tensor([float(i)]), "labels": tensor([0.0])} (with
train_sampling_strategy "group_by_length" also "input_ids": a list of config.lengths[i] zeros, from which
LengthGroupedSampler reads the lengths; the collator drops it, as the model takes no input_ids); the
model is a Linear(1, 1) whose forward(x, labels) notes x's ids (the micro-batch) while training; a TrainerCallback's
on_step_end closes an optimizer step. The model is built before the Trainer (which calls set_seed(seed) in its
__init__), as users do, and draws nothing from any generator while training.

With config.dataset_kind "iterable" (optional; "map" when absent) the train dataset is instead a
torch.utils.data.IterableDataset yielding the same samples for ids 0 .. n-1 in order on every pass: no __len__
unless config.iterable_has_len, no set_epoch unless config.iterable_set_epoch (then pass e yields ids
(e + j) mod n, j = 0 .. n-1: the epoch Accelerate last gave it is visible in the ids). max_steps -1 without a length
is passed on as it is: Trainer refuses it, and the refusal is recorded as every rank's error.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import record  # noqa: E402  (shims, then accelerate and torch, as every recorder)
import goldjson  # noqa: E402

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers import Trainer, TrainerCallback, TrainingArguments  # noqa: E402

FAMILY = "trainer"
DEFAULT_HANG_TIMEOUT = 300.0
CONFIG_KEYS = ("api", "transformers_version", "dataset_len", "num_processes", "per_device_train_batch_size",
               "gradient_accumulation_steps", "num_train_epochs", "max_steps", "dataloader_drop_last", "seed",
               "data_seed", "train_sampling_strategy", "accelerator_config", "resume")
OPTIONAL_KEYS = ("lengths",  # only with train_sampling_strategy "group_by_length" (required then)
                 "dataset_kind", "iterable_has_len", "iterable_set_epoch")  # the iterable train dataset
DATASET_KINDS = ("map", "iterable")
ACCELERATOR_KEYS = ("split_batches", "dispatch_batches", "even_batches", "use_seedable_sampler")
RESUME_KEYS = ("global_step", "num_processes", "per_device_train_batch_size", "gradient_accumulation_steps",
               "ignore_data_skip")
VERSIONS = ("5.25", "4.57")
# Another 5.N release, recorded by the transformers release watch (golden/transformers-watch) with 5.25's configs.
WATCHED = re.compile(r"5\.[0-9]+$")
LEARNING_RATE = 1e-3


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
        raise BadInput(f"{where}.{unknown[0]}: not a key of the trainer family")


def _int(c, k, where, low):
    if not _is_int(c[k]) or c[k] < low:
        raise BadInput(f"{where}.{k}: must be an integer >= {low}")


def _bool(c, k, where):
    if not isinstance(c[k], bool):
        raise BadInput(f"{where}.{k}: must be true or false")


def per_rank_batches(n, b, R, drop_last, split_batches, even_batches):
    """len() of the prepared training loader on rank 0 (DataLoaderShard over BatchSamplerShard), as Accelerate
    computes it; used only to refuse a resume.global_step the first job never reaches (the recording decides)."""
    from accelerate.data_loader import BatchSamplerShard
    from torch.utils.data import BatchSampler, SequentialSampler
    bs = BatchSampler(SequentialSampler(range(n)), b, drop_last)
    return len(BatchSamplerShard(bs, num_processes=R, process_index=0, split_batches=split_batches,
                                 even_batches=even_batches))


def total_steps(c, R, b, k):
    """The Trainer's max_steps for that shape (set_initial_training_values): max_steps, else
    ceil(num_train_epochs * num_update_steps_per_epoch)."""
    acc = c["accelerator_config"]
    batches = per_rank_batches(c["dataset_len"], b, R, c["dataloader_drop_last"], acc["split_batches"],
                               acc["even_batches"])
    per_epoch = max(batches // k + int(batches % k > 0), 1)
    return (c["max_steps"] if c["max_steps"] > 0 else c["num_train_epochs"] * per_epoch), per_epoch


def check_config(doc):
    if not isinstance(doc, dict):
        raise BadInput("input: must be a JSON object holding `case`, `family` and `config`")
    if not isinstance(doc.get("case"), str):
        raise BadInput("case: is required (a string)")
    if doc.get("family") != FAMILY:
        raise BadInput(f'family: must be "{FAMILY}"')
    c = doc.get("config")
    _keys(c, CONFIG_KEYS, "config", OPTIONAL_KEYS)
    if c["api"] != "trainer":
        raise BadInput('config.api: must be "trainer"')
    if c["transformers_version"] not in VERSIONS and not WATCHED.match(str(c["transformers_version"])):
        raise BadInput(f"config.transformers_version: must be one of {', '.join(VERSIONS)} or a 5.N release "
                       "(the release watch)")
    if c["transformers_version"] != installed_version():
        raise BadInput(f"config.transformers_version: is {c['transformers_version']!r} but this interpreter runs "
                       f"transformers {transformers.__version__} (use build/reference-venv-transformers-"
                       f"{c['transformers_version']}/bin/python)")
    for k, low in (("dataset_len", 1), ("num_processes", 1), ("per_device_train_batch_size", 1),
                   ("gradient_accumulation_steps", 1), ("num_train_epochs", 1), ("seed", 0)):
        _int(c, k, "config", low)
    if not _is_int(c["max_steps"]) or not (c["max_steps"] == -1 or c["max_steps"] >= 1):
        raise BadInput("config.max_steps: must be -1 (epoch based) or an integer >= 1")
    _bool(c, "dataloader_drop_last", "config")
    if c["data_seed"] is not None and (not _is_int(c["data_seed"]) or c["data_seed"] < 0):
        raise BadInput("config.data_seed: must be null or an integer >= 0")
    if c["train_sampling_strategy"] not in ("random", "sequential", "group_by_length"):
        raise BadInput('config.train_sampling_strategy: must be "random", "sequential" or "group_by_length"')
    iterable = c.get("dataset_kind") == "iterable"
    if c["train_sampling_strategy"] == "group_by_length" and not iterable:
        lengths = c.get("lengths")
        if not isinstance(lengths, list) or len(lengths) != c["dataset_len"]:
            raise BadInput("config.lengths: must be a list of dataset_len integers >= 0 with train_sampling_strategy "
                           '"group_by_length"')
        if not all(_is_int(v) and v >= 0 for v in lengths):
            raise BadInput("config.lengths: every length must be an integer >= 0")
    elif "lengths" in c:
        raise BadInput('config.lengths: only with train_sampling_strategy "group_by_length"')
    if "dataset_kind" in c and c["dataset_kind"] not in DATASET_KINDS:
        raise BadInput('config.dataset_kind: must be "map" or "iterable"')
    for k in ("iterable_has_len", "iterable_set_epoch"):
        if k in c:
            if not iterable:
                raise BadInput(f'config.{k}: only with dataset_kind "iterable"')
            _bool(c, k, "config")
    if c["train_sampling_strategy"] == "sequential" and c["transformers_version"] == "4.57":
        raise BadInput('config.train_sampling_strategy: "sequential" needs transformers 5.25 (4.57 has no '
                       "TrainingArguments.train_sampling_strategy; its training sampler is always random)")
    acc = c["accelerator_config"]
    _keys(acc, ACCELERATOR_KEYS, "config.accelerator_config")
    for k in ("split_batches", "even_batches", "use_seedable_sampler"):
        _bool(acc, k, "config.accelerator_config")
    if acc["dispatch_batches"] is not None and not isinstance(acc["dispatch_batches"], bool):
        raise BadInput("config.accelerator_config.dispatch_batches: must be null, true or false")
    r = c["resume"]
    if r is not None:
        _keys(r, RESUME_KEYS, "config.resume")
        for k in ("global_step", "num_processes", "per_device_train_batch_size", "gradient_accumulation_steps"):
            _int(r, k, "config.resume", 1)
        _bool(r, "ignore_data_skip", "config.resume")
        if iterable:
            # No BatchSamplerShard to count: max_steps bounds the first job (without a length and max_steps, the
            # first job is refused and so is the resume: recorded as both jobs' errors).
            if c["max_steps"] > 0 and r["global_step"] > c["max_steps"]:
                raise BadInput(f"config.resume.global_step: the first job ends at global step {c['max_steps']}, "
                               f"before {r['global_step']}, so it never saves checkpoint-{r['global_step']}")
        elif acc["dispatch_batches"] is not True:
            steps, _ = total_steps(c, c["num_processes"], c["per_device_train_batch_size"],
                                   c["gradient_accumulation_steps"])
            if r["global_step"] > steps:
                raise BadInput(f"config.resume.global_step: the first job ends at global step {steps}, before "
                               f"{r['global_step']}, so it never saves checkpoint-{r['global_step']}")
    return c


# ----------------------------------------------------------------------------------------------------------------
# The script every rank runs


SEEN = []  # this process's micro-batches (sample ids), in the order the model saw them while training


class IdDataset(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "labels": torch.tensor([0.0])}


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


def _sample(i):
    return {"x": torch.tensor([float(i)]), "labels": torch.tensor([0.0])}


class IdIterable(torch.utils.data.IterableDataset):
    """dataset_kind "iterable": ids 0 .. n-1 in order on every pass; no __len__, no set_epoch."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        for i in range(self.n):
            yield _sample(i)


class IdIterableWithLen(IdIterable):
    """iterable_has_len: the same, with __len__ (n)."""

    def __len__(self):
        return self.n


class SetEpochMixin:
    """iterable_set_epoch: set_epoch(e) is kept, and each pass yields ids (e + j) mod n, j = 0 .. n-1."""

    epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        for j in range(self.n):
            yield _sample((self.epoch + j) % self.n)


class IdIterableSetEpoch(SetEpochMixin, IdIterable):
    pass


class IdIterableWithLenSetEpoch(SetEpochMixin, IdIterableWithLen):
    pass


def train_dataset(c):
    if c.get("dataset_kind") == "iterable":
        cls = {(False, False): IdIterable, (True, False): IdIterableWithLen, (False, True): IdIterableSetEpoch,
               (True, True): IdIterableWithLenSetEpoch}[(c.get("iterable_has_len", False),
                                                          c.get("iterable_set_epoch", False))]
        return cls(c["dataset_len"])
    return LengthDataset(c["lengths"]) if "lengths" in c else IdDataset(c["dataset_len"])


class TinyModel(torch.nn.Module):
    """Linear(1, 1); forward(x, labels) -> {"loss"}. Notes the micro-batch's ids while training; no dropout, no
    random draw. x is scaled by 1/n so the loss stays finite whatever the ids."""

    def __init__(self, n):
        super().__init__()
        self.linear = torch.nn.Linear(1, 1)
        self.scale = 1.0 / n

    def forward(self, x, labels):
        if self.training:
            SEEN.append([int(v) for v in x.view(-1).long().tolist()])
        pred = self.linear(x * self.scale)
        return {"loss": torch.nn.functional.mse_loss(pred, labels)}


class StepRecorder(TrainerCallback):
    """on_step_end closes an optimizer step: the micro-batches the model saw since the previous one."""

    def __init__(self, progress):
        self.steps = []
        self.taken = 0
        self.progress = progress

    def on_step_end(self, args, state, control, **kwargs):
        self.steps.append({"global_step": state.global_step, "batches": SEEN[self.taken:]})
        self.taken = len(SEEN)
        self.progress({"steps": self.steps})

    def finish(self):
        """The steps, with any micro-batch seen after the last on_step_end in a final global_step null entry."""
        if len(SEEN) > self.taken:
            self.steps.append({"global_step": None, "batches": SEEN[self.taken:]})
            self.taken = len(SEEN)
        return self.steps


def training_arguments(c, output_dir, b, k, save_steps, ignore_data_skip):
    kwargs = dict(
        output_dir=output_dir,
        use_cpu=True,
        ddp_backend="gloo",
        ddp_find_unused_parameters=False,  # the model uses its one Linear; True only costs a graph traversal
        report_to=[],
        disable_tqdm=True,
        logging_strategy="no",
        eval_strategy="no",
        save_strategy="steps" if save_steps else "no",
        dataloader_num_workers=0,
        learning_rate=LEARNING_RATE,
        per_device_train_batch_size=b,
        gradient_accumulation_steps=k,
        num_train_epochs=c["num_train_epochs"],
        max_steps=c["max_steps"],
        dataloader_drop_last=c["dataloader_drop_last"],
        seed=c["seed"],
        data_seed=c["data_seed"],
        accelerator_config=dict(c["accelerator_config"]),
        ignore_data_skip=ignore_data_skip,
    )
    if save_steps:
        kwargs["save_steps"] = save_steps
    if c["transformers_version"] != "4.57":
        kwargs["train_sampling_strategy"] = c["train_sampling_strategy"]
    elif c["train_sampling_strategy"] == "group_by_length":
        kwargs["group_by_length"] = True  # 4.57's spelling of the same LengthGroupedSampler
    return TrainingArguments(**kwargs)


def run_job(c, rank, progress, output_dir, b, k, save_steps=None, ignore_data_skip=False, checkpoint=None):
    # The Trainer prints its final metrics to stdout; in a rank that is noise beside the recorded case.
    sys.stdout.flush()
    os.dup2(2, 1)
    for key in [key for key in os.environ if key.startswith("ACCELERATE_")]:
        del os.environ[key]
    recorder = StepRecorder(progress)
    try:
        model = TinyModel(c["dataset_len"])  # before the Trainer (whose __init__ calls set_seed), as users do
        args = training_arguments(c, output_dir, b, k, save_steps, ignore_data_skip)
        data = train_dataset(c)
        trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[recorder])
        trainer.train(resume_from_checkpoint=checkpoint)
    except Exception as exc:
        traceback.print_exc()  # to stderr, for whoever reads the recording's log; the case keeps type and message
        return {"steps": recorder.finish(), "error": record.error_object(exc, "train")}
    return {"steps": recorder.finish()}


def _steps_and_failure(result):
    """(steps, failure or None) from a run_group result: a finished rank, or a hung / crashed one."""
    if "failure" in result:  # killed after the hang timeout ("Hang"), or gone without a result ("Crash")
        partial = result.get("partial") or {}
        return partial.get("steps", []), dict(result["failure"], where="train")
    return result.get("steps", []), result.get("error")


def record_trainer(doc, hang_timeout=DEFAULT_HANG_TIMEOUT):
    c = check_config(doc)
    reference = record.reference_object()
    reference["transformers"] = transformers.__version__
    R, r = c["num_processes"], c["resume"]
    tmp = tempfile.mkdtemp(prefix="accel-sim-trainer-")
    try:
        first_dir = os.path.join(tmp, "first")
        first = record.run_group(
            R, lambda rank, p: run_job(c, rank, p, first_dir, c["per_device_train_batch_size"],
                                       c["gradient_accumulation_steps"],
                                       save_steps=r["global_step"] if r is not None else None), hang_timeout)
        second = {}
        if r is not None:
            checkpoint = os.path.join(first_dir, f"checkpoint-{r['global_step']}")
            if not os.path.isdir(checkpoint) and not any("failure" in v or "error" in v for v in first.values()):
                raise BadInput(f"config.resume.global_step: the first job ended without saving checkpoint-"
                               f"{r['global_step']}")
            second = record.run_group(
                r["num_processes"],
                lambda rank, p: run_job(c, rank, p, os.path.join(tmp, "second"), r["per_device_train_batch_size"],
                                        r["gradient_accumulation_steps"], ignore_data_skip=r["ignore_data_skip"],
                                        checkpoint=checkpoint), hang_timeout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ranks = []
    for rank in range(max(R, r["num_processes"] if r is not None else 0)):
        rec = {"rank": rank}
        rec["steps"], failure = _steps_and_failure(first[rank]) if rank in first else ([], None)
        if r is not None:
            rec["resumed_steps"], failure2 = _steps_and_failure(second[rank]) if rank in second else ([], None)
            failure = failure or failure2
        if failure:
            rec["error"] = failure
        ranks.append(rec)
    return {"case": doc["case"], "family": FAMILY, "config": c, "reference": reference, "error": None,
            "ranks": ranks}


def main(argv=None):
    p = argparse.ArgumentParser(prog="golden/reference/trainer.py", description=__doc__.split("\n\n")[0])
    p.add_argument("case", help="the case file (holding case, family and config)")
    p.add_argument("--write", action="store_true", help="write the recorded case back to the file")
    p.add_argument("--hang-timeout", type=float, default=DEFAULT_HANG_TIMEOUT,
                   help="seconds before a blocked rank is killed (default %(default)s)")
    args = p.parse_args(argv)
    try:
        with open(args.case) as f:
            doc = json.load(f)
    except OSError as exc:
        print(f"trainer: {args.case}: cannot be read ({exc.strerror})", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"trainer: {args.case}: not valid JSON ({exc})", file=sys.stderr)
        return 2
    try:
        out = record_trainer(doc, args.hang_timeout)
    except BadInput as exc:
        print(f"trainer: {args.case}: {exc}", file=sys.stderr)
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
