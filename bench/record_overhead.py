"""What accelerate_sim.record costs per batch: a prepared loader iterated with and without it, in one process and in a
2-process gloo group, an empty loop body (the worst case: in a real step the cost is the same microseconds, hidden
behind the forward/backward pass).

    python bench/record_overhead.py [--dataset-len 64000] [--batch-size 16] [--repeats 7]

Each configuration runs `--repeats` passes of each kind, interleaved (plain, recorded, plain, ...), and reports
the median: batches/s without and with record(), and the difference in µs per batch (the per-batch bookkeeping
plus the JSON file written at each pass end, shared over the pass's batches). The 2-process run is started here
with torchrun's environment (gloo on CPU, `accelerate launch --cpu`'s ACCELERATE_USE_CPU), rank 0 reports.
Needs torch, Accelerate and accelerate_sim importable (from the checkout: tests/recorder/run_with_package.sh ROOT
build/accel-sim bench/record_overhead.py).
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(args):
    import torch

    if torch.__version__.startswith("1."):  # Debian's torch 1.13: Accelerate 1.15 imports after the shims
        sys.path.insert(0, os.path.join(ROOT, "golden", "reference"))
        import shims  # noqa: F401
    from torch.utils.data import DataLoader

    from accelerate import Accelerator
    from accelerate.utils import set_seed

    import accelerate_sim

    acc = Accelerator()
    set_seed(0)
    prepared = acc.prepare(DataLoader(range(args.dataset_len), batch_size=args.batch_size, shuffle=True))
    out = tempfile.mkdtemp(prefix="accel-sim-bench-")
    times = {"plain": [], "recorded": []}
    batches = 0
    try:
        for rep in range(args.repeats + 1):  # the first round warms up, not counted
            for kind in ("plain", "recorded"):
                if torch.distributed.is_initialized():
                    torch.distributed.barrier()
                it = prepared if kind == "plain" else accelerate_sim.record(prepared, os.path.join(out, f"r{rep}"))
                t = time.perf_counter()
                n = 0
                for _ in it:
                    n += 1
                dt = time.perf_counter() - t
                if rep:
                    times[kind].append(dt)
                batches = n
    finally:
        shutil.rmtree(out, ignore_errors=True)
    plain, recorded = statistics.median(times["plain"]), statistics.median(times["recorded"])
    return {"processes": acc.num_processes, "batches_per_pass": batches, "plain_batches_per_s": batches / plain,
            "recorded_batches_per_s": batches / recorded, "overhead_us_per_batch": (recorded - plain) / batches * 1e6,
            "plain_us_per_batch": plain / batches * 1e6,
            "spread_us": [round((r - p) / batches * 1e6, 2) for p, r in zip(times["plain"], times["recorded"])]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset-len", type=int, default=64000)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        result = measure(args)
        if int(os.environ.get("RANK", "0")) == 0:
            print(json.dumps(result))
        return 0
    env_base = dict(os.environ, OMP_NUM_THREADS="1", ACCELERATE_USE_CPU="true")
    for v in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env_base.pop(v, None)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--dataset-len", str(args.dataset_len),
           "--batch-size", str(args.batch_size), "--repeats", str(args.repeats)]
    print(f"accelerate_sim.record overhead: DataLoader(range({args.dataset_len}), batch_size={args.batch_size}, "
          f"shuffle=True) prepared by Accelerate, empty loop body, median of {args.repeats} passes each")
    for n in (1, 2):
        port = str(free_port())
        procs = []
        for r in range(n):
            env = dict(env_base)
            if n > 1:
                env.update(RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(n), LOCAL_WORLD_SIZE=str(n),
                           MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True))
        outs = [q.communicate()[0] for q in procs]
        if any(q.returncode for q in procs):
            print(f"{n} process(es): failed (exit codes {[q.returncode for q in procs]})")
            return 1
        res = json.loads(outs[0].strip().splitlines()[-1])
        print(f"  {n} process{'es (gloo)' if n > 1 else ''}: {res['batches_per_pass']} batches per pass per rank; "
              f"{res['plain_batches_per_s']:,.0f} batches/s plain ({res['plain_us_per_batch']:.1f} µs each), "
              f"{res['recorded_batches_per_s']:,.0f} recorded: +{res['overhead_us_per_batch']:.2f} µs per batch "
              f"(each pass: {res['spread_us']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
