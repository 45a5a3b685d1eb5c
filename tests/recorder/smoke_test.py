"""ctest recorder_smoke (label recorder): python -m accelerate_sim.smoke on real gloo groups (tests/recorder/launch.py,
the environment torchrun / `accelerate launch --cpu` give), with Accelerate 1.15.0 on Debian's torch 1.13: verdict
line and exit code for configurations the simulation must match, a planted mistake it must catch (rank 1 built
with even_batches=False), one process under plain python, and bad input."""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import launch  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL {what}")
    return cond


def smoke(n, flags, wrapper="with_shims.py"):
    t = time.time()
    args = [os.path.join(HERE, wrapper)] + (["accelerate_sim.smoke"] if wrapper == "with_shims.py" else []) + flags
    results = launch(n, args, timeout=100)
    codes = [c for c, _, _ in results]
    out = results[0][1]
    print(f"  {n} processes, {' '.join(flags)}: exit {codes}: {out.strip()} ({time.time() - t:.1f} s)")
    if any(c not in (0, 1, 2) for c in codes) or not out.strip():
        for r, (c, o, e) in enumerate(results):
            print(f"--- rank {r} (exit {c})\n{o}{e[-2000:]}")
    return codes, out


def main():
    identical = "identical to the simulator's prediction ("
    for n, flags in ((2, ["--dataset-len", "1001", "--shuffle", "--set-seed", "42"]),
                     (3, ["--dataset-len", "23", "--batch-size", "2", "--no-even-batches", "--epochs", "2"]),
                     (2, ["--dataset-len", "21", "--batch-size", "4", "--dataset", "iterable"]),
                     (4, ["--dataset-len", "30", "--batch-size", "3", "--drop-last", "--shuffle",
                          "--use-seedable-sampler", "--data-seed", "7", "--epochs", "2"]),
                     (2, ["--dataset-len", "21", "--batch-size", "3", "--split-batches"])):
        codes, out = smoke(n, flags)
        check(codes == [0] * n and out.startswith(identical), f"smoke {n} {flags}: {codes} {out!r}")
    codes, out = smoke(2, ["--dataset-len", "5", "--batch-size", "2"], wrapper="smoke_planted.py")
    check(codes == [1, 1] and out.startswith("real ranks differ from the simulator: first divergence at "
                                             "ranks[1].epochs[0].end_of_dataloader[0] (rank 1, epoch 0, "
                                             "batch 0): expected false, actual true"),
          f"planted even_batches=False on rank 1: {codes} {out!r}")
    # One process, no launcher.
    env = dict(os.environ)
    for v in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(v, None)
    p = subprocess.run([sys.executable, os.path.join(HERE, "with_shims.py"), "accelerate_sim.smoke", "--dataset-len", "10",
                        "--batch-size", "3", "--shuffle", "--set-seed", "5"], capture_output=True, text=True, env=env)
    print(f"  plain python: exit {p.returncode}: {p.stdout.strip()}")
    check(p.returncode == 0 and p.stdout.startswith(identical + "1 rank, 1 epoch, 4 batches"), f"one process: {p}")
    for bad in (["--batch-size", "0", "--dataset-len", "4"], ["--shuffle"], ["--dataset-len", "4", "--what"]):
        p = subprocess.run([sys.executable, os.path.join(HERE, "with_shims.py"), "accelerate_sim.smoke", *bad],
                           capture_output=True, text=True, env=env)
        check(p.returncode == 2 and p.stderr.startswith("accelerate_sim.smoke: "), f"bad input {bad}: {p}")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("smoke: verdicts and exit codes as `accel-sim launch` gives them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
