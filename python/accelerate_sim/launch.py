"""python -m accelerate_sim.launch: N local processes of a training script in one CPU (gloo) group, as torchrun sets them.

    python -m accelerate_sim.launch -n 2 train.py [script args...]
    python -m accelerate_sim.launch -n 4 -m accelerate_sim.smoke --dataset-len 1001

Why it exists: `accelerate launch --cpu --num_processes 2` starts one process (Accelerate hands `--cpu` to its
single-process launcher whatever --num_processes says), and Debian's torch 1.13 torchrun fails on Python 3.11 before
it starts a worker, so neither records a 2-rank job on a CPU-only machine. Each process gets torchrun's environment
(RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_RANK, ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
TORCHELASTIC_RUN_ID, OMP_NUM_THREADS=1) plus ACCELERATE_USE_CPU=true (what `accelerate launch --cpu` sets), so
`Accelerator()` starts a gloo group of N. Output is the processes' own, unbuffered and interleaved. The exit code is
the first failing rank's (rank order among those that failed first); once one rank fails the others are stopped
(SIGTERM, then SIGKILL after --grace seconds), as torchrun does, since they would wait for it in a collective.
Exit 2 for bad usage.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from typing import List, Optional, Sequence, Tuple


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rank_environment(rank: int, nproc: int, port: int, run_id: str, base: Optional[dict] = None) -> dict:
    """The environment process `rank` of `nproc` starts with: torchrun's variables for one local node, on the CPU."""
    env = dict(os.environ if base is None else base)
    env.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(nproc), LOCAL_WORLD_SIZE=str(nproc),
               GROUP_RANK="0", ROLE_RANK=str(rank), ROLE_WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(port), TORCHELASTIC_RUN_ID=run_id, ACCELERATE_USE_CPU="true",
               PYTHONUNBUFFERED="1")
    # torchrun's default for more than one local process: one OpenMP thread each, so N ranks do not oversubscribe.
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m accelerate_sim.launch",
        description="Start N local processes of a script (or -m module) in one CPU gloo group, with torchrun's "
                    "environment and ACCELERATE_USE_CPU=true. Exit: the first failing rank's code; 2 bad usage.")
    p.add_argument("-n", "--nproc", "--num-processes", dest="nproc", type=int, required=True,
                   help="number of processes (ranks), 1-256")
    p.add_argument("--master-port", type=int, default=None, help="rendezvous port (default: a free one)")
    p.add_argument("--grace", type=float, default=5.0,
                   help="seconds the other ranks get after SIGTERM once one rank failed (default 5)")
    p.add_argument("-m", dest="module", default=None, help="run a module (python -m MODULE) instead of a script")
    p.add_argument("args", nargs="*", help="the script and its arguments (or the module's arguments)")
    return p


def _split(argv: List[str]) -> Tuple[List[str], List[str]]:
    """(the launcher's own arguments, the command's): everything after the script, after `-m MODULE` or after `--`
    belongs to the command, as for python itself."""
    takes_value = {"-n", "--nproc", "--num-processes", "--master-port", "--grace"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return argv[:i], argv[i + 1:]
        if a == "-m":
            return argv[:i + 2], argv[i + 2:]
        if a.startswith("-m") and len(a) > 2:  # -mMODULE
            return argv[:i + 1], argv[i + 1:]
        if not a.startswith("-"):
            return argv[:i], argv[i:]
        i += 2 if a in takes_value else 1
    return argv, []


def _command(module: Optional[str], args: Sequence[str]) -> List[str]:
    return [sys.executable, "-m", module, *args] if module else [sys.executable, *args]


def run(nproc: int, command: Sequence[str], *, port: Optional[int] = None, grace: float = 5.0) -> int:
    """Starts `command` as ranks 0..nproc-1 and waits; returns the launch's exit code."""
    port = port or _free_port()
    run_id = uuid.uuid4().hex
    procs = [subprocess.Popen(list(command), env=rank_environment(r, nproc, port, run_id)) for r in range(nproc)]

    def forward(signum: int, _frame: object) -> None:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    failed: Optional[int] = None
    try:
        while True:
            codes = [p.poll() for p in procs]
            bad = [r for r, c in enumerate(codes) if c not in (None, 0)]
            if bad and failed is None:
                failed = bad[0]
                code = codes[failed]
                if any(c is None for c in codes):
                    print(f"accelerate_sim.launch: rank {failed} exited with {code}; stopping the other ranks",
                          file=sys.stderr, flush=True)
                    for p in procs:
                        if p.poll() is None:
                            p.terminate()
                    deadline = time.monotonic() + grace
                    while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
                        time.sleep(0.05)
                    for p in procs:
                        if p.poll() is None:
                            p.kill()
                    for p in procs:
                        p.wait()
                break
            if all(c is not None for c in codes):
                break
            time.sleep(0.05)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    if failed is None:
        return 0
    code = procs[failed].returncode
    return code if code > 0 else 128 - code  # killed by a signal: the shell's convention


def main(argv: Optional[List[str]] = None) -> int:
    p = _parser()
    own, args = _split(sys.argv[1:] if argv is None else list(argv))
    a = p.parse_args(own)
    if not 1 <= a.nproc <= 256:
        p.error(f"-n/--nproc: must be an integer in [1, 256], got {a.nproc}")
    if a.master_port is not None and not 1 <= a.master_port <= 65535:
        p.error(f"--master-port: must be in [1, 65535], got {a.master_port}")
    if a.grace < 0:
        p.error(f"--grace: must be >= 0, got {a.grace}")
    if a.module is None:
        if not args:
            p.error("no script given (python -m accelerate_sim.launch -n N SCRIPT [ARGS...], or -m MODULE)")
        if not os.path.isfile(args[0]):
            p.error(f"{args[0]}: no such file (the script to launch)")
    return run(a.nproc, _command(a.module, args), port=a.master_port, grace=a.grace)


if __name__ == "__main__":
    sys.exit(main())
