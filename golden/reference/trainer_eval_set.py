"""Writes the inputs of the `trainer-eval` golden cases (golden/cases-trainer-eval/trainer-eval-v<5.25|4.57>-*.json):

    python3 golden/reference/trainer_eval_set.py
    # then, each with its release's environment (golden/reference/setup-transformers):
    for f in golden/cases-trainer-eval/trainer-eval-v5.25-*.json; do
      build/reference-venv-transformers-5.25/bin/python golden/reference/trainer_eval.py "$f" --write; done
    for f in golden/cases-trainer-eval/trainer-eval-v4.57-*.json; do
      build/reference-venv-transformers-4.57/bin/python golden/reference/trainer_eval.py "$f" --write; done

The real Trainer.evaluate() over a map-style dataset of n samples in gloo groups of R CPU processes (R = 1 too):
n divisible by R*b and not (a short last round, n < R*b, n < R, n = 1, n = 0), b from 1 to 5, R from 1 to 4;
dataloader_drop_last; split_batches (and a b that is no multiple of R); dispatch_batches; even_batches false
(equal rounds, a rank with one batch more: a hang, a last round of unequal sizes: gloo aborts), with and without
compute_metrics (without it only the losses, all of eval_batch_size values, are gathered); eval_do_concat_batches
false; eval_use_gather_object (and a second evaluate() call, which no longer uses it); the LengthGroupedSampler
that train_sampling_strategy "group_by_length" (5.25) / group_by_length=True (4.57) makes the eval sampler too,
over per-sample `lengths` drawn here with a fixed Python random.Random. A file is written only when the case is
not there yet, as `case`, `family` and `config` alone.
"""
import json
import os
import random

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTORY = "cases-trainer-eval"
FAMILY = "trainer-eval"
VERSIONS = ("5.25", "4.57")


def config(version, R, n, b, **kw):
    c = {"api": "trainer-eval", "transformers_version": version, "dataset_len": n, "num_processes": R,
         "per_device_eval_batch_size": b, "dataloader_drop_last": False, "seed": 42, "data_seed": None,
         "train_sampling_strategy": "random",
         "accelerator_config": {"split_batches": False, "dispatch_batches": None, "even_batches": True,
                                "use_seedable_sampler": True},
         "eval_do_concat_batches": True, "compute_metrics": True, "eval_use_gather_object": False,
         "num_evaluations": 1}
    acc = kw.pop("accelerator_config", {})
    c["accelerator_config"].update(acc)
    c.update(kw)
    return c


def lengths(n):
    """Per-sample lengths for the group_by_length cases (1..64, few ties), fixed by n."""
    rng = random.Random(3000 + n)
    return [rng.randint(1, 64) for _ in range(n)]


def cases(version):
    v = version
    uneven = {"even_batches": False}
    out = {}
    # even_batches (the default): one process, then R > 1 with n divisible by R*b and not.
    out["r1-n10-b4"] = config(v, 1, 10, 4)
    out["r1-n1-b3"] = config(v, 1, 1, 3)
    out["r2-n8-b4"] = config(v, 2, 8, 4)      # divisible
    out["r2-n10-b4"] = config(v, 2, 10, 4)    # last round: rank 0 [8,9,0,1], rank 1 [2..5], 2 kept
    out["r2-n12-b4"] = config(v, 2, 12, 4)    # last round: a full batch on rank 0 only
    out["r2-n14-b4"] = config(v, 2, 14, 4)    # last round: rank 1's batch [12,13,0,1] half padding
    out["r2-n3-b2"] = config(v, 2, 3, 2)      # n < R*b
    out["r2-n1-b1"] = config(v, 2, 1, 1)      # n = 1
    out["r2-n11-b5"] = config(v, 2, 11, 5)
    out["r3-n9-b3"] = config(v, 3, 9, 3)      # divisible
    out["r3-n10-b3"] = config(v, 3, 10, 3)
    out["r3-n20-b2"] = config(v, 3, 20, 2)
    out["r3-n2-b1"] = config(v, 3, 2, 1)      # n < R
    out["r4-n17-b3"] = config(v, 4, 17, 3)    # remainder 5 spans ranks 0 and 1
    out["r4-n3-b1"] = config(v, 4, 3, 1)
    out["r2-n0-b2"] = config(v, 2, 0, 2)      # an empty eval dataset
    # drop_last
    out["r1-n10-b4-droplast"] = config(v, 1, 10, 4, dataloader_drop_last=True)
    out["r2-n10-b4-droplast"] = config(v, 2, 10, 4, dataloader_drop_last=True)
    out["r3-n7-b2-droplast"] = config(v, 3, 7, 2, dataloader_drop_last=True)
    out["r2-n3-b2-droplast"] = config(v, 2, 3, 2, dataloader_drop_last=True)  # no full round: nothing
    # split_batches: b is the batch of all processes together, b / R per rank.
    out["r2-n10-b4-split"] = config(v, 2, 10, 4, accelerator_config={"split_batches": True})
    out["r3-n7-b3-split"] = config(v, 3, 7, 3, accelerator_config={"split_batches": True})
    out["r2-n10-b3-split"] = config(v, 2, 10, 3, accelerator_config={"split_batches": True})  # 3 % 2: refused
    # dispatch_batches: rank 0 reads R*b per step (b without split) and sends each rank its slice.
    out["r2-n10-b4-dispatch"] = config(v, 2, 10, 4, accelerator_config={"dispatch_batches": True})
    out["r3-n10-b2-dispatch"] = config(v, 3, 10, 2, accelerator_config={"dispatch_batches": True})
    # even_batches false
    out["r2-n8-b4-uneven"] = config(v, 2, 8, 4, accelerator_config=uneven)    # every rank 1 full batch: as even
    out["r2-n6-b2-uneven"] = config(v, 2, 6, 2, accelerator_config=uneven)    # rank 0 one batch more: hangs
    out["r3-n10-b3-uneven"] = config(v, 3, 10, 3, accelerator_config=uneven)  # rank 0 one batch more: hangs
    out["r2-n14-b4-uneven"] = config(v, 2, 14, 4, accelerator_config=uneven)  # last round 4 vs 2 ids
    out["r2-n14-b4-uneven-lossonly"] = config(v, 2, 14, 4, accelerator_config=uneven, compute_metrics=False)
    out["r2-n3-b2-uneven-lossonly"] = config(v, 2, 3, 2, accelerator_config=uneven, compute_metrics=False)
    # what is gathered and how it is kept
    out["r2-n10-b4-lossonly"] = config(v, 2, 10, 4, compute_metrics=False)
    out["r3-n10-b3-noconcat"] = config(v, 3, 10, 3, eval_do_concat_batches=False)
    out["r2-n10-b4-gatherobject-x2"] = config(v, 2, 10, 4, eval_use_gather_object=True, num_evaluations=2)
    out["r2-n3-b2-gatherobject"] = config(v, 2, 3, 2, eval_use_gather_object=True)  # a single step
    # group_by_length: LengthGroupedSampler(eval_batch_size) is the eval sampler, on every world size.
    gbl = "group_by_length"
    out["r2-n20-b3-gbl"] = config(v, 2, 20, 3, train_sampling_strategy=gbl, lengths=lengths(20))
    # 5.25 seeds the sampler's generator with data_seed (else seed); 4.57 gives it none (the global generator).
    out["r2-n20-b3-gbl-dataseed7"] = config(v, 2, 20, 3, train_sampling_strategy=gbl, lengths=lengths(20),
                                            data_seed=7)
    return {f"{FAMILY}-v{v}-{desc}": c for desc, c in out.items()}


def write(name, c):
    target = os.path.join(GOLDEN, DIRECTORY, name + ".json")
    if os.path.exists(target):
        return 0
    with open(target, "w") as f:
        json.dump({"case": name, "family": FAMILY, "config": c}, f, indent=2)
        f.write("\n")
    return 1


def main():
    os.makedirs(os.path.join(GOLDEN, DIRECTORY), exist_ok=True)
    written = total = 0
    for version in VERSIONS:
        for name, c in sorted(cases(version).items()):
            written += write(name, c)
            total += 1
    print(f"{FAMILY}_set: {written} of {total} inputs written to golden/{DIRECTORY}")


if __name__ == "__main__":
    main()
