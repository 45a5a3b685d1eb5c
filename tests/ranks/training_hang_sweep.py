#!/usr/bin/env python3
"""Real ranks that train, against the prediction: for N generated configs, `accel-sim launch` runs a DDP
training step on real Gloo ranks (127.0.0.1) and must block exactly where the simulator says.

  training_hang_sweep.py ACCEL_SIM [--configs N] [--seed S] [--timeout-s T]

Two predictions are checked. For a plain loop (one epoch, no accumulation, no join) the what-if report's own
analysis (`accel-sim --json`: scenarios[0].waiting_ranks, min_steps) must name the ranks that block and the
step; an independent path (the lock-step analysis), not the training loop that ran. For every config, rank 0
compares the real ranks with sim::simulate_training_ranks and exits 1 on any difference, 5 for a predicted
hang, 0 for a job that completed; anything else fails. Prints one table row per config (predicted, observed,
wall seconds) and the seed to replay.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from launch_verdict import hang_of, ranks_of  # noqa: E402


def generate(rng):
    ranks = rng.randint(2, 5)
    batch = rng.randint(1, 4)
    length = rng.randint(ranks, 12 * ranks)
    flags = ["--dataset-len", str(length), "--batch-size", str(batch)]
    # Mostly uneven loaders: those are the jobs that can hang.
    if rng.random() < 0.8:
        flags.append("--no-even-batches")
    if rng.random() < 0.25:
        flags.append("--drop-last")
    if rng.random() < 0.2:
        flags += ["--shuffle", "--set-seed", str(rng.randint(0, 1000))]
    if rng.random() < 0.15 and batch % ranks == 0:
        flags.append("--split-batches")
    if rng.random() < 0.1:
        flags += ["--dataset", "iterable", "--no-dispatch-batches"]
    epochs = 1 if rng.random() < 0.75 else 2
    if epochs > 1:
        flags += ["--epochs", str(epochs)]
    loop = []
    r = rng.random()
    if r < 0.15:
        loop += ["--grad-accum", str(rng.randint(2, 3))]
    elif r < 0.25:
        loop += ["--grad-accum", "2", "--sync-each-batch"]
    if rng.random() < 0.15:
        loop.append("--join-uneven-inputs")
        # Accelerate joins only on multi-device jobs; over gloo the default is MULTI_CPU, where it does nothing.
        if rng.random() < 0.5:
            loop += ["--distributed-type", "MULTI_GPU"]
    return ranks, flags, loop


def plain(flags, loop):
    return not loop and "--epochs" not in flags


def what_if(bin_, ranks, flags):
    out = subprocess.run([bin_, "--ranks", str(ranks), *flags, "--json"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        return None
    s = json.loads(out.stdout)["scenarios"][0]
    return {"waiting": s["waiting_ranks"], "step": s["min_steps"] if s["waiting_ranks"] else None}





def main():
    args = sys.argv[1:]
    bin_ = args[0]
    count, seed, timeout = 50, 20261201, 5
    i = 1
    while i < len(args):
        if args[i] == "--configs":
            count = int(args[i + 1])
        elif args[i] == "--seed":
            seed = int(args[i + 1])
        elif args[i] == "--timeout-s":
            timeout = float(args[i + 1])
        i += 2
    print(f"training_hang_sweep: {count} configs, seed {seed} (replay: --seed {seed} --configs {count})")
    rng = random.Random(seed)
    failures, hangs, plain_checked = [], 0, 0
    print(f"{'#':>3}  {'ranks':>5}  {'config':<62} {'predicted (what-if)':<22} {'observed (real ranks)':<32} {'rc':>2} {'s':>5}")
    for n in range(count):
        ranks, flags, loop = generate(rng)
        with tempfile.NamedTemporaryFile(suffix=".json") as trace:
            started = time.monotonic()
            run = subprocess.run([bin_, "launch", "--nproc", str(ranks), "--timeout-s", str(timeout), "--out", trace.name,
                                  *flags, *loop], capture_output=True, text=True, timeout=120)
            took = time.monotonic() - started
        log = run.stdout + run.stderr
        m = hang_of(log)
        observed = {"waiting": ranks_of(m.group(1)), "step": int(m.group(4)), "epoch": int(m.group(3))} if m else None
        predicted = what_if(bin_, ranks, flags) if plain(flags, loop) else None
        shown_pred = "-"
        if predicted is not None:
            shown_pred = f"ranks {predicted['waiting']} @ {predicted['step']}" if predicted["waiting"] else "completes"
        shown_obs = f"ranks {observed['waiting']} @ e{observed['epoch']} s{observed['step']}" if observed else (
            "completed" if run.returncode == 0 else "?")
        print(f"{n:>3}  {ranks:>5}  {' '.join(flags + loop):<62} {shown_pred:<22} {shown_obs:<32} {run.returncode:>2} {took:5.1f}")
        problem = None
        if run.returncode not in (0, 5):
            problem = f"exit {run.returncode} (0: completed as predicted, 5: hang as predicted)"
        elif (run.returncode == 5) != (observed is not None):
            problem = "exit code and rank 0's verdict disagree"
        elif predicted is not None:
            plain_checked += 1
            want = predicted["waiting"]
            got = observed["waiting"] if observed else []
            if want != got or (observed and (observed["step"] != predicted["step"] or observed["epoch"] != 0)):
                problem = f"the what-if predicted {shown_pred}, real ranks {shown_obs}"
        if observed:
            hangs += 1
        if problem:
            failures.append((n, problem, log))
    print(f"training_hang_sweep: {count} configs ({hangs} hung, {plain_checked} checked against the what-if), "
          f"{len(failures)} failed")
    for n, problem, log in failures:
        print(f"FAIL config {n}: {problem}\n{log}")
    if hangs == 0 or plain_checked == 0:
        print("FAIL: the sweep exercised no hang or no what-if prediction; it would prove nothing")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
