"""from_trainer / from_training_args: the Trainer what-if (``accel-sim --api trainer``) for a real
transformers.Trainer or its TrainingArguments and train dataset.

Reads what Trainer's data path depends on — per_device_train_batch_size, gradient_accumulation_steps,
num_train_epochs / max_steps, dataloader_drop_last, seed, data_seed, the train sampler, accelerator_config,
use_cpu, ignore_data_skip, the world size and the dataset's length — and refuses (NotModelled) what accel-sim
does not model, naming it. transformers is imported only here; nothing is trained, moved or downloaded.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any, Dict, List, Optional, Union

from . import NotModelled, what_if

# The transformers releases whose Trainer is recorded and modelled (golden/cases-trainer).
# The releases core/trainer_loop.hpp accepts (kTransformersReleases): 5.24 follows 5.25's rules, recorded alike.
_MODELLED_RELEASES = {"4.57": "4.57", "5.24": "5.24", "5.25": "5.25"}


def _release(version: str) -> str:
    major_minor = ".".join(version.split(".")[:2])
    if major_minor in _MODELLED_RELEASES:
        return _MODELLED_RELEASES[major_minor]
    raise NotModelled(f"transformers {version}: the Trainer modelled is 4.57, 5.24 or 5.25 (the releases recorded); "
                      "pass transformers_version='5.25' (or '4.57') to model one of them anyway")


def _accelerator_config(args: Any) -> Dict[str, Any]:
    config = getattr(args, "accelerator_config", None)
    if config is None:
        return {}
    if isinstance(config, dict):
        return dict(config)
    if hasattr(config, "to_dict"):
        return config.to_dict()
    return {k: getattr(config, k) for k in ("split_batches", "even_batches", "use_seedable_sampler", "dispatch_batches")
            if hasattr(config, k)}


def _global_step(checkpoint: Union[bool, int, str, "os.PathLike[str]"], args: Any) -> int:
    if isinstance(checkpoint, bool):
        from transformers.trainer_utils import get_last_checkpoint

        last = get_last_checkpoint(args.output_dir) if checkpoint and os.path.isdir(args.output_dir) else None
        if last is None:
            raise NotModelled(f"resume_from_checkpoint=True: no checkpoint-N folder in {args.output_dir!r}")
        checkpoint = last
    if isinstance(checkpoint, int):
        return checkpoint
    name = os.path.basename(os.path.normpath(os.fspath(checkpoint)))
    match = re.fullmatch(r"checkpoint-(\d+)", name)
    if not match:
        raise NotModelled(f"resume_from_checkpoint={os.fspath(checkpoint)!r}: the global step is read from a "
                          "'checkpoint-N' folder name; give it as an int instead")
    return int(match.group(1))


def _lengths(args: Any, dataset: Any, model_input_name: str) -> List[int]:
    """What LengthGroupedSampler sorts by, read as Trainer reads it: a datasets.Dataset's length column, else
    len(dataset[i][model_input_name])."""
    column = getattr(args, "length_column_name", "length")
    if hasattr(dataset, "column_names") and column in dataset.column_names:
        return [int(v) for v in dataset[column]]
    try:
        return [len(dataset[i][model_input_name]) for i in range(len(dataset))]
    except (KeyError, TypeError, IndexError):
        raise NotModelled(f"group_by_length: the samples have no {model_input_name!r} (nor the dataset a "
                          f"{column!r} column) to take lengths from; pass lengths=FILE") from None


def _write_lengths(lengths: List[int]) -> str:
    fd, path = tempfile.mkstemp(prefix="accel-sim-lengths-", suffix=".txt")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(str(v) for v in lengths))
    return path


def training_args_options(args: Any, train_dataset: Any, *, num_processes: Optional[int] = None,
                          resume_from_checkpoint: Union[None, bool, int, str, "os.PathLike[str]"] = None,
                          model_input_name: str = "input_ids", **overrides: Any) -> Dict[str, Any]:
    """The what_if options (``api="trainer"``) of a Trainer built from ``args`` over ``train_dataset``; with
    group_by_length the samples' lengths are read into a file (the ``lengths`` option)."""
    import transformers

    if train_dataset is None:
        raise NotModelled("train_dataset is None: Trainer needs one to train")
    from torch.utils.data import IterableDataset

    iterable = isinstance(train_dataset, IterableDataset)
    try:
        dataset_len = len(train_dataset)
        has_len = True
    except TypeError:
        has_len = False
        if not iterable:
            raise NotModelled(f"{type(train_dataset).__name__} has no len() and is not an IterableDataset") from None
        if "dataset_len" not in overrides:
            raise NotModelled(f"{type(train_dataset).__name__} is an IterableDataset without len(): give "
                              "dataset_len=N, the samples one pass of it yields") from None
        dataset_len = overrides.pop("dataset_len")
    epochs = args.num_train_epochs
    if args.max_steps is None or args.max_steps <= 0:
        if float(epochs) != int(epochs):
            raise NotModelled(f"num_train_epochs={epochs}: fractional epochs are not modelled")
    if getattr(args, "dataloader_num_workers", 0):
        raise NotModelled(f"dataloader_num_workers={args.dataloader_num_workers}: Trainer with worker processes is "
                          "not modelled")
    strategy = getattr(args, "train_sampling_strategy", "random")
    if getattr(args, "group_by_length", False):  # 4.57's spelling of 5.x's strategy
        strategy = "group_by_length"
    if strategy not in ("random", "sequential", "group_by_length"):
        raise NotModelled(f"train_sampling_strategy={strategy!r} is not modelled")
    accel = _accelerator_config(args)
    if accel.get("dispatch_batches") and not iterable:
        raise NotModelled("accelerator_config.dispatch_batches=True over a map-style dataset: Trainer's dispatched "
                          "loader is modelled for IterableDatasets only")
    opts: Dict[str, Any] = {
        "api": "trainer",
        "transformers_version": _release(transformers.__version__),
        "num_processes": num_processes if num_processes is not None else int(args.world_size),
        "dataset_len": dataset_len,
        "per_device_train_batch_size": int(args.per_device_train_batch_size),
        "gradient_accumulation_steps": int(args.gradient_accumulation_steps),
        "num_train_epochs": int(epochs),
        "dataloader_drop_last": bool(args.dataloader_drop_last),
        "seed": int(args.seed),
    }
    if args.max_steps is not None and args.max_steps > 0:
        opts["max_steps"] = int(args.max_steps)
    if args.data_seed is not None:
        opts["data_seed"] = int(args.data_seed)
    if iterable:
        # No sampler: an IterableDataset's ids are its positions in the stream (set_epoch may change what they hold).
        opts["dataset"] = "iterable"
        opts["iterable_has_len"] = has_len
        if accel.get("dispatch_batches") is not None:
            opts["dispatch_batches"] = bool(accel["dispatch_batches"])
    if strategy != "random":
        opts["train_sampling_strategy"] = strategy
    if strategy == "group_by_length" and "lengths" not in overrides and not iterable:
        opts["lengths"] = _write_lengths(_lengths(args, train_dataset, model_input_name))
    if accel.get("split_batches"):
        opts["split_batches"] = True
    if accel.get("even_batches") is False:
        opts["even_batches"] = False
    if accel.get("use_seedable_sampler") is False:
        opts["use_seedable_sampler"] = False
    if getattr(args, "use_cpu", False) or os.environ.get("ACCELERATE_USE_CPU", "").lower() in ("1", "true", "yes"):
        opts["use_cpu"] = True
    if resume_from_checkpoint is not None and resume_from_checkpoint is not False:
        opts["resume_at_step"] = _global_step(resume_from_checkpoint, args)
        if getattr(args, "ignore_data_skip", False):
            opts["ignore_data_skip"] = True
    opts.update(overrides)
    return opts


def from_training_args(args: Any, train_dataset: Any, eval_dataset: Any = None, *,
                       num_processes: Optional[int] = None,
                       resume_from_checkpoint: Union[None, bool, int, str, "os.PathLike[str]"] = None,
                       **overrides: Any) -> Dict[str, Any]:
    """The Trainer what-if report (dict, the shape of ``accel-sim --api trainer --json``, docs/trainer.md) for
    ``Trainer(args=args, train_dataset=train_dataset, ...)`` on num_processes ranks (default: args.world_size).

    ``resume_from_checkpoint`` (an int global step, a 'checkpoint-N' path, or True for the last one in
    args.output_dir) adds the resume comparison; ``overrides`` take any what_if option, e.g. ``resume_ranks=16``
    for a resume on another world size. With a map-style ``eval_dataset`` the report's ``evaluation`` is
    trainer.evaluate() (``compute_metrics=True`` when the Trainer has one: from_trainer reads it); an
    IterableDataset ``train_dataset`` without len() needs ``dataset_len=`` (the samples one pass yields). What is
    not simulated is listed in the report's ``not_modelled``.
    """
    not_modelled = []
    eval_written = None
    if eval_dataset is not None:
        try:
            overrides.setdefault("eval_dataset_len", len(eval_dataset))
            overrides.setdefault("per_device_eval_batch_size", int(args.per_device_eval_batch_size))
            overrides.setdefault("eval_use_gather_object", bool(getattr(args, "eval_use_gather_object", False)))
            overrides.setdefault("eval_do_concat_batches", bool(getattr(args, "eval_do_concat_batches", True)))
        except TypeError:
            not_modelled.append(f"evaluation over {type(eval_dataset).__name__} (no len(): an iterable eval dataset)")
        grouped = getattr(args, "group_by_length", False) or getattr(args, "train_sampling_strategy", "") == "group_by_length"
        if grouped and "eval_dataset_len" in overrides and "eval_lengths" not in overrides:
            # The evaluation sampler groups by length too (_get_eval_sampler).
            overrides["eval_lengths"] = _write_lengths(
                _lengths(args, eval_dataset, overrides.get("model_input_name", "input_ids")))
            eval_written = overrides["eval_lengths"]
        if getattr(args, "eval_accumulation_steps", None) or getattr(args, "batch_eval_metrics", False):
            not_modelled.append("eval_accumulation_steps / batch_eval_metrics (the evaluation is simulated without)")
    options = training_args_options(args, train_dataset, num_processes=num_processes,
                                    resume_from_checkpoint=resume_from_checkpoint, **overrides)
    written = options.get("lengths") if "lengths" not in overrides else None
    try:
        report = what_if(**options)
    finally:
        for path in (written, eval_written):
            if path:
                os.unlink(path)
    report["not_modelled"] = not_modelled
    return report


def from_trainer(trainer: Any, *, num_processes: Optional[int] = None,
                 resume_from_checkpoint: Union[None, bool, int, str, "os.PathLike[str]"] = None,
                 **overrides: Any) -> Dict[str, Any]:
    """from_training_args(trainer.args, trainer.train_dataset, trainer.eval_dataset, ...) for a built Trainer
    (before trainer.train(); nothing is trained)."""
    processing = getattr(trainer, "processing_class", None) or getattr(trainer, "tokenizer", None)
    names = getattr(processing, "model_input_names", None) or ["input_ids"]
    overrides.setdefault("model_input_name", names[0])
    if getattr(trainer, "eval_dataset", None) is not None:
        overrides.setdefault("compute_metrics", getattr(trainer, "compute_metrics", None) is not None)
    return from_training_args(trainer.args, trainer.train_dataset, getattr(trainer, "eval_dataset", None),
                              num_processes=num_processes, resume_from_checkpoint=resume_from_checkpoint, **overrides)


__all__ = ["from_trainer", "from_training_args", "training_args_options"]
