"""Writes the inputs of the `trainer` golden cases over an iterable train dataset
(golden/cases-trainer/trainer-v<5.25|4.57>-iter-*.json, `"dataset_kind": "iterable"`):

    python3 golden/reference/trainer_iterable_set.py
    # then, each with its release's environment (golden/reference/setup-transformers):
    for f in golden/cases-trainer/trainer-v5.25-iter-*.json; do
      build/reference-venv-transformers-5.25/bin/python golden/reference/trainer.py "$f" --write; done
    for f in golden/cases-trainer/trainer-v4.57-iter-*.json; do
      build/reference-venv-transformers-4.57/bin/python golden/reference/trainer.py "$f" --write; done

The real transformers.Trainer over a torch IterableDataset of n samples (ids 0 .. n-1 in order each pass) in gloo
groups of R CPU processes: max_steps that ends inside the first pass or after several, the iterator running out in
the middle of an accumulation step, Accelerate's DataLoaderDispatcher (dispatch_batches null, Trainer's default, or
true) and IterableDatasetShard (dispatch_batches false), split_batches, even_batches false and dataloader_drop_last
(both ignored for an iterable dataset), the variants with __len__ (iterable_has_len, then also epoch based) and with
set_epoch (iterable_set_epoch), Trainer's refusal of max_steps -1 without a length, and resumes from checkpoint-G in
fresh processes (same and another world size, ignore_data_skip, G past the first pass, G = max_steps). A file is
written only when the case is not there yet, as `case`, `family` and `config` alone.

Names: r<R>[to<R2>]-n<n>-b<b>-k<k>-m<max_steps> (or -e<E> when epoch based), then -nodispatch / -dispatch (false /
true; default null), -split, -uneven, -droplast, -gbl, -haslen, -setepoch, -resume-g<G>[-ignoreskip], -nomaxsteps, -neverstep
(no optimizer step ever: a Hang).
"""
import json
import os

from trainer_set import config, resume

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTORY = "cases-trainer"
VERSIONS = ("5.25", "4.57")


def it(version, R, n, b, k, M, E=1, dispatch=None, split=False, even=True, has_len=False, set_epoch=False, **kw):
    """An iterable-dataset config; the keys beyond the map family's only where set."""
    c = config(version, R, n, b, k, E, max_steps=M,
               accelerator_config={"dispatch_batches": dispatch, "split_batches": split, "even_batches": even},
               **kw)
    c["dataset_kind"] = "iterable"
    if has_len:
        c["iterable_has_len"] = True
    if set_epoch:
        c["iterable_set_epoch"] = True
    return c


def cases(version):
    v = version
    out = {}
    nd = {"dispatch": False}
    # --- Uninterrupted, DataLoaderDispatcher (dispatch_batches null: Trainer's default) ---
    out["r1-n10-b2-k1-m3"] = it(v, 1, 10, 2, 1, 3)  # inside the first pass
    out["r1-n10-b3-k1-m9"] = it(v, 1, 10, 3, 1, 9)  # 4 batches a pass (the last [9]): passes 0, 1, 2
    out["r1-n10-b2-k3-m4"] = it(v, 1, 10, 2, 3, 4)  # 5 batches a pass, k 3: the iterator ends mid-accumulation
    out["r2-n20-b2-k1-m6"] = it(v, 2, 20, 2, 1, 6)
    out["r2-n11-b2-k1-m8"] = it(v, 2, 11, 2, 1, 8)  # the last dispatch holds [10] alone: padded
    out["r2-n13-b3-k2-m5"] = it(v, 2, 13, 3, 2, 5)
    out["r3-n10-b2-k1-m5"] = it(v, 3, 10, 2, 1, 5)  # the last dispatch: 2 batches of 3 ranks' worth
    out["r4-n10-b1-k1-m6"] = it(v, 4, 10, 1, 1, 6)
    out["r2-n12-b2-k2-m4-dispatch"] = it(v, 2, 12, 2, 2, 4, dispatch=True)
    out["r2-n11-b4-k1-m5-split"] = it(v, 2, 11, 4, 1, 5, split=True)
    out["r2-n11-b2-k1-m6-uneven"] = it(v, 2, 11, 2, 1, 6, even=False)
    out["r2-n11-b2-k1-m6-droplast"] = it(v, 2, 11, 2, 1, 6, dataloader_drop_last=True)
    out["r2-n10-b2-k1-m8-setepoch"] = it(v, 2, 10, 2, 1, 8, set_epoch=True)
    # --- IterableDatasetShard (dispatch_batches false) ---
    out["r2-n11-b2-k1-m8-nodispatch"] = it(v, 2, 11, 2, 1, 8, **nd)
    out["r3-n10-b2-k2-m5-nodispatch"] = it(v, 3, 10, 2, 2, 5, **nd)
    out["r4-n10-b2-k1-m4-nodispatch"] = it(v, 4, 10, 2, 1, 4, **nd)
    out["r2-n11-b4-k1-m5-split-nodispatch"] = it(v, 2, 11, 4, 1, 5, split=True, **nd)
    out["r2-n11-b2-k1-m6-droplast-nodispatch"] = it(v, 2, 11, 2, 1, 6, dataloader_drop_last=True, **nd)
    out["r2-n11-b2-k1-m6-uneven-nodispatch"] = it(v, 2, 11, 2, 1, 6, even=False, **nd)
    out["r2-n10-b2-k1-m8-setepoch-nodispatch"] = it(v, 2, 10, 2, 1, 8, set_epoch=True, **nd)
    if v == "5.25":
        # A pass of 1 sample on 3 ranks: the dispatcher pads its only, short batch from itself; the shard cycles it.
        out["r3-n1-b1-k1-m2"] = it(v, 3, 1, 1, 1, 2)
        out["r3-n1-b1-k1-m2-nodispatch"] = it(v, 3, 1, 1, 1, 2, **nd)
    # --- With __len__ ---
    out["r2-n11-b2-k2-e2-haslen"] = it(v, 2, 11, 2, 2, -1, E=2, has_len=True)  # epoch based
    out["r2-n11-b2-k2-m7-haslen"] = it(v, 2, 11, 2, 2, 7, has_len=True)
    out["r2-n11-b2-k2-e2-haslen-nodispatch"] = it(v, 2, 11, 2, 2, -1, E=2, has_len=True, **nd)
    # 2 batches a pass, k 3: no pass completes an accumulation step, so no optimizer step is ever taken and the
    # epochs never end (num_train_epochs is sys.maxsize without a length): recorded as a Hang (hang timeout 300 s).
    out["r1-n4-b2-k3-m2-neverstep"] = it(v, 1, 4, 2, 3, 2)
    # train_sampling_strategy "group_by_length" (4.57: group_by_length=True) on an IterableDataset: 5.25 ignores it
    # (no sampler), 4.57 refuses it in Trainer.__init__.
    out["r2-n10-b2-k1-m4-gbl"] = it(v, 2, 10, 2, 1, 4, train_sampling_strategy="group_by_length")
    # --- Refused: no length and max_steps -1 ---
    out["r1-n10-b2-k1-e1-nomaxsteps"] = it(v, 1, 10, 2, 1, -1)
    out["r2-n10-b2-k1-e1-nomaxsteps"] = it(v, 2, 10, 2, 1, -1)
    # --- Resumed from checkpoint-G ---
    if v == "5.25":
        out["r2-n20-b2-k1-m8-resume-g3"] = it(v, 2, 20, 2, 1, 8, resume=resume(3, 2, 2, 1))
        out["r2-n10-b2-k1-m8-resume-g5"] = it(v, 2, 10, 2, 1, 8, resume=resume(5, 2, 2, 1))  # G past pass 0
        out["r2-n10-b2-k1-m8-resume-g5-ignoreskip"] = it(v, 2, 10, 2, 1, 8,
                                                         resume=resume(5, 2, 2, 1, ignore_data_skip=True))
        out["r2-n20-b2-k3-m5-resume-g2"] = it(v, 2, 20, 2, 3, 5, resume=resume(2, 2, 2, 3))
        out["r2-n20-b2-k1-m8-resume-g3-ignoreskip"] = it(v, 2, 20, 2, 1, 8,
                                                         resume=resume(3, 2, 2, 1, ignore_data_skip=True))
        out["r2-n20-b2-k1-m8-resume-g8"] = it(v, 2, 20, 2, 1, 8, resume=resume(8, 2, 2, 1))  # G = max_steps
        out["r2to3-n24-b2-k1-m8-resume-g3"] = it(v, 2, 24, 2, 1, 8, resume=resume(3, 3, 2, 1))
        out["r3to2-n24-b2-k1-m8-resume-g3"] = it(v, 3, 24, 2, 1, 8, resume=resume(3, 2, 2, 1))
        out["r2-n20-b2-k1-m8-resume-g3-nodispatch"] = it(v, 2, 20, 2, 1, 8, resume=resume(3, 2, 2, 1), **nd)
        out["r2-n10-b2-k1-m8-resume-g5-nodispatch"] = it(v, 2, 10, 2, 1, 8, resume=resume(5, 2, 2, 1), **nd)
        out["r2to3-n24-b2-k1-m8-resume-g3-nodispatch"] = it(v, 2, 24, 2, 1, 8, resume=resume(3, 3, 2, 1), **nd)
        out["r2-n10-b2-k1-m8-setepoch-resume-g5"] = it(v, 2, 10, 2, 1, 8, set_epoch=True, resume=resume(5, 2, 2, 1))
        out["r2-n11-b2-k2-e3-haslen-resume-g4"] = it(v, 2, 11, 2, 2, -1, E=3, has_len=True,
                                                     resume=resume(4, 2, 2, 2))
        out["r2-n11-b2-k2-e3-haslen-setepoch-resume-g3"] = it(v, 2, 11, 2, 2, -1, E=3, has_len=True, set_epoch=True,
                                                              resume=resume(3, 2, 2, 2))
        out["r2-n10-b2-k1-m8-setepoch-resume-g8"] = it(v, 2, 10, 2, 1, 8, set_epoch=True, resume=resume(8, 2, 2, 1))
    # Resumed jobs of one process (4.57 cannot resume a multi-process CPU job: RuntimeError, cpu:0).
    out["r1-n10-b2-k1-m8-resume-g3"] = it(v, 1, 10, 2, 1, 8, resume=resume(3, 1, 2, 1))
    out["r1-n10-b2-k1-m8-resume-g7"] = it(v, 1, 10, 2, 1, 8, resume=resume(7, 1, 2, 1))  # G in pass 1
    out["r1-n10-b2-k1-m8-resume-g7-ignoreskip"] = it(v, 1, 10, 2, 1, 8,
                                                     resume=resume(7, 1, 2, 1, ignore_data_skip=True))
    out["r1-n20-b2-k1-m8-resume-g3-ignoreskip"] = it(v, 1, 20, 2, 1, 8,
                                                     resume=resume(3, 1, 2, 1, ignore_data_skip=True))
    out["r1-n10-b2-k3-m6-resume-g2"] = it(v, 1, 10, 2, 3, 6, resume=resume(2, 1, 2, 3))
    out["r2to1-n20-b2-k1-m8-resume-g3"] = it(v, 2, 20, 2, 1, 8, resume=resume(3, 1, 2, 1))
    out["r1-n10-b2-k1-m8-setepoch-resume-g7"] = it(v, 1, 10, 2, 1, 8, set_epoch=True, resume=resume(7, 1, 2, 1))
    # set_epoch makes the resumed epoch visible: G = max_steps resumes in epoch 1 (one step more); with __len__ a G
    # mid-epoch 1 skips inside epoch 1's order.
    out["r1-n10-b2-k1-m8-setepoch-resume-g8"] = it(v, 1, 10, 2, 1, 8, set_epoch=True, resume=resume(8, 1, 2, 1))
    out["r1-n11-b2-k2-e3-haslen-setepoch-resume-g5"] = it(v, 1, 11, 2, 2, -1, E=3, has_len=True, set_epoch=True,
                                                          resume=resume(5, 1, 2, 2))
    if v == "4.57":
        out["r2-n20-b2-k1-m8-resume-g3"] = it(v, 2, 20, 2, 1, 8, resume=resume(3, 2, 2, 1))  # the cpu:0 failure
    return {f"trainer-v{v}-iter-{desc}": c for desc, c in out.items()}


def write(name, c):
    target = os.path.join(GOLDEN, DIRECTORY, name + ".json")
    if os.path.exists(target):
        return 0
    with open(target, "w") as f:
        json.dump({"case": name, "family": "trainer", "config": c}, f, indent=2)
        f.write("\n")
    return 1


def main():
    os.makedirs(os.path.join(GOLDEN, DIRECTORY), exist_ok=True)
    written = total = 0
    for version in VERSIONS:
        for name, c in sorted(cases(version).items()):
            written += write(name, c)
            total += 1
    print(f"trainer_iterable_set: {written} of {total} inputs written to golden/{DIRECTORY}")


if __name__ == "__main__":
    main()
