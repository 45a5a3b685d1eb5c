"""ctest recorder_plan (label recorder): python -m accelerate_sim.plan on Accelerate's examples/nlp_example.py loop shape
with stand-in data (tests/recorder/scripts/nlp_example_standin.py: nothing downloaded), on a script with a custom
batch sampler (which plan must name), and on scripts that prepare nothing (exit 3); bad input exits 2. The real
Accelerate 1.15.0 on Debian's torch 1.13 (the scripts run in plan's process, after golden/reference/shims.py)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL {what}")
    return cond


def plan(*args):
    env = dict(os.environ, RANK="3", WORLD_SIZE="4")  # a launcher's variables: plan must drop them
    p = subprocess.run([sys.executable, os.path.join(HERE, "with_shims.py"), "accelerate_sim.plan", *args],
                       capture_output=True, text=True, env=env, timeout=100)
    print(f"--- plan {' '.join(args)}: exit {p.returncode}\n{p.stdout[:6000]}{p.stderr[-3000:]}")
    return p


def main():
    scripts = os.path.join(HERE, "scripts")
    nlp = os.path.join(scripts, "nlp_example_standin.py")
    p = plan(nlp, "--cpu", "--num-processes", "8", "--plan-epochs", "3")
    out = p.stdout
    check(p.returncode == 0, "nlp_example: exit code")
    check("stopped at the first iteration of a prepared loader (DataLoaderShard), before the first training step" in out,
          "nlp_example: stopped before the first step")
    check("epoch 0: done" not in out, "nlp_example: the script trained")
    check("  set_seed(42)\n" in out, "nlp_example: set_seed read")
    check("scheduler lr_scheduler: linear (lr=2e-05, warmup=100, total_steps=687)" in out, "nlp_example: scheduler read")
    train, _, evaluation = out.partition("== eval_dataloader")
    check("== train_dataloader: DataLoader over StandInMRPC (Accelerator.prepare call 1), planned on 8 processes" in train,
          "nlp_example: train loader named")
    for flag in ("--dataset-len 3668", "--batch_size 16", "--drop_last", "--shuffle", "--num_processes 8",
                 "--set-seed 42", "--epochs 3", "--scheduler linear", "--warmup 100", "--total-steps 687"):
        check(flag in train.split("\n$ accel-sim ", 1)[-1].split("\n", 1)[0], f"nlp_example: train flag {flag}")
    check(any(line.split() == ["as", "configured", "28", "3584", "0", "84", "-"] for line in train.splitlines()),
          "nlp_example: 8 ranks x 28 steps, 84 dropped")
    check("8 scheduler steps per optimizer step" in train, "nlp_example: the schedule simulated")
    check("--rng-state STATE_FILE" in train and "words past set_seed at prepare" in train,
          "nlp_example: the model's draws between set_seed and prepare are read")
    check("--dataset-len 408 --batch_size 32" in evaluation and "104 samples are seen twice" in evaluation,
          "nlp_example: eval loader planned")
    check("ACCELERATE_USE_CPU" not in out, "nlp_example: plan's CPU forcing leaked into the what-if")
    check("not modelled: the loop around the loaders" in out, "nlp_example: what it cannot read is named")

    p = plan("--num-processes", "4", os.path.join(scripts, "custom_batch_sampler.py"), "7")
    out = p.stdout
    check(p.returncode == 0, "custom batch sampler: exit code")
    check("not modelled: train_loader: batch_sampler __main__.BucketBatchSampler is not modelled" in out,
          "custom batch sampler: named")
    check("== eval_loader" in out and "--dataset-len 100 --batch_size 10" in out and "--set-seed 7" in out,
          "custom batch sampler: the eval loader is still planned, with the script's argument")

    # Issue 50: gradient accumulation simulated with the scheduler's loader is not then called "not modelled".
    accum = os.path.join(scripts, "grad_accum.py")
    p = plan(accum, "--num-processes", "2")
    out = p.stdout
    train, _, evaluation = out.partition("== eval_loader")
    check(p.returncode == 0, "grad_accum: exit code")
    check("--grad-accum 4" in train and "training (rank 0): gradient_accumulation_steps 4" in train,
          "grad_accum: accumulation simulated with the training loader's scheduler")
    check("note: gradient_accumulation_steps 4 is simulated with train_loader" in evaluation,
          "grad_accum: the eval loader says where accumulation is simulated")
    check("simulated: gradient_accumulation_steps 4 in train_loader's training loop" in out,
          "grad_accum: the summary says accumulation is simulated")
    check(not any(line.startswith("not modelled:") and "accumulation" in line for line in out.splitlines()),
          "grad_accum: accumulation not called 'not modelled' after it was simulated")
    p = plan(accum, "--no-scheduler", "--num-processes", "2")
    out = p.stdout
    check(p.returncode == 0 and "--grad-accum" not in out, "grad_accum --no-scheduler: no training loop simulated")
    check("not modelled: gradient_accumulation_steps 4 (train_loader, eval_loader): the training loop" in out
          and not any(line.startswith("simulated:") for line in out.splitlines()),
          "grad_accum --no-scheduler: accumulation named as not modelled, once")

    with tempfile.TemporaryDirectory() as tmp:
        noop = os.path.join(tmp, "noop.py")
        with open(noop, "w") as f:
            f.write("import accelerate\nprint('nothing prepared')\n")
        failing = os.path.join(tmp, "failing.py")
        with open(failing, "w") as f:
            f.write("from accelerate import Accelerator\nacc = Accelerator()\nraise OSError('dataset not found')\n")
        exiting = os.path.join(tmp, "exiting.py")
        with open(exiting, "w") as f:
            f.write("import sys\nsys.exit(4)\n")
        p = plan(noop, "--num-processes", "2")
        check(p.returncode == 3 and "nothing to plan, no DataLoader was prepared" in p.stderr
              and p.stderr.rstrip().endswith(": the script ran to its end"), "noop: exit 3")
        p = plan(failing, "--num-processes", "2")
        check(p.returncode == 3 and p.stderr.rstrip().endswith(": the script failed at failing.py:3: OSError: dataset not found"), "failing: exit 3")
        p = plan(exiting, "--num-processes", "2")
        check(p.returncode == 3 and "sys.exit(4)" in p.stderr, "exiting: exit 3")
        for bad in ([noop], [noop, "--num-processes", "0"], [os.path.join(tmp, "missing.py"), "--num-processes", "2"],
                    ["--num-processes", "2"]):
            p = plan(*bad)
            check(p.returncode == 2 and p.stderr.startswith("accelerate_sim.plan: "), f"bad input {bad}: exit 2")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("plan: scripts read, stopped before training, unmodelled pieces named")
    return 0


if __name__ == "__main__":
    sys.exit(main())
