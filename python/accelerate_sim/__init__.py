"""accelerate_sim: what HuggingFace Accelerate's distributed data loading does on every rank, exactly.

The same C++ core as the ``accel-sim`` command line, run in-process: every function here builds the CLI's flags
(``accelerate_sim._options``, the one mapping from Accelerate's option names) and calls the CLI's own entry point, so
the options, their validation, the error messages and the JSON report are the CLI's (docs/report-json.md).

    >>> import accelerate_sim
    >>> accelerate_sim.what_if(num_processes=64, dataset_len=1001)["scenarios"][0]["duplicated"]
    23
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Union

try:
    from . import _core
except ImportError:  # the portable wheel: one accel-sim executable for every Python instead of a compiled module
    from . import _core_exe as _core
from ._options import OPTIONS, WHAT_IF_ONLY, to_flags

__all__ = [
    "what_if", "trace", "flags", "from_dataloader", "dataloader_options", "from_trainer", "from_training_args",
    "training_args_options", "version", "run_cli", "record",
    "ConfigError", "ConfigurationRejected", "NotModelled", "OPTIONS",
]
__version__ = "0.1.0"


class ConfigError(ValueError):
    """The CLI refused the input (its exit code 2): the message names the field or flag and the rule."""


class ConfigurationRejected(ConfigError):
    """Accelerate itself rejects the configuration (e.g. split_batches with a batch size that is not a multiple of
    num_processes). ``report`` holds the what-if report (its other scenarios show what would be accepted)."""

    def __init__(self, message: str, report: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.report = report


class NotModelled(ValueError):
    """from_dataloader / assert_loader_matches met a sampler, dataset or loader accel-sim does not model."""


def run_cli(args: Sequence[str]) -> "tuple[int, str, str]":
    """Runs ``accel-sim ARGS...`` in-process and returns (exit_code, stdout, stderr), without raising.
    ``run``, ``launch``, ``compare`` and ``--version`` are refused (they fork, exec or exit): use the executable."""
    if isinstance(args, (str, bytes)):
        raise TypeError("accelerate_sim.run_cli: give a list of arguments, not one string")
    return _core.run_cli([os.fspath(a) for a in args])


# The CLI names its canonical flags in messages; the Python option each one comes from, for the message.
_FLAG_NAMES = {flag: name for name, (_, flag, off) in OPTIONS.items() for flag in (flag, off) if flag}
_FLAG_NAMES.update({"--ranks": "num_processes", "--batch-size": "batch_size", "--seed": "data_seed",
                    "--split-batches": "split_batches", "--drop-last": "drop_last", "--put-on-device": "put_on_device"})


def _message(err: str) -> str:
    lines = [line[len("accel-sim: "):] if line.startswith("accel-sim: ") else line for line in err.strip().splitlines()]
    text = "\n".join(lines) or "accel-sim refused the input (exit code 2)"
    flag = text.split(":", 1)[0].split(" ", 1)[0]
    if flag in _FLAG_NAMES:
        text = f"{_FLAG_NAMES[flag]} ({text}"
        text = text.replace(":", "):", 1)
    return text


def _run_json(args: List[str]) -> Dict[str, Any]:
    code, out, err = _core.run_cli(args)
    if code == 0:
        return json.loads(out)
    if code == 2:
        # A configuration Accelerate rejects still prints the report (the other scenarios are valid).
        report = None
        if out.strip().startswith("{"):
            try:
                report = json.loads(out)
            except ValueError:
                report = None
        if report is not None and report.get("scenarios") and report["scenarios"][0].get("rejected"):
            raise ConfigurationRejected(
                f"Accelerate rejects this configuration: {report['scenarios'][0]['rejected']}", report)
        raise ConfigError(_message(err))
    raise RuntimeError(f"accel-sim exited with code {code}: {_message(err)}")


def flags(**options: Any) -> List[str]:
    """The accel-sim command-line flags for these options (what ``what_if`` runs), e.g. to print the equivalent
    command: ``' '.join(['accel-sim'] + accelerate_sim.flags(num_processes=8, dataset_len=1001))``."""
    return to_flags(options, where="flags")


def what_if(**options: Any) -> Dict[str, Any]:
    """The what-if report as a dict (the shape of ``accel-sim --json``, docs/report-json.md).

    Options take Accelerate's names (``num_processes``, ``dataset_len``, ``batch_size``, ``split_batches``,
    ``even_batches``, ``drop_last``, ``shuffle``, ``use_seedable_sampler``, ``data_seed``, ``dispatch_batches``,
    ``set_seed``, ...; the full list is ``accelerate_sim.OPTIONS``). By default it models
    ``Accelerator(...).prepare(dataloader)``; ``api="prepare_data_loader"`` models a direct call.

    Raises TypeError for an unknown option or a value of the wrong type, ConfigError with the CLI's message for a
    value it refuses, ConfigurationRejected when Accelerate itself rejects the configuration.
    """
    return _run_json(to_flags(options, where="what_if") + ["--json"])


def trace(config: Union[None, Dict[str, Any], str, "os.PathLike[str]"] = None, /, **options: Any) -> Dict[str, Any]:
    """The simulated trace (golden schema, golden/SCHEMA.md) as a dict: every rank's batches of sample ids, per pass.

    ``config`` is a golden-schema ``config`` dict, a whole trace/case dict holding one (``{"config": {...}}``), or
    the path of such a JSON file; or give the what-if options instead (``trace(num_processes=2, dataset_len=10)``).
    """
    if config is not None and options:
        raise TypeError("accelerate_sim.trace(): give a config or options, not both")
    if config is None:
        if not options:
            raise TypeError("accelerate_sim.trace(): give a config (dict or path) or the options (dataset_len=..., ...)")
        return _run_json(["trace"] + to_flags(options, allowed=lambda n: n not in WHAT_IF_ONLY, where="trace"))
    if isinstance(config, (str, os.PathLike)):
        return _run_json(["trace", "--config", os.fspath(config)])
    if not isinstance(config, dict):
        raise TypeError(f"accelerate_sim.trace(): config must be a dict or a path, got {type(config).__name__}")
    case = config if "config" in config else {"config": config}
    with tempfile.TemporaryDirectory(prefix="accel-sim-") as tmp:
        path = os.path.join(tmp, "case.json")
        with open(path, "w") as f:
            json.dump(case, f)
        return _run_json(["trace", "--config", path])


def version() -> str:
    """What ``accel-sim --version`` prints: accel-sim's version, the Accelerate release and torch shuffles modelled."""
    return _core.version_text()


from ._dataloader import dataloader_options, from_dataloader  # noqa: E402  (uses what_if above)
from ._trainer import from_trainer, from_training_args, training_args_options  # noqa: E402


def __getattr__(name: str) -> Any:
    # accelerate_sim.record (accelerate_sim/_record.py) is imported on first use.
    if name == "record":
        from ._record import record

        return record
    raise AttributeError(f"module 'accelerate_sim' has no attribute {name!r}")
