"""The configs of the `resume` golden cases (golden/cases/resume-*.json, golden/cases-torch2/resume-*.json).

    resume_set.py 1.13|2 OUTDIR     writes one input file per case; golden/record then records each.

Chosen to cover the axes issue 14 names: shuffle off / RandomSampler / SeedableRandomSampler, set_seed or
data_seed, a checkpoint in epoch 0 and in epoch 1, 1-3 processes, set_epoch called by the loop or not, and each
way of resuming (stateful only on torch 2, where torchdata exists).
"""
import json
import os
import sys

ORDERS = {
    # name: (shuffle, set_seed, accelerator options)
    "seq": (False, None, {}),
    "rand": (True, 42, {}),
    "seedable": (True, None, {"use_seedable_sampler": True, "data_seed": 7}),
    "seedable-setseed": (True, 5, {"use_seedable_sampler": True}),
}

# (order, ranks, epoch, step, mode, loop_set_epoch)
TORCH113 = [
    ("seq", 2, 0, 2, "skip_first_batches", False),
    ("seq", 2, 1, 2, "continue", False),
    ("seq", 3, 1, 1, "none", False),
    ("seq", 1, 1, 3, "skip_first_batches", False),
    ("seq", 2, 0, 0, "skip_first_batches", False),
    ("rand", 2, 0, 2, "skip_first_batches", False),
    ("rand", 2, 1, 2, "skip_first_batches", False),
    ("rand", 2, 1, 2, "skip_first_batches", True),
    ("rand", 2, 0, 2, "continue", False),
    ("rand", 2, 1, 1, "continue", True),
    ("rand", 1, 0, 2, "skip_first_batches", False),
    ("rand", 1, 0, 3, "continue", False),
    ("rand", 1, 1, 2, "skip_first_batches", True),
    ("rand", 3, 0, 1, "none", False),
    ("rand", 3, 1, 2, "skip_first_batches", True),
    ("seedable", 2, 1, 2, "skip_first_batches", False),
    ("seedable", 2, 1, 2, "skip_first_batches", True),
    ("seedable", 2, 0, 2, "skip_first_batches", False),
    ("seedable", 2, 0, 2, "continue", False),
    ("seedable", 1, 1, 3, "continue", True),
    ("seedable", 3, 1, 1, "continue", False),
    ("seedable", 1, 0, 2, "skip_first_batches", True),
    ("seedable", 3, 1, 2, "none", True),
    ("seedable-setseed", 2, 1, 2, "skip_first_batches", True),
    ("seedable-setseed", 1, 0, 1, "skip_first_batches", False),
]

TORCH2 = [
    ("rand", 2, 0, 2, "stateful", False),
    ("rand", 2, 1, 2, "stateful", False),
    ("rand", 1, 0, 2, "stateful", False),
    ("rand", 1, 1, 3, "stateful", True),
    ("seedable", 2, 1, 2, "stateful", False),
    ("seedable", 2, 1, 2, "stateful", True),
    ("seedable", 3, 0, 1, "stateful", False),
    ("seq", 2, 1, 2, "stateful", False),
    ("rand", 2, 1, 2, "skip_first_batches", True),
    ("rand", 1, 0, 2, "skip_first_batches", False),
    ("seedable", 2, 1, 2, "skip_first_batches", False),
]

# Issue 25: a StatefulDataLoader checkpoint taken right after an epoch's last batch (S = the batches per rank:
# 4 with 2 ranks, 8 with 1), one batch before it, S = 0 after a finished epoch, and the uneven-ranks variant
# (even_batches=False, 20 samples: rank 0 has 4 batches, rank 1 has 3; with 3 ranks 3, 2, 2), where only some ranks
# are at their last batch and `state_writer` pins whose dl_state_dict.bin survives. Then the same checkpoints
# resumed the ways the what-if's recipe offers (from epoch E+1, skip_first_batches), to verify them.
# (order, ranks, epoch, step, mode, loop_set_epoch, extra config: dataset_len, even_batches, state_writer)
TORCH2_EPOCH_END = [
    ("seq", 2, 0, 4, "stateful", False, {}),
    ("seq", 2, 0, 3, "stateful", False, {}),
    ("seq", 2, 2, 4, "stateful", False, {}),
    ("rand", 2, 0, 4, "stateful", False, {}),
    ("rand", 2, 1, 4, "stateful", False, {}),
    ("rand", 2, 0, 3, "stateful", False, {}),
    ("rand", 1, 0, 8, "stateful", False, {}),
    ("rand", 1, 1, 0, "stateful", False, {}),
    ("seedable", 2, 1, 4, "stateful", True, {}),
    ("seq", 2, 0, 3, "stateful", False, {"dataset_len": 20, "even_batches": False, "state_writer": 0}),
    ("seq", 2, 0, 3, "stateful", False, {"dataset_len": 20, "even_batches": False, "state_writer": 1}),
    ("seedable", 2, 0, 3, "stateful", False, {"dataset_len": 20, "even_batches": False, "state_writer": 0}),
    ("seedable", 2, 0, 3, "stateful", False, {"dataset_len": 20, "even_batches": False, "state_writer": 1}),
    ("seq", 3, 0, 2, "stateful", False, {"dataset_len": 20, "even_batches": False, "state_writer": 0}),
    ("seq", 3, 0, 2, "stateful", False, {"dataset_len": 20, "even_batches": False, "state_writer": 2}),
    ("seq", 2, 0, 3, "stateful", False, {"dataset_len": 20}),
    ("seq", 2, 0, 4, "stateful", False, {"dataset_len": 20}),
    # The recipes: resume from epoch E+1 (the checkpoint after epoch E's last batch is the one before E+1) ...
    ("seq", 2, 1, 0, "stateful", False, {}),
    ("seedable", 2, 2, 0, "stateful", True, {}),
    # ... and, where only some ranks had finished, skip_first_batches with the loader's own count.
    ("seq", 2, 0, 3, "skip_first_batches", False, {"dataset_len": 20, "even_batches": False}),
    ("seedable", 2, 0, 3, "skip_first_batches", True, {"dataset_len": 20, "even_batches": False}),
]


def case(order, ranks, epoch, step, mode, loop_set_epoch, extra=None):
    extra = extra or {}
    shuffle, seed, acc = ORDERS[order]
    acc = dict(acc)
    if mode == "stateful":
        acc["use_stateful_dataloader"] = True
    if "even_batches" in extra:
        acc["even_batches"] = extra["even_batches"]
    length = extra.get("dataset_len", 23)
    shape = (f"-l{length}" if length != 23 else "") + ("-uneven" if extra.get("even_batches") is False else "")
    name = (f"resume-{order}-n{ranks}{shape}-e{epoch}s{step}-{mode.replace('_', '')}" +
            ("-setepoch" if loop_set_epoch else "") +
            (f"-w{extra['state_writer']}" if "state_writer" in extra else ""))
    config = {"api": "resume", "dataset_len": length, "batch_size": 3, "num_processes": ranks, "multiprocess": True,
              "shuffle": shuffle, "set_seed": seed, "epochs": 3}
    if acc:
        config["accelerator"] = acc
    config["resume"] = {"epoch": epoch, "step": step, "with": mode, "loop_set_epoch": loop_set_epoch}
    if "state_writer" in extra:
        config["resume"]["state_writer"] = extra["state_writer"]
    return name, {"case": name, "family": "resume", "config": config}


def main():
    which, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for spec in TORCH113 if which == "1.13" else TORCH2 + TORCH2_EPOCH_END:
        name, doc = case(*spec)
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(doc, f)


if __name__ == "__main__":
    main()
