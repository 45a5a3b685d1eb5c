"""Writes the inputs of the `trainer` golden cases (golden/cases-trainer/trainer-v<5.25|4.57>-*.json):

    python3 golden/reference/trainer_set.py
    # then, each with its release's environment (golden/reference/setup-transformers):
    for f in golden/cases-trainer/trainer-v5.25-*.json; do
      build/reference-venv-transformers-5.25/bin/python golden/reference/trainer.py "$f" --write; done
    for f in golden/cases-trainer/trainer-v4.57-*.json; do
      build/reference-venv-transformers-4.57/bin/python golden/reference/trainer.py "$f" --write; done

The real transformers.Trainer over a map-style dataset of n samples in gloo groups of R CPU processes: epochs and
max_steps, gradient accumulation with a short last accumulation step, drop_last, seed / data_seed, the sequential
sampler (5.25), Accelerate's RandomSampler (use_seedable_sampler false) and split_batches; then resumes from
checkpoint-G in fresh processes: mid-epoch and at an epoch boundary, ignore_data_skip, and a different world size,
per-device batch size or accumulation in the resumed job. A resume's G is checked to fall inside the first job
(the recorder refuses it otherwise). The `-gbl-` cases train with transformers' LengthGroupedSampler
(train_sampling_strategy "group_by_length" in 5.25, group_by_length=True in 4.57) over per-sample `lengths` drawn here
with a fixed Python random.Random: "rand" (1..64, few ties) or "ties" (from {0, 8, 8, 16, 32}). A file is written only when the case is not there yet, as `case`, `family` and
`config` alone.
"""
import json
import math
import os
import random

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTORY = "cases-trainer"
VERSIONS = ("5.25", "4.57")


def config(version, R, n, b, k, E, **kw):
    c = {"api": "trainer", "transformers_version": version, "dataset_len": n, "num_processes": R,
         "per_device_train_batch_size": b, "gradient_accumulation_steps": k, "num_train_epochs": E,
         "max_steps": -1, "dataloader_drop_last": False, "seed": 42, "data_seed": None,
         "train_sampling_strategy": "random",
         "accelerator_config": {"split_batches": False, "dispatch_batches": None, "even_batches": True,
                                "use_seedable_sampler": True},
         "resume": None}
    acc = kw.pop("accelerator_config", {})
    c["accelerator_config"].update(acc)
    c.update(kw)
    return c


def lengths(kind, n):
    """Per-sample lengths for the group_by_length cases, fixed by (kind, n)."""
    if kind == "rand":
        rng = random.Random(1000 + n)
        return [rng.randint(1, 64) for _ in range(n)]
    if kind == "ties":
        rng = random.Random(2000 + n)
        return [rng.choice((0, 8, 8, 16, 32)) for _ in range(n)]
    raise ValueError(kind)


def gbl(version, R, n, b, k, E, kind, **kw):
    """A group_by_length config: LengthGroupedSampler over lengths(kind, n)."""
    return config(version, R, n, b, k, E, train_sampling_strategy="group_by_length", lengths=lengths(kind, n), **kw)


def resume(G, R2, b2, k2, ignore_data_skip=False):
    return {"global_step": G, "num_processes": R2, "per_device_train_batch_size": b2,
            "gradient_accumulation_steps": k2, "ignore_data_skip": ignore_data_skip}


def per_rank_batches(n, b, R, drop_last, split_batches):
    """len() of the prepared loader per rank (BatchSamplerShard, even_batches true)."""
    batches = n // b if drop_last else math.ceil(n / b)
    if split_batches:
        return batches
    return batches // R if drop_last else math.ceil(batches / R)


def steps_of(c):
    """(update steps per epoch, the first job's total steps), as Trainer.set_initial_training_values."""
    batches = per_rank_batches(c["dataset_len"], c["per_device_train_batch_size"], c["num_processes"],
                               c["dataloader_drop_last"], c["accelerator_config"]["split_batches"])
    k = c["gradient_accumulation_steps"]
    per_epoch = max(batches // k + int(batches % k > 0), 1)
    return per_epoch, (c["max_steps"] if c["max_steps"] > 0 else c["num_train_epochs"] * per_epoch)


def cases(version):
    v = version
    out = {}
    # Uninterrupted.
    out["r1-n23-b2-k1-e2"] = config(v, 1, 23, 2, 1, 2)
    out["r2-n27-b2-k3-e2"] = config(v, 2, 27, 2, 3, 2)  # 7 batches per rank: a short last accumulation step
    out["r3-n50-b3-k4-e3"] = config(v, 3, 50, 3, 4, 3)
    out["r2-n37-b4-k2-e2-droplast"] = config(v, 2, 37, 4, 2, 2, dataloader_drop_last=True)
    out["r2-n37-b3-k2-e2-dataseed7"] = config(v, 2, 37, 3, 2, 2, data_seed=7)
    out["r2-n30-b2-k3-maxsteps7"] = config(v, 2, 30, 2, 3, 1, max_steps=7)  # crosses epochs
    out["r3-n41-b2-k2-e2-seed123"] = config(v, 3, 41, 2, 2, 2, seed=123)
    if v != "4.57":  # 4.57 has no train_sampling_strategy
        out["r2-n23-b2-k1-e2-sequential"] = config(v, 2, 23, 2, 1, 2, train_sampling_strategy="sequential")
    out["r2-n23-b2-k2-e2-noseedable"] = config(v, 2, 23, 2, 2, 2,
                                               accelerator_config={"use_seedable_sampler": False})
    out["r2-n25-b2-k2-e2-splitbatches"] = config(v, 2, 25, 2, 2, 2, accelerator_config={"split_batches": True})
    # Issue 51: a train loader of length 0 (1 sample, batch 2 per device, drop_last): epoch-based training raises
    # (`if len_dataloader:` is false and max_steps is -1); with max_steps it trains 0 steps.
    out["r2-n1-b2-k1-e1-droplast-empty"] = config(v, 2, 1, 2, 1, 1, dataloader_drop_last=True)
    out["r2-n1-b2-k1-maxsteps3-droplast-empty"] = config(v, 2, 1, 2, 1, 1, dataloader_drop_last=True, max_steps=3)
    # Resumed from checkpoint-G.
    out["r2-n27-b2-k3-e3-resume-g2"] = config(v, 2, 27, 2, 3, 3, resume=resume(2, 2, 2, 3))
    out["r2-n27-b2-k3-e3-resume-g3-epochend"] = config(v, 2, 27, 2, 3, 3, resume=resume(3, 2, 2, 3))
    out["r2-n27-b2-k3-e3-resume-g2-ignoreskip"] = config(v, 2, 27, 2, 3, 3,
                                                         resume=resume(2, 2, 2, 3, ignore_data_skip=True))
    out["r2to3-n50-b2-k2-e2-resume-g5"] = config(v, 2, 50, 2, 2, 2, resume=resume(5, 3, 2, 2))
    out["r3to2-n50-b2-k2-e2-resume-g5"] = config(v, 3, 50, 2, 2, 2, resume=resume(5, 2, 2, 2))
    out["r1to2-n23-b2-k1-e2-resume-g4"] = config(v, 1, 23, 2, 1, 2, resume=resume(4, 2, 2, 1))
    out["r2-n40-b2to3-k2-e2-resume-g3"] = config(v, 2, 40, 2, 2, 2, resume=resume(3, 2, 3, 2))
    out["r2-n40-b2-k2to4-e2-resume-g3"] = config(v, 2, 40, 2, 2, 2, resume=resume(3, 2, 2, 4))
    out["r2-n30-b2-k3-maxsteps9-resume-g4"] = config(v, 2, 30, 2, 3, 1, max_steps=9, resume=resume(4, 2, 2, 3))
    out["r2-n23-b2-k2-e2-noseedable-resume-g3"] = config(v, 2, 23, 2, 2, 2,
                                                         accelerator_config={"use_seedable_sampler": False},
                                                         resume=resume(3, 2, 2, 2))
    out["r2-n27-b2-k3-e2-dataseed5-resume-g4"] = config(v, 2, 27, 2, 3, 2, data_seed=5, resume=resume(4, 2, 2, 3))
    out["r2-n37-b4-k2-e3-droplast-resume-g3"] = config(v, 2, 37, 4, 2, 3, dataloader_drop_last=True,
                                                       resume=resume(3, 2, 4, 2))
    out["r2-n23-b2-k1-e3-resume-g13-ignoreskip"] = config(v, 2, 23, 2, 1, 3,
                                                          resume=resume(13, 2, 2, 1, ignore_data_skip=True))
    # Resumed jobs of one process. transformers 4.57 cannot resume a multi-process CPU job (its
    # _load_optimizer_and_scheduler loads the optimizer with map_location=args.device, "cpu:0" under Accelerate
    # 1.15, which torch.load refuses); with one process it loads to "cpu": these give 4.57 resumes that train.
    out["r1-n23-b2-k1-e2-resume-g4"] = config(v, 1, 23, 2, 1, 2, resume=resume(4, 1, 2, 1))
    out["r1-n27-b2-k3-e3-resume-g5-epochend"] = config(v, 1, 27, 2, 3, 3, resume=resume(5, 1, 2, 3))
    out["r2to1-n27-b2-k3-e3-resume-g2"] = config(v, 2, 27, 2, 3, 3, resume=resume(2, 1, 2, 3))
    out["r1-n23-b2-k2-e2-noseedable-resume-g3"] = config(v, 1, 23, 2, 2, 2,
                                                         accelerator_config={"use_seedable_sampler": False},
                                                         resume=resume(3, 1, 2, 2))
    if v == "5.25":
        # A bigger one: 8 ranks, 391 batches per rank and epoch, 98 update steps per epoch, resumed mid-epoch 1.
        out["r8-n50000-b16-k4-e3-resume-g100"] = config(v, 8, 50000, 16, 4, 3, resume=resume(100, 8, 16, 4))
        # The what-if's recipe for another world size: keep the global batch (R x b), recorded exact.
        for n in (23, 24):
            out[f"r2to4-n{n}-b4to2-e2-resume-g2-globalbatch"] = config(v, 2, n, 4, 1, 2, resume=resume(2, 4, 2, 1))
    # group_by_length: LengthGroupedSampler, whose randperm comes from each process's global generator (no
    # set_epoch, data_seed unused), or from the generator prepare gives it without the seedable sampler.
    out["r1-n23-b2-k1-e2-gbl-rand"] = gbl(v, 1, 23, 2, 1, 2, "rand")
    out["r2-n37-b2-k2-e3-gbl-rand"] = gbl(v, 2, 37, 2, 2, 3, "rand")
    out["r3-n50-b2-k1-e2-gbl-ties"] = gbl(v, 3, 50, 2, 1, 2, "ties")
    out["r2-n41-b3-k2-e2-gbl-ties-dataseed7"] = gbl(v, 2, 41, 3, 2, 2, "ties", data_seed=7)
    out["r2-n37-b2-k2-e2-gbl-rand-noseedable"] = gbl(v, 2, 37, 2, 2, 2, "rand",
                                                     accelerator_config={"use_seedable_sampler": False})
    out["r2-n200-b2-k1-e2-gbl-rand"] = gbl(v, 2, 200, 2, 1, 2, "rand")  # megabatches of 25 batches
    # 5 update steps per epoch: G = 7 is mid-epoch 1 (4 batches skipped), G = 5 its start.
    out["r2-n37-b2-k2-e3-gbl-rand-resume-g7"] = gbl(v, 2, 37, 2, 2, 3, "rand", resume=resume(7, 2, 2, 2))
    out["r2-n37-b2-k2-e3-gbl-rand-resume-g5-epochend"] = gbl(v, 2, 37, 2, 2, 3, "rand", resume=resume(5, 2, 2, 2))
    out["r2-n37-b2-k2-e3-gbl-rand-resume-g7-ignoreskip"] = gbl(v, 2, 37, 2, 2, 3, "rand",
                                                               resume=resume(7, 2, 2, 2, ignore_data_skip=True))
    out["r2-n37-b2-k2-e3-gbl-rand-noseedable-resume-g7"] = gbl(v, 2, 37, 2, 2, 3, "rand",
                                                               accelerator_config={"use_seedable_sampler": False},
                                                               resume=resume(7, 2, 2, 2))
    # R 2 -> 3 at G = 15 (epoch 1 of the first job, 13 steps per epoch; epoch 1 of the second, 9 per epoch): rank 2
    # finds no rng_state_2.pth and keeps its own generator.
    out["r2to3-n50-b2-k1-e3-gbl-ties-resume-g15"] = gbl(v, 2, 50, 2, 1, 3, "ties", resume=resume(15, 3, 2, 1))
    out["r3to2-n50-b2-k1-e2-gbl-rand-resume-g5"] = gbl(v, 3, 50, 2, 1, 2, "rand", resume=resume(5, 2, 2, 1))
    out["r2-n40-b2-k2to1-e2-gbl-rand-resume-g3"] = gbl(v, 2, 40, 2, 2, 2, "rand", resume=resume(3, 2, 2, 1))
    # One resumed process (4.57 resumes those): 6 update steps per epoch at R = 1.
    out["r2to1-n37-b2-k2-e3-gbl-rand-resume-g7"] = gbl(v, 2, 37, 2, 2, 3, "rand", resume=resume(7, 1, 2, 2))
    out["r1-n23-b2-k2-e3-gbl-rand-resume-g8"] = gbl(v, 1, 23, 2, 2, 3, "rand", resume=resume(8, 1, 2, 2))
    out["r1-n23-b2-k2-e3-gbl-rand-resume-g6-epochend"] = gbl(v, 1, 23, 2, 2, 3, "rand", resume=resume(6, 1, 2, 2))
    out["r1-n23-b2-k2-e3-gbl-rand-resume-g8-ignoreskip"] = gbl(v, 1, 23, 2, 2, 3, "rand",
                                                               resume=resume(8, 1, 2, 2, ignore_data_skip=True))
    out["r1to2-n23-b2-k2-e3-gbl-rand-resume-g8"] = gbl(v, 1, 23, 2, 2, 3, "rand", resume=resume(8, 2, 2, 2))
    named = {}
    for desc, c in out.items():
        if c["resume"] is not None:
            per_epoch, total = steps_of(c)
            G = c["resume"]["global_step"]
            if not 1 <= G <= total:
                raise SystemExit(f"trainer_set: {desc}: G = {G} is outside the first job's {total} steps")
            if "epochend" in desc and G % per_epoch:
                raise SystemExit(f"trainer_set: {desc}: G = {G} is not an epoch boundary ({per_epoch} per epoch)")
        named[f"trainer-v{v}-{desc}"] = c
    return named


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
    print(f"trainer_set: {written} of {total} inputs written to golden/{DIRECTORY}")


if __name__ == "__main__":
    main()
