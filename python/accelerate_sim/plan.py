"""python -m accelerate_sim.plan train.py [script args...] --num-processes 64: plan a training script without editing it.

Runs the script in this process (sys.argv = [train.py, script args...]) on the CPU, with no process group (the
launcher's variables RANK, WORLD_SIZE, ... are removed, CUDA_VISIBLE_DEVICES is emptied, ACCELERATE_USE_CPU is set),
with these intercepted:

- ``accelerate.Accelerator.prepare``: every torch DataLoader given to it is read as accelerate_sim.from_dataloader reads
  it (with the Accelerator it came from, the latest set_seed, and torch's generator as it is right then), and so are
  the Accelerator's gradient_accumulation_steps and any lr scheduler given to it;
- ``accelerate.utils.set_seed``: the seeds the script sets;
- ``transformers.Trainer.train`` / ``evaluate`` (when the script imports transformers): the Trainer is read with
  accelerate_sim.training_args_options (what from_trainer reads).

The first iteration of a prepared loader (or Trainer.train / evaluate) stops the script, before the first training
step; then, for each loader, the what-if at --num-processes is printed (the CLI's terminal report, and its command
line), what is simulated beyond the loaders (gradient accumulation with a readable scheduler) as "simulated: ...",
and what could not be read, as "not modelled: ...".

Exit codes: 0 planned; 2 bad input (no script, a bad --num-processes); 3 the script ended or failed before preparing
any DataLoader (the output says how).
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import os
import runpy
import sys
import traceback
from typing import Any, Dict, List, Optional, Tuple

USAGE = ("usage: python -m accelerate_sim.plan [--num-processes N] [--plan-epochs E] SCRIPT.py [script args...] "
         "[--num-processes N] [--plan-epochs E]")


class _Stop(BaseException):
    """Raised at the first iteration of a prepared loader (or Trainer.train / evaluate): the plan has what it needs.
    A BaseException, so that a script's `except Exception` does not swallow it."""


class _BadInput(Exception):
    pass


PLAN_EPOCHS: Optional[int] = None


def parse_argv(argv: List[str]) -> Tuple[str, List[str], int]:
    """(script, its args, num_processes). --num-processes N (or =N) and --plan-epochs E before the script, or after
    its args (taken out wherever they appear: the script never sees them)."""
    global PLAN_EPOCHS
    PLAN_EPOCHS = None
    num: Optional[int] = None
    rest: List[str] = []
    i = 0
    script: Optional[str] = None
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help") and script is None:
            raise _BadInput("help")
        if a == "--plan-epochs" or a.startswith("--plan-epochs="):
            value = a.split("=", 1)[1] if "=" in a else (argv[i + 1] if i + 1 < len(argv) else "")
            i += 1 if "=" in a else 2
            if not value.isdigit() or int(value) < 1:
                raise _BadInput(f"--plan-epochs: must be an integer >= 1, got {value!r}")
            PLAN_EPOCHS = int(value)
            continue
        if a == "--num-processes" or a == "--num_processes":
            if i + 1 >= len(argv):
                raise _BadInput(f"{a} needs a value")
            value, i = argv[i + 1], i + 2
        elif a.startswith("--num-processes=") or a.startswith("--num_processes="):
            value, i = a.split("=", 1)[1], i + 1
        elif script is None and a == "--":
            i += 1
            continue
        elif script is None:
            if a.startswith("-"):
                raise _BadInput(f"unknown option {a!r} before the script")
            script, i = a, i + 1
            continue
        else:
            rest.append(a)
            i += 1
            continue
        try:
            num = int(value)
        except ValueError:
            raise _BadInput(f"--num-processes: must be an integer in [1, 65536], got {value!r}") from None
        if not 1 <= num <= 65536:
            raise _BadInput(f"--num-processes: must be an integer in [1, 65536], got {value!r}")
    if script is None:
        raise _BadInput("no script given")
    if num is None:
        raise _BadInput("--num-processes N is required (the scale to plan for)")
    if not os.path.isfile(script):
        raise _BadInput(f"{script}: no such file")
    return script, rest, num


def _names(obj: Any, frame: Any) -> List[str]:
    """The caller's variable names bound to obj (for the report), e.g. ['train_dataloader']."""
    try:
        return [k for k, v in frame.f_locals.items() if v is obj and not k.startswith("_")]
    except Exception:  # noqa: BLE001
        return []


def scheduler_options(scheduler: Any) -> Tuple[Dict[str, Any], Optional[str]]:
    """The what-if's scheduler options for a torch lr scheduler, or ({}, why not)."""
    inner = getattr(scheduler, "scheduler", scheduler)  # an AcceleratedScheduler wraps one
    kind = type(inner).__name__
    base_lrs = getattr(inner, "base_lrs", None) or [None]
    lr = base_lrs[0]
    opts: Dict[str, Any] = {}
    if lr is not None:
        opts["lr"] = float(lr)
    if kind == "StepLR":
        opts.update(scheduler="step", step_size=int(inner.step_size), gamma=float(inner.gamma))
        return opts, None
    if kind == "OneCycleLR":
        total = int(inner.total_steps)
        pct = inner._schedule_phases[0]["end_step"] + 1 if hasattr(inner, "_schedule_phases") else None
        if getattr(inner, "anneal_func", None) is not None and "linear" not in getattr(inner.anneal_func, "__name__", ""):
            return {}, "OneCycleLR with anneal_strategy='cos' (accel-sim models 'linear')"
        group = inner.optimizer.param_groups[0]
        if group.get("max_lr") and (abs(group["initial_lr"] * 25 - group["max_lr"]) > 1e-12 * group["max_lr"]
                                    or abs(group["min_lr"] * 1e4 - group["initial_lr"]) > 1e-12 * group["initial_lr"]):
            return {}, "OneCycleLR with a div_factor or final_div_factor other than 25 and 1e4"
        opts.update(scheduler="onecycle", total_steps=total)
        if pct is not None:
            opts["warmup"] = int(round(pct))
        opts["lr"] = float(inner.optimizer.param_groups[0].get("max_lr", lr or 0.0))
        return opts, None
    if kind == "LambdaLR":
        fns = getattr(inner, "lr_lambdas", [])
        fn = fns[0] if fns else None
        if isinstance(fn, functools.partial):
            name = getattr(fn.func, "__name__", "")
            kw = fn.keywords
            if "linear_schedule_with_warmup" in name:
                opts.update(scheduler="linear", warmup=int(kw["num_warmup_steps"]),
                            total_steps=int(kw["num_training_steps"]))
                return opts, None
            if "cosine_schedule_with_warmup" in name and float(kw.get("num_cycles", 0.5)) == 0.5:
                opts.update(scheduler="cosine", warmup=int(kw["num_warmup_steps"]),
                            total_steps=int(kw["num_training_steps"]))
                return opts, None
            if "constant_schedule_with_warmup" in name:
                opts.update(scheduler="constant", warmup=int(kw["num_warmup_steps"]))
                return opts, None
        if fn is not None and getattr(fn, "__name__", "") == "_get_constant_lambda":
            opts.update(scheduler="constant")
            return opts, None
        what = getattr(fn, "__qualname__", type(fn).__name__)
        return {}, (f"scheduler LambdaLR({what}): its lambda is code accel-sim does not read (it reads transformers' "
                    "get_linear/cosine/constant_schedule_with_warmup)")
    return {}, f"scheduler {type(inner).__module__}.{type(inner).__qualname__}"


class _Plan:
    def __init__(self, num_processes: int):
        self.num_processes = num_processes
        self.loaders: List[Dict[str, Any]] = []
        self.trainers: List[Dict[str, Any]] = []
        self.seeds: List[Tuple[int, bool]] = []
        self.schedulers: List[Tuple[Dict[str, Any], Optional[str], str, int]] = []
        self.not_modelled: List[str] = []
        self.prepare_calls = 0
        self.stopped_at: Optional[str] = None
        self.temp_files: List[str] = []

    # -- interception -------------------------------------------------------------------------------------------
    def on_set_seed(self, seed: Any, device_specific: bool = False) -> None:
        self.seeds.append((int(seed), bool(device_specific)))

    def on_prepare(self, accelerator: Any, args: Tuple[Any, ...], frame: Any) -> None:
        from torch.utils.data import DataLoader

        import accelerate_sim

        self.prepare_calls += 1
        for obj in args:
            if hasattr(obj, "base_lrs") or hasattr(getattr(obj, "scheduler", None), "base_lrs"):
                opts, why = scheduler_options(obj)
                name = ", ".join(_names(obj, frame)) or type(getattr(obj, "scheduler", obj)).__name__
                self.schedulers.append((opts, why, name, self.prepare_calls))
        for obj in args:
            if not isinstance(obj, DataLoader) and type(obj).__name__ not in ("DataLoaderShard", "DataLoaderDispatcher"):
                continue
            entry: Dict[str, Any] = {"names": _names(obj, frame), "class": type(obj).__qualname__,
                                     "dataset": type(getattr(obj, "dataset", None)).__qualname__,
                                     "prepare_call": self.prepare_calls, "options": None, "not_modelled": None,
                                     "gradient_accumulation_steps": int(getattr(accelerator, "gradient_accumulation_steps", 1) or 1)}
            overrides: Dict[str, Any] = {}
            if self.seeds:
                seed, device_specific = self.seeds[-1]
                overrides["set_seed"] = seed
                if device_specific:
                    overrides["set_seed_device_specific"] = True
                elif type(getattr(obj, "sampler", None)).__name__ == "RandomSampler":
                    # What the script drew from torch's generator since set_seed (a model built in between) decides a
                    # shuffle's ids: the generator's state right now, for the CLI to read (--rng-state).
                    import tempfile

                    import torch

                    fd, path = tempfile.mkstemp(prefix="accel-sim-plan-rng-", suffix=".bin")
                    with os.fdopen(fd, "wb") as f:
                        f.write(torch.get_rng_state().numpy().tobytes())
                    self.temp_files.append(path)
                    overrides["rng_state"] = path
            try:
                import warnings

                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    entry["options"] = accelerate_sim.dataloader_options(obj, accelerator, num_processes=self.num_processes,
                                                                    **overrides)
                entry["warnings"] = [str(w.message) for w in caught]
            except accelerate_sim.NotModelled as exc:
                entry["not_modelled"] = str(exc)
            except Exception as exc:  # noqa: BLE001 - reported, the script goes on
                entry["not_modelled"] = f"reading it raised {type(exc).__name__}: {exc}"
            self.loaders.append(entry)

    def on_trainer(self, trainer: Any, method: str, resume: Any) -> None:
        from ._trainer import training_args_options

        import accelerate_sim

        entry: Dict[str, Any] = {"method": method, "options": None, "not_modelled": None}
        try:
            entry["options"] = training_args_options(trainer.args, trainer.train_dataset,
                                                     num_processes=self.num_processes,
                                                     resume_from_checkpoint=resume if resume else None)
            if getattr(trainer, "eval_dataset", None) is not None:
                entry["eval"] = "the evaluation loop (eval_dataset) is not modelled for a Trainer"
        except accelerate_sim.NotModelled as exc:
            entry["not_modelled"] = str(exc)
        self.trainers.append(entry)

    # -- report -------------------------------------------------------------------------------------------------
    def report(self, script: str, outcome: str) -> str:
        import accelerate_sim

        lines = [f"accelerate_sim.plan: {script}: {outcome}"]
        for seed, device_specific in self.seeds:
            lines.append(f"  set_seed({seed}{', device_specific=True' if device_specific else ''})")
        # A scheduler is simulated with the first loader of the prepare call it was given to (the training loader).
        sched_for: Dict[int, Dict[str, Any]] = {}
        for opts, why, name, call in self.schedulers:
            if why is None:
                lines.append(f"  scheduler {name}: {opts['scheduler']} ({', '.join(f'{k}={v}' for k, v in opts.items() if k != 'scheduler')})")
                first = next((i for i, e in enumerate(self.loaders) if e["prepare_call"] == call), None)
                if first is not None:
                    sched_for.setdefault(first, opts)
            else:
                self.not_modelled.append(f"{why} ({name}): the what-if leaves the schedule out")
        # gradient_accumulation_steps is simulated (--grad-accum) in the training loop of the loader a readable
        # scheduler goes with; the CLI simulates that loop only with a scheduler.
        accum_simulated = [(", ".join(e["names"]) or f"DataLoader {i + 1}", e["gradient_accumulation_steps"])
                           for i, e in enumerate(self.loaders)
                           if i in sched_for and not e["not_modelled"] and e["gradient_accumulation_steps"] > 1]
        simulated: List[str] = [f"gradient_accumulation_steps {steps} in {label}'s training loop (with its scheduler)"
                                for label, steps in accum_simulated]
        accum_unsimulated: Dict[int, List[str]] = {}
        for n, entry in enumerate(self.loaders, 1):
            label = ", ".join(entry["names"]) or f"DataLoader {n}"
            lines.append("")
            lines.append(f"== {label}: {entry['class']} over {entry['dataset']} (Accelerator.prepare call "
                         f"{entry['prepare_call']}), planned on {self.num_processes} processes")
            if entry["not_modelled"]:
                lines.append(f"not modelled: {entry['not_modelled']}")
                self.not_modelled.append(f"{label}: {entry['not_modelled']}")
                continue
            opts = dict(entry["options"])
            if PLAN_EPOCHS is not None:
                opts["epochs"] = PLAN_EPOCHS
            if n - 1 in sched_for:
                opts.update(sched_for[n - 1])
                if entry["gradient_accumulation_steps"] > 1:
                    opts["gradient_accumulation_steps"] = entry["gradient_accumulation_steps"]
            elif entry["gradient_accumulation_steps"] > 1 and accum_simulated:
                lines.append(f"note: gradient_accumulation_steps {entry['gradient_accumulation_steps']} is simulated "
                             f"with {', '.join(l for l, _ in accum_simulated)} (the loader prepared with the "
                             "scheduler); this loader is planned without a training loop")
            elif entry["gradient_accumulation_steps"] > 1:
                accum_unsimulated.setdefault(entry["gradient_accumulation_steps"], []).append(label)
            flags = accelerate_sim.flags(**opts)
            shown = [("STATE_FILE" if f == opts.get("rng_state") else _quote(f)) for f in flags]
            lines.append("$ accel-sim " + " ".join(shown))
            if "rng_state" in opts:
                lines.append("  (STATE_FILE: torch.get_rng_state().numpy().tobytes() as the script left it at prepare)")
            code, out, err = accelerate_sim.run_cli(flags)
            lines.append(out.rstrip("\n") if out.strip() else err.rstrip("\n"))
            for w in entry.get("warnings", []):
                lines.append(f"note: {w}")
        for entry in self.trainers:
            lines.append("")
            lines.append(f"== transformers.Trainer ({entry['method']}() called), planned on {self.num_processes} processes")
            if entry["not_modelled"]:
                lines.append(f"not modelled: {entry['not_modelled']}")
                self.not_modelled.append(f"Trainer: {entry['not_modelled']}")
                continue
            flags = accelerate_sim.flags(**entry["options"])
            lines.append("$ accel-sim " + " ".join(_quote(f) for f in flags))
            code, out, err = accelerate_sim.run_cli(flags)
            lines.append(out.rstrip("\n") if out.strip() else err.rstrip("\n"))
            if entry.get("eval"):
                self.not_modelled.append(entry["eval"])
            written = entry["options"].get("lengths")
            if written and os.path.basename(written).startswith("accel-sim-lengths-"):
                os.unlink(written)
        for steps, labels in accum_unsimulated.items():
            self.not_modelled.append(f"gradient_accumulation_steps {steps} ({', '.join(labels)}): the training loop "
                                     "(accumulation, optimizer and scheduler steps) is simulated only with a scheduler "
                                     "the plan can read, and none was prepared that it can read")
        lines.append("")
        always = ["the loop around the loaders (set_epoch calls, breaks, resumes)" + (
                      "" if PLAN_EPOCHS else "; nor the number of epochs: one is simulated (--plan-epochs E)"),
                  "what `accelerate launch` would set from its config file (mixed precision, the Accelerator's "
                  "environment variables): the script runs under plain python"]
        for item in simulated:
            lines.append(f"simulated: {item}")
        for item in self.not_modelled + always:
            lines.append(f"not modelled: {item}")
        return "\n".join(lines)


def _quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Calls patch(module) right after `name` is imported (transformers.trainer is imported only if the script
    uses it: importing transformers here would cost seconds)."""

    def __init__(self, name: str, patch: Any):
        self.name, self.patch, self.busy = name, patch, False

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name or self.busy:
            return None
        self.busy = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module
        patch = self.patch

        def patched(module: Any) -> None:
            exec_module(module)
            patch(module)

        spec.loader.exec_module = patched  # type: ignore[method-assign]
        return spec


def _install(plan: _Plan) -> List[Any]:
    """Patches Accelerate (and, on import, transformers' Trainer); returns the undo callables."""
    import accelerate
    import accelerate.data_loader as adl
    import accelerate.utils as autils

    undo: List[Any] = []

    def setattr_undo(obj: Any, name: str, value: Any) -> None:
        old = getattr(obj, name)
        setattr(obj, name, value)
        undo.append(lambda: setattr(obj, name, old))

    orig_prepare = accelerate.Accelerator.prepare

    @functools.wraps(orig_prepare)
    def prepare(self: Any, *args: Any, **kwargs: Any) -> Any:
        plan.on_prepare(self, args, sys._getframe(1))
        return orig_prepare(self, *args, **kwargs)

    setattr_undo(accelerate.Accelerator, "prepare", prepare)

    orig_seed = autils.set_seed

    @functools.wraps(orig_seed)
    def set_seed(seed: int, device_specific: bool = False, *args: Any, **kwargs: Any) -> Any:
        plan.on_set_seed(seed, device_specific)
        return orig_seed(seed, device_specific, *args, **kwargs)

    for mod in (autils, sys.modules.get("accelerate.utils.random"), accelerate):
        if mod is not None and getattr(mod, "set_seed", None) is orig_seed:
            setattr_undo(mod, "set_seed", set_seed)

    def stop_iter(where: str) -> Any:
        def __iter__(self: Any) -> Any:
            plan.stopped_at = where
            raise _Stop()

        return __iter__

    for cls_name in ("DataLoaderShard", "DataLoaderDispatcher", "SkipDataLoader"):
        cls = getattr(adl, cls_name, None)
        if cls is not None:
            setattr_undo(cls, "__iter__", stop_iter(f"the first iteration of a prepared loader ({cls_name})"))

    def patch_trainer(module: Any) -> None:
        trainer_cls = getattr(module, "Trainer", None)
        if trainer_cls is None:
            return
        for method in ("train", "evaluate"):
            orig = getattr(trainer_cls, method)

            def make(method: str, orig: Any) -> Any:
                @functools.wraps(orig)
                def intercepted(self: Any, *args: Any, **kwargs: Any) -> Any:
                    resume = kwargs.get("resume_from_checkpoint", args[0] if method == "train" and args else None)
                    plan.on_trainer(self, method, resume)
                    plan.stopped_at = f"Trainer.{method}()"
                    raise _Stop()

                return intercepted

            setattr_undo(trainer_cls, method, make(method, orig))

    if "transformers.trainer" in sys.modules:
        patch_trainer(sys.modules["transformers.trainer"])
    else:
        finder = _PatchOnImport("transformers.trainer", patch_trainer)
        sys.meta_path.insert(0, finder)
        undo.append(lambda: sys.meta_path.remove(finder) if finder in sys.meta_path else None)
    return undo


_LAUNCHER_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT",
                  "TORCHELASTIC_RUN_ID", "ACCELERATE_DYNAMO_BACKEND")


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        script, script_args, num = parse_argv(argv)
    except _BadInput as exc:
        if str(exc) == "help":
            print(USAGE)
            print(__doc__)
            return 0
        print(f"accelerate_sim.plan: {exc}\n{USAGE}", file=sys.stderr)
        return 2
    saved_env = dict(os.environ)
    for var in _LAUNCHER_VARS:
        os.environ.pop(var, None)
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["ACCELERATE_USE_CPU"] = "true"
    try:
        import torch  # noqa: F401
        import accelerate  # noqa: F401
    except ImportError as exc:
        os.environ.clear()
        os.environ.update(saved_env)
        print(f"accelerate_sim.plan: needs torch and Accelerate: {exc}", file=sys.stderr)
        return 2
    plan = _Plan(num)
    undo = _install(plan)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script] + script_args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    outcome = ""
    failed = False
    try:
        runpy.run_path(script, run_name="__main__")
        outcome = "the script ran to its end" + (" without iterating a prepared loader" if plan.loaders else "")
    except _Stop:
        outcome = f"stopped at {plan.stopped_at}, before the first training step"
    except SystemExit as exc:
        outcome = f"the script exited (sys.exit({exc.code!r}))"
        failed = exc.code not in (None, 0)
    except Exception as exc:  # noqa: BLE001 - the script's own failure is reported
        tb = traceback.extract_tb(exc.__traceback__)
        where = next((f"{os.path.basename(f.filename)}:{f.lineno}" for f in reversed(tb)
                      if os.path.abspath(f.filename) == os.path.abspath(script)), None)
        outcome = f"the script failed{' at ' + where if where else ''}: {type(exc).__name__}: {exc}"
        failed = True
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        for u in reversed(undo):
            u()
        # The what-ifs below are for the real job, not for this CPU run: the CLI reads ACCELERATE_* itself.
        os.environ.clear()
        os.environ.update(saved_env)
    if not plan.loaders and not plan.trainers:
        for path in plan.temp_files:
            os.unlink(path)
        print(f"accelerate_sim.plan: {script}: nothing to plan, no DataLoader was prepared (Accelerator.prepare) and "
              f"Trainer.train() was not called: {outcome}", file=sys.stderr)
        return 3
    try:
        print(plan.report(script, outcome))
    finally:
        for path in plan.temp_files:
            os.unlink(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
