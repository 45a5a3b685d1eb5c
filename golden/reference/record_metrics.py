"""Family `metrics`: an evaluation loop over `accelerator.prepare(dl)` that calls `gather_for_metrics` and `gather`.

Kept apart from record.py (which only dispatches here) so the family's rules live in one place. Every rank runs the
loop a user writes for evaluation, in a real gloo group:

    for step, batch in enumerate(prepared):
        if step == break_after: break
        for_metrics = accelerator.gather_for_metrics(batch, use_gather_object=use_gather_object)
        gathered = accelerator.gather(batch)

Two things a real loop would do are not done, because they take the process down instead of giving an answer, and
the recorder checks for them first with its own `all_gather_object` of every rank's batch size (one extra round per
step, which Accelerate never sees):
- a step some ranks never reach (their loader has ended): the ranks still in the loop would wait in the collective
  forever; recorded on them as an error of type "Hang" and the loop ends on every rank.
- a tensor gather of batches of unequal sizes: gloo's all_gather then aborts a process or returns garbage (seen on
  torch 1.13: `op.preamble.length <= op.nbytes` and values that were never sent); recorded as the step's
  `gather_error` / `gather_for_metrics_error` of type "UnequalSizes" instead of calling it.
"""
import logging

import group_results

import torch
from accelerate.utils import gather_object

METRICS_API = "accelerator+gather_for_metrics"
# Keys a metrics config adds to the accelerator family's.
METRICS_KEYS = ("use_gather_object", "break_after")


class BadMetricsInput(ValueError):
    pass


def check_metrics_config(c):
    """The config as the accelerator family would take it (minus the metrics keys), after the metrics rules."""
    if "use_gather_object" in c and not isinstance(c["use_gather_object"], bool):
        raise BadMetricsInput("config.use_gather_object: must be true or false")
    b = c.get("break_after")
    if b is not None and (not isinstance(b, int) or isinstance(b, bool) or b < 0):
        raise BadMetricsInput("config.break_after: must be a non-negative integer or null")
    for k in ("epochs", "schedule", "set_epoch", "skip_first_batches", "shuffle"):
        if c.get(k) not in (None, False, 1, ["prepared"]):
            raise BadMetricsInput(f"config.{k}: a metrics case is one pass over the prepared loader, unshuffled")
    base = {k: v for k, v in c.items() if k not in METRICS_KEYS}
    base["api"] = "accelerator"
    return base


def unequal_sizes_message(sizes):
    return f"batch sizes per rank {sizes}: gloo's all_gather needs the same size on every rank"


def left_loop_message(left, step):
    return f"ranks {', '.join(str(r) for r in left)} had no batch at step {step}: the gather never completes"


class _Captured(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _ids(data):
    if isinstance(data, torch.Tensor):
        return [int(x) for x in data.reshape(-1).tolist()]
    return [int(x) for x in data]


def metrics_rank(c, rank, progress, accelerator_setup):
    """One rank: `accelerator_setup(c, rank)` builds the Accelerator and the prepared loader (record.py's
    accelerator family code) and returns (accelerator, prepared) or a result dict describing a failure."""
    setup = accelerator_setup(c, rank)
    if isinstance(setup, dict):
        return setup
    accelerator, prepared = setup
    logger = logging.getLogger("accelerate.accelerator")
    captured = _Captured()
    logger.addHandler(captured)
    logger.setLevel(logging.DEBUG)
    use_object = bool(c.get("use_gather_object"))
    record = {"rank": rank, "loader_class": type(prepared).__name__, "steps": [], "error": None}
    progress(record)
    it = iter(prepared)
    step = 0
    in_loop = True
    while True:
        batch = None
        if in_loop:
            if c.get("break_after") is not None and step == c["break_after"]:
                in_loop = False
            else:
                try:
                    batch = next(it)
                except StopIteration:
                    in_loop = False
                except Exception as exc:
                    record["error"] = {"where": "iterate", "type": type(exc).__name__, "message": str(exc)}
                    in_loop = False
        sizes = gather_object([None if batch is None else len(_ids(batch))])
        if all(s is None for s in sizes):
            break
        if batch is None:
            continue  # this rank has left; it keeps answering the size rounds until every rank has
        left = [r for r, s in enumerate(sizes) if s is None]
        if left:
            record["error"] = {"where": "gather", "type": "Hang", "message": left_loop_message(left, step)}
            in_loop = False
            continue
        gs = accelerator.gradient_state
        rec = {"step": step, "batch": _ids(batch), "end_of_dataloader": bool(gs.end_of_dataloader),
               "remainder": int(gs.remainder)}
        unequal = len(set(sizes)) > 1
        captured.messages.clear()
        if unequal and not use_object:
            rec["gather_for_metrics"] = None
            rec["gather_for_metrics_error"] = {"type": "UnequalSizes", "message": unequal_sizes_message(sizes)}
        else:
            rec["gather_for_metrics"] = _ids(accelerator.gather_for_metrics(batch, use_gather_object=use_object))
            rec["gather_for_metrics_error"] = None
        rec["log"] = list(captured.messages)
        if unequal:
            rec["gather"] = None
            rec["gather_error"] = {"type": "UnequalSizes", "message": unequal_sizes_message(sizes)}
        else:
            rec["gather"] = _ids(accelerator.gather(batch))
            rec["gather_error"] = None
        record["steps"].append(rec)
        progress(record)
        step += 1
    logger.removeHandler(captured)
    return {"record": record}


def record_metrics(c, hang_timeout, run_group, accelerator_setup, check_accelerator_config):
    base = check_metrics_config(c)
    check_accelerator_config(base)
    if not base.get("multiprocess") or base["num_processes"] < 2:
        raise BadMetricsInput("config.num_processes: a metrics case runs a real gloo group of at least 2 processes "
                              "(config.multiprocess true)")
    n = base["num_processes"]
    results = run_group(n, lambda rank, progress: metrics_rank(base | {k: c[k] for k in METRICS_KEYS if k in c},
                                                               rank, progress, accelerator_setup), hang_timeout)
    error = group_results.case_error(results, n, ("accelerator_error", "seed_error"))
    if error:
        return error, []
    ranks = []
    for r in range(n):
        res = results[r]
        if "record" in res:
            ranks.append(res["record"])
        else:  # a failure the loop did not foresee: what it had, and why it stopped
            rec = dict(res.get("partial") or {"rank": r, "loader_class": None, "steps": []})
            rec["error"] = res.get("failure") or res.get("prepare_error")
            ranks.append(rec)
    return None, ranks
