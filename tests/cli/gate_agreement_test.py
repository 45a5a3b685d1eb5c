#!/usr/bin/env python3
"""Issue 25: the CI gate and the report agree. For generated command lines, every requirement's verdict from
`accel-sim check FLAGS --require LIST --json` equals the one the what-if shows for the same flags
(`accel-sim FLAGS --require LIST --json`, its `requirements` object), and a configuration one refuses the other
refuses with the same message. The flags cover the loader, resume, eval and training options, an `accelerate
config` file (a DeepSpeed one with gradient accumulation) and ACCELERATE_* variables: the resolution the gate
once skipped.

    gate_agreement_test.py ACCEL_SIM [--cases N] [--seed S]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

REQUIREMENTS = ["no-duplicates", "no-drops", "lockstep", "len-consistent", "full-coverage", "exact-resume",
                "exact-metrics"]


def generate(rng, config_files):
    flags, env = [], {}
    ranks = rng.choice([1, 2, 3, 4, 8])
    if rng.random() < 0.2:
        flags += ["--config-file", rng.choice(config_files)]
    else:
        flags += ["--ranks", str(ranks)]
    flags += ["--dataset-len", str(rng.choice([0, 1, 7, 10, 23, 64, 101, 1000])),
              "--batch-size", str(rng.choice([1, 2, 3, 4, 8, 16]))]
    for flag, p in [("--drop-last", 0.2), ("--no-even-batches", 0.2), ("--split-batches", 0.15), ("--shuffle", 0.5),
                    ("--use-seedable-sampler", 0.2), ("--no-device-placement", 0.1)]:
        if rng.random() < p:
            flags.append(flag)
    if rng.random() < 0.2:
        flags += ["--dataset", "iterable"]
    if rng.random() < 0.5:
        flags += ["--set-seed", str(rng.choice([0, 1, 42]))]
    if rng.random() < 0.3:
        flags += ["--seed", str(rng.choice([3, 7]))]
    epochs = rng.choice([1, 1, 2, 3])
    flags += ["--epochs", str(epochs)]
    if rng.random() < 0.15:
        flags += ["--api", "prepare_data_loader"]
    names = rng.sample(REQUIREMENTS, rng.randint(1, 3))
    if "exact-resume" in names or rng.random() < 0.2:
        if rng.random() < 0.5:
            flags += ["--resume-at", f"{rng.randrange(epochs)}:{rng.randrange(4)}"]
        else:
            flags += ["--resume-at-step", str(rng.randrange(12))]
            if rng.random() < 0.5:
                flags += ["--grad-accum", str(rng.choice([1, 2, 4]))]
            elif rng.random() < 0.5:
                env["ACCELERATE_GRADIENT_ACCUMULATION_STEPS"] = str(rng.choice([2, 4]))
        if rng.random() < 0.3:
            flags.append("--loop-set-epoch")
        if rng.random() < 0.2:
            flags += ["--resume-ranks", str(rng.choice([1, 2, 4]))]
    if "exact-metrics" in names and rng.random() < 0.3:
        flags.append("--use-gather-object")
    if rng.random() < 0.15:
        flags += ["--scheduler", "linear", "--total-steps", "20", "--warmup", "2"]
    return flags, ",".join(names), env


def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("accel_sim")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"gate agreement: seed {seed}, {a.cases} cases (replay: --seed {seed})")
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp()
    ds = os.path.join(tmp, "deepspeed.yaml")
    with open(ds, "w") as f:
        f.write("distributed_type: DEEPSPEED\ndeepspeed_config:\n  gradient_accumulation_steps: 4\nnum_processes: 8\n")
    multi = os.path.join(tmp, "multi_gpu.yaml")
    with open(multi, "w") as f:
        f.write("distributed_type: MULTI_GPU\nnum_processes: 4\nmixed_precision: bf16\n")
    env_off = {k: v for k, v in os.environ.items() if not k.startswith("ACCELERATE_")}
    os.environ.clear()
    os.environ.update(env_off)
    agreed = refused = judged = 0
    failures = []
    for i in range(a.cases):
        flags, names, env = generate(rng, [ds, multi])
        wi_rc, wi_out, wi_err = run([a.accel_sim, *flags, "--require", names, "--json"], env)
        ck_rc, ck_out, ck_err = run([a.accel_sim, "check", *flags, "--require", names, "--json"], env)
        line = " ".join(flags) + f" --require {names}" + "".join(f" [{k}={v}]" for k, v in env.items())
        if ck_rc == 2 or wi_rc == 2:
            if ck_rc == wi_rc and ck_err == wi_err:
                refused += 1
                continue
            failures.append(f"{line}\n    what-if exit {wi_rc} {wi_err.strip()[:200]}\n    check exit {ck_rc} "
                            f"{ck_err.strip()[:200]}")
            continue
        report = json.loads(wi_out).get("requirements")
        gate = json.loads(ck_out)
        if report is None:
            failures.append(f"{line}\n    the what-if's JSON has no requirements")
            continue
        judged += len(gate["results"])
        if report["results"] != gate["results"] or report["passed"] != gate["passed"] or (ck_rc == 0) != gate["passed"]:
            failures.append(f"{line}\n    what-if {report['results']}\n    check   {gate['results']} (exit {ck_rc})")
            continue
        agreed += 1
    for f in failures[:10]:
        print("DISAGREE " + f)
    print(f"gate agreement: {agreed} configurations judged alike ({judged} verdicts), {refused} refused alike, "
          f"{len(failures)} disagreed")
    print(f"{agreed + refused} passed, {len(failures)} failed")
    return 0 if not failures and agreed >= a.cases // 3 else 1


if __name__ == "__main__":
    sys.exit(main())
