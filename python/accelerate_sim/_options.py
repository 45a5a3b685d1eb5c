"""Python option names -> accel-sim command-line flags: the one place where they are mapped.

Names are Accelerate's (``num_processes``, ``split_batches``, ``even_batches``, ``dispatch_batches``,
``use_seedable_sampler``, ``data_seed``, ``gradient_accumulation_steps``, ...) or the DataLoader's (``batch_size``,
``drop_last``, ``shuffle``, ``generator_seed``). Values are checked for their Python type here; everything else
(ranges, conflicts, what Accelerate rejects) is the CLI's own validation, so its messages reach the user unchanged.
"""

from __future__ import annotations

import difflib
import os
from typing import Any, Callable, Dict, List, Tuple

# kind: how a value becomes flags.
#   "int"     a Python int (not bool)                      -> FLAG N
#   "seed"    a Python int, any size (torch's seed range)  -> FLAG N
#   "float"   int or float                                 -> FLAG X
#   "str"     a str (the CLI checks the allowed values)    -> FLAG S
#   "path"    str or os.PathLike                           -> FLAG PATH
#   "on"      bool: True -> FLAG, False -> nothing (the CLI's default is off)
#   "pair"    bool: True -> FLAG, False -> OFF_FLAG (the default differs between the two APIs)
#   "tristate" None / True / False -> nothing / FLAG / OFF_FLAG
#   "ints"    a list/tuple of ints -> FLAG a,b,c
_Spec = Tuple[str, str, str]  # (kind, flag, off_flag)

OPTIONS: Dict[str, _Spec] = {
    # How the loader is prepared.
    "api": ("str", "--api", ""),
    "accelerate_version": ("str", "--accelerate-version", ""),  # the Accelerate release modelled (default 1.16.0, the newest)  # "accelerator" (default: Accelerator().prepare) or "prepare_data_loader"
    "num_processes": ("int", "--num_processes", ""),
    "split_batches": ("on", "--split_batches", ""),
    "even_batches": ("pair", "--even-batches", "--no-even-batches"),
    "dispatch_batches": ("tristate", "--dispatch-batches", "--no-dispatch-batches"),
    "use_seedable_sampler": ("pair", "--use-seedable-sampler", "--no-seedable-sampler"),
    "data_seed": ("seed", "--data_seed", ""),
    "device_placement": ("pair", "--device-placement", "--no-device-placement"),  # Accelerator(device_placement=)
    "put_on_device": ("on", "--put-on-device", ""),  # prepare_data_loader(put_on_device=)
    "rng_types": ("rng", "--rng-types", ""),
    "non_blocking": ("on", "--non-blocking", ""),
    "use_stateful_dataloader": ("on", "--use-stateful-dataloader", ""),
    "mixed_precision": ("str", "--mixed-precision", ""),
    "config_file": ("path", "--config-file", ""),  # what `accelerate config` wrote
    # The user's DataLoader and dataset.
    "dataset_len": ("int", "--dataset-len", ""),
    "dataset": ("str", "--dataset", ""),  # "map", "iterable", "hf-iterable" or "hf-map"
    "batch_size": ("int", "--batch_size", ""),
    "drop_last": ("on", "--drop_last", ""),
    "shuffle": ("on", "--shuffle", ""),
    "replacement": ("on", "--replacement", ""),
    "num_samples": ("int", "--num-samples", ""),
    "generator_seed": ("seed", "--generator-seed", ""),
    "dataset_generator": ("on", "--dataset-generator", ""),
    "num_workers": ("int", "--num-workers", ""),
    "worker_split": ("str", "--worker-split", ""),  # "none", "strided" or "contiguous": the dataset's get_worker_info()
    "persistent_workers": ("on", "--persistent-workers", ""),
    # dataset="hf-iterable": a HuggingFace datasets.IterableDataset of shards.
    "shard_sizes": ("ints", "--shard-sizes", ""),
    "num_shards": ("int", "--num-shards", ""),
    "hf_shuffle": ("int", "--hf-shuffle", ""),  # IterableDataset.shuffle(seed=...) or Dataset.shuffle(seed=...)
    "buffer_size": ("int", "--buffer-size", ""),
    "max_buffer_input_shards": ("int", "--max-buffer-input-shards", ""),
    "split_by_node": ("on", "--split-by-node", ""),  # split_dataset_by_node(ds, rank, world_size) before prepare
    "datasets_version": ("str", "--datasets-version", ""),  # "3.6", "4.8" or "5.2"
    # Seeds and passes.
    "set_seed": ("seed", "--set-seed", ""),
    "set_seed_device_specific": ("on", "--set-seed-device-specific", ""),
    "rng_draws": ("int", "--rng-draws", ""),  # words drawn from torch's global generator between set_seed and prepare
    "rng_state": ("path", "--rng-state", ""),  # a file of torch.get_rng_state().numpy().tobytes() saved before prepare
    "epochs": ("int", "--epochs", ""),
    "skip_first_batches": ("int", "--skip-batches", ""),
    "torch_version": ("str", "--torch-version", ""),  # "2.6" (current torch) or "1.13"
    # Training loop (with scheduler=...).
    "scheduler": ("str", "--scheduler", ""),
    "gradient_accumulation_steps": ("int", "--grad-accum", ""),
    "lr": ("float", "--lr", ""),
    "warmup": ("int", "--warmup", ""),
    "total_steps": ("int", "--total-steps", ""),
    "step_size": ("int", "--step-size", ""),
    "gamma": ("float", "--gamma", ""),
    "overflow_steps": ("ints", "--overflow-steps", ""),
    "overflow_prob": ("float", "--overflow-prob", ""),
    "overflow_seed": ("seed", "--overflow-seed", ""),
    # Resume what-if.
    "resume_at": ("resume_at", "--resume-at", ""),  # (epoch, step) or "E:S"
    "resume_at_step": ("int", "--resume-at-step", ""),
    "resume_with": ("str", "--resume-with", ""),
    "loop_set_epoch": ("on", "--loop-set-epoch", ""),
    "resume_ranks": ("int", "--resume-ranks", ""),
    "resume_batch_size": ("int", "--resume-batch-size", ""),
    "resume_skip": ("int", "--resume-skip", ""),
    # transformers.Trainer (api="trainer").
    "per_device_train_batch_size": ("int", "--per-device-batch-size", ""),
    "num_train_epochs": ("int", "--epochs", ""),
    "max_steps": ("int", "--max-steps", ""),
    "dataloader_drop_last": ("on", "--drop-last", ""),
    "seed": ("seed", "--set-seed", ""),  # TrainingArguments.seed: set_seed in Trainer.__init__
    "train_sampling_strategy": ("str", "--train-sampling-strategy", ""),
    "transformers_version": ("str", "--transformers-version", ""),  # "5.25" or "4.57"
    "use_cpu": ("on", "--use-cpu", ""),
    "lengths": ("path", "--lengths", ""),  # group_by_length: a file of the samples' lengths
    "resume_gradient_accumulation_steps": ("int", "--resume-grad-accum", ""),
    "ignore_data_skip": ("on", "--ignore-data-skip", ""),
    "iterable_has_len": ("on", "--iterable-has-len", ""),  # dataset="iterable": the IterableDataset has __len__
    "iterable_set_epoch": ("on", "--iterable-set-epoch", ""),  # ... and set_epoch(e)
    # trainer.evaluate() (api="trainer").
    "eval_dataset_len": ("int", "--eval-dataset-len", ""),
    "per_device_eval_batch_size": ("int", "--per-device-eval-batch-size", ""),
    "compute_metrics": ("on", "--compute-metrics", ""),
    "eval_use_gather_object": ("on", "--eval-use-gather-object", ""),
    "eval_do_concat_batches": ("pair", "", "--no-eval-concat-batches"),
    "num_evaluations": ("int", "--num-evaluations", ""),
    "eval_lengths": ("path", "--eval-lengths", ""),
    # Evaluation (gather_for_metrics).
    "eval": ("on", "--eval", ""),
    "use_gather_object": ("on", "--use-gather-object", ""),
    "eval_break_after": ("int", "--eval-break-after", ""),
    # Output besides the returned dict.
    "html": ("path", "--html", ""),
    "draw_ids": ("on", "--draw-ids", ""),  # draw a shuffle of more than 2^25 samples to name its ids
}

# Options that only the what-if (not `trace`) reads.
WHAT_IF_ONLY = {
    "resume_at", "resume_at_step", "resume_with", "loop_set_epoch", "resume_ranks", "resume_batch_size",
    "resume_skip", "eval", "use_gather_object", "eval_break_after", "html", "resume_gradient_accumulation_steps",
    "ignore_data_skip", "eval_dataset_len", "per_device_eval_batch_size", "compute_metrics", "eval_use_gather_object",
    "eval_do_concat_batches", "num_evaluations", "eval_lengths", "draw_ids",
}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _type_error(name: str, want: str, value: Any) -> TypeError:
    return TypeError(f"accelerate_sim: option {name!r} must be {want}, got {value!r} ({type(value).__name__})")


def _flags_for(name: str, value: Any) -> List[str]:
    kind, flag, off = OPTIONS[name]
    if kind in ("int", "seed"):
        if not _is_int(value):
            raise _type_error(name, "an int", value)
        return [flag, str(value)]
    if kind == "float":
        if not (_is_int(value) or isinstance(value, float)):
            raise _type_error(name, "a number", value)
        return [flag, repr(float(value)) if isinstance(value, float) else str(value)]
    if kind == "str":
        if not isinstance(value, str):
            raise _type_error(name, "a str", value)
        return [flag, value]
    if kind == "path":
        if not isinstance(value, (str, os.PathLike)):
            raise _type_error(name, "a path (str or os.PathLike)", value)
        return [flag, os.fspath(value)]
    if kind in ("on", "pair"):
        if not isinstance(value, bool):
            raise _type_error(name, "True or False", value)
        if value:
            return [flag] if flag else []  # an option whose True is the CLI's default has only an off flag
        return [off] if kind == "pair" else []
    if kind == "tristate":
        if value is None:
            return []
        if not isinstance(value, bool):
            raise _type_error(name, "None, True or False", value)
        return [flag] if value else [off]
    if kind == "ints":
        if not isinstance(value, (list, tuple)) or not all(_is_int(v) for v in value):
            raise _type_error(name, "a list of ints", value)
        return [flag, ",".join(str(v) for v in value)] if value else []
    if kind == "rng":
        # Accelerate's rng_types: a list of "generator" / "torch" / "cuda" / "xla", or None.
        if value is None or (isinstance(value, (list, tuple)) and len(value) == 0):
            return [flag, "none"]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)):
            raise _type_error(name, "None or a list of rng type names", value)
        names = [getattr(v, "value", v) for v in value]  # RNGType enum members or their strings
        if any(not isinstance(v, str) for v in names):
            raise _type_error(name, "None or a list of rng type names", value)
        # "torch" / "cuda" / "xla" synchronise the global generators, which the sampler order does not read here.
        return [flag, "generator" if "generator" in names else "none"]
    if kind == "resume_at":
        if isinstance(value, str):
            return [flag, value]
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(_is_int(v) for v in value):
            return [flag, f"{value[0]}:{value[1]}"]
        raise _type_error(name, "(epoch, step) or 'E:S'", value)
    raise AssertionError(kind)


# The command line's spellings of an option that neither its name nor its flags give (--ranks is num_processes).
_CLI_SPELLINGS = {"ranks": "num_processes", "world_size": "num_processes", "nproc": "num_processes"}


def close_options(name: str, known: List[str], n: int = 3) -> List[str]:
    """The known option names closest to a mistyped `name` (difflib), best first: by the names themselves, by the
    command line's flags (``dataset-len``, ``grad_accum``) and spellings (``ranks``), dashes read as underscores."""
    key = name.lower().lstrip("-").replace("-", "_")
    spellings: Dict[str, str] = {n_: n_ for n_ in known}
    for n_ in known:
        kind, flag, off_flag = OPTIONS[n_]
        for f in (flag, off_flag):
            if f:
                spellings.setdefault(f.lstrip("-").replace("-", "_"), n_)
    spellings.update({k: v for k, v in _CLI_SPELLINGS.items() if v in known})
    if key in spellings:  # a flag's or the command line's spelling of one option
        return [spellings[key]]
    out: List[str] = []
    for match in difflib.get_close_matches(key, list(spellings), n=2 * n, cutoff=0.75):
        if spellings[match] not in out:
            out.append(spellings[match])
    return out[:n]


def unknown_option_error(name: str, known: List[str], where: str) -> TypeError:
    """TypeError for an option `where` does not take: the close matches first, the full list only without one."""
    head = f"accelerate_sim.{where}() got an unexpected option {name!r}"
    if name in OPTIONS:
        return TypeError(f"{head}: it is a what_if option, which {where}() does not take")
    close = close_options(name, known)
    if close:
        return TypeError(f"{head}: did you mean {' or '.join(repr(c) for c in close)}? "
                         f"(accelerate_sim.OPTIONS lists all {len(known)} options)")
    return TypeError(f"{head} (no close name; the {len(known)} options: {', '.join(sorted(known))})")


def to_flags(options: Dict[str, Any], *, allowed: Callable[[str], bool] = lambda _: True, where: str = "what_if") -> List[str]:
    """The accel-sim flags for `options` (Accelerate's names). Unknown names raise TypeError naming them, with the
    closest known names first (``batchsize`` -> did you mean 'batch_size'?)."""
    flags: List[str] = []
    for name, value in options.items():
        if name not in OPTIONS or not allowed(name):
            raise unknown_option_error(name, [n for n in OPTIONS if allowed(n)], where)
        flags += _flags_for(name, value)
    return flags
