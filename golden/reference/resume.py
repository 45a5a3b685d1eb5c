"""Family `resume`: a checkpoint taken with Accelerator.save_state mid-epoch, loaded by a fresh process group with
Accelerator.load_state, and the training continued by one of the ways users skip what was already seen.

Two process groups, as on a real cluster: the first runs the whole uninterrupted training (recording every batch)
and calls save_state after S batches of epoch E, as the interrupted job would have; its batches up to that point
are the interrupted job's, since nothing before the save depends on whether the job goes on. The second group is
a fresh set of processes that runs the same script start-up, load_state, and the rest of the training in the
chosen mode. Comparing the two is the point: nothing here decides what "should" happen.

With use_stateful_dataloader every process torch.save's its loader's state_dict to the same dl_state_dict.bin,
with no barrier, and every process of the second group loads that one file: when the ranks' states differ (even
batches off, some ranks at their last batch), which state survives is a race. `resume.state_writer` pins it: the
ranks call save_state one after another (the recorder's own barriers, which Accelerate never makes), that rank
last, so the recording is one of the race's outcomes and not a coin toss.
"""
import os
import shutil
import tempfile

RESUME_CONFIG_KEYS = ("api", "dataset_kind", "dataset_len", "batch_size", "num_processes", "drop_last", "shuffle",
                      "set_seed", "accelerator", "multiprocess", "epochs", "resume", "torch_version")
RESUME_MODES = ("skip_first_batches", "continue", "stateful", "none")


def check_resume_config(c, bad_input):
    unknown = sorted(set(c) - set(RESUME_CONFIG_KEYS))
    if unknown:
        raise bad_input(f"config.{unknown[0]}: not a key of the resume family")
    for k in ("dataset_len", "batch_size", "num_processes", "epochs"):
        if not isinstance(c.get(k), int) or isinstance(c.get(k), bool):
            raise bad_input(f"config.{k}: is required (an integer)")
    if c.get("dataset_kind", "map") != "map":
        raise bad_input('config.dataset_kind: the resume family records map-style datasets only')
    r = c.get("resume")
    if not isinstance(r, dict):
        raise bad_input("config.resume: is required (an object)")
    if r.get("with") not in RESUME_MODES:
        raise bad_input(f"config.resume.with: must be one of {', '.join(RESUME_MODES)}")
    for k in ("epoch", "step"):
        if not isinstance(r.get(k), int) or r[k] < 0:
            raise bad_input(f"config.resume.{k}: is required (an integer >= 0)")
    if r["epoch"] >= c["epochs"]:
        raise bad_input("config.resume.epoch: must be below config.epochs")
    if not isinstance(r.get("loop_set_epoch", False), bool):
        raise bad_input("config.resume.loop_set_epoch: must be true or false")
    stateful = bool(c.get("accelerator", {}).get("use_stateful_dataloader"))
    if (r["with"] == "stateful") != stateful:
        raise bad_input('config.resume.with: "stateful" goes with config.accelerator.use_stateful_dataloader = true '
                        "and only with it")
    if "state_writer" in r:
        w = r["state_writer"]
        if not stateful:
            raise bad_input('config.resume.state_writer: only with "with": "stateful" (the file it orders is the '
                            "StatefulDataLoader's state)")
        if not isinstance(w, int) or isinstance(w, bool) or not 0 <= w < c["num_processes"]:
            raise bad_input("config.resume.state_writer: must be a rank (0 <= state_writer < num_processes)")


def _script_start(c, rank, h):
    """What both process groups run first: Accelerator(...), set_seed, the user's DataLoader, prepare."""
    for k in [k for k in os.environ if k.startswith("ACCELERATE_")]:
        del os.environ[k]
    h.reset_accelerate_singletons()
    acc = dict(c.get("accelerator", {}))
    kwargs = {"cpu": True}
    for k in h.ACCELERATOR_KWARGS:
        if k in acc:
            kwargs[k] = acc.pop(k)
    if acc:
        kwargs["dataloader_config"] = h.DataLoaderConfiguration(**acc)
    accelerator = h.Accelerator(**kwargs)
    if c.get("set_seed") is not None:
        h.set_seed(c["set_seed"])
    dl = h.build_user_dataloader(c, tensors=True, rank=rank)
    return accelerator, accelerator.prepare(dl)


def _save_state(accelerator, ckpt, r, rank, world):
    """accelerator.save_state as the script calls it; with state_writer, in a fixed order, that rank last."""
    writer = r.get("state_writer")
    if writer is None:
        accelerator.save_state(ckpt)
        return
    for turn in [k for k in range(world) if k != writer] + [writer]:
        if rank == turn:
            accelerator.save_state(ckpt)
        accelerator.wait_for_everyone()


def uninterrupted_epochs(c, dl, save, batch_ids):
    """The first group's training: every epoch in full, `save()` after S batches of epoch E (before its pass when
    S == 0). Shared with releases_set.py, whose older releases raise here where they lack a name (`set_epoch` on
    the loader before 0.24): the caller records it."""
    r = c["resume"]
    epochs = []
    for epoch in range(c["epochs"]):
        if r.get("loop_set_epoch"):
            dl.set_epoch(epoch)
        if (epoch, r["step"]) == (r["epoch"], 0):
            save()
        batches = []
        for batch in dl:
            batches.append(batch_ids(batch))
            if (epoch, len(batches)) == (r["epoch"], r["step"]) and r["step"] > 0:
                save()
        epochs.append(batches)
    return epochs


def resumed_epochs(c, accelerator, dl, batch_ids):
    """The second group's training after load_state: epochs E.. with epoch E skipped the chosen way
    (`accelerator.skip_first_batches` before 0.16 is no method: the caller records the AttributeError)."""
    r = c["resume"]
    epochs = []
    for epoch in range(r["epoch"], c["epochs"]):
        if r.get("loop_set_epoch"):
            dl.set_epoch(epoch)
        active = dl
        if epoch == r["epoch"] and r["with"] == "skip_first_batches" and r["step"] > 0:
            active = accelerator.skip_first_batches(dl, r["step"])
        batches = []
        for step, batch in enumerate(active):
            if epoch == r["epoch"] and r["with"] == "continue" and step < r["step"]:
                continue
            batches.append(batch_ids(batch))
        epochs.append(batches)
    return epochs


def _first_group(c, rank, ckpt, h):
    accelerator, dl = _script_start(c, rank, h)
    save = lambda: _save_state(accelerator, ckpt, c["resume"], rank, c["num_processes"])  # noqa: E731
    return {"uninterrupted": uninterrupted_epochs(c, dl, save, h.batch_ids)}


def _second_group(c, rank, ckpt, h):
    accelerator, dl = _script_start(c, rank, h)
    accelerator.load_state(ckpt)
    return {"resumed": resumed_epochs(c, accelerator, dl, h.batch_ids)}


def record_resume(c, hang_timeout, h):
    """(error, ranks) of a resume case; `h` is record.py (its helpers and Accelerate's names)."""
    check_resume_config(c, h.BadInput)
    return None, two_groups(c["num_processes"], h.run_group, hang_timeout,
                            lambda rank, ckpt: _guard(_first_group, c, rank, ckpt, h),
                            lambda rank, ckpt: _guard(_second_group, c, rank, ckpt, h))


def two_groups(n, run_group, hang_timeout, first, second):
    """Runs first(rank, ckpt) in a group of n processes, then second(rank, ckpt) in a fresh group over the same
    checkpoint folder; each rank's record: its uninterrupted and resumed epochs, and the first group's failure, else
    the second's, as the rank's `error`. Shared with releases_set.py."""
    ckpt = tempfile.mkdtemp(prefix="accel-sim-resume-")
    try:
        a_results = run_group(n, lambda rank, p: first(rank, ckpt), hang_timeout)
        b_results = run_group(n, lambda rank, p: second(rank, ckpt), hang_timeout)
    finally:
        shutil.rmtree(ckpt, ignore_errors=True)
    ranks = []
    for rank in range(n):
        a, b = a_results[rank], b_results[rank]
        rec = {"rank": rank, "uninterrupted": a.get("uninterrupted", []), "resumed": b.get("resumed", [])}
        failure = a.get("error") or a.get("failure") or b.get("error") or b.get("failure")
        if failure:
            rec["error"] = failure
        ranks.append(rec)
    return ranks


def _guard(fn, c, rank, ckpt, h):
    try:
        return fn(c, rank, ckpt, h)
    except Exception as exc:
        return {"error": h.error_object(exc, fn.__name__.strip("_"))}

