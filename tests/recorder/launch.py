"""A minimal torchrun for the recorder tests (Debian's torch 1.13 torchrun fails on Python 3.11 before it starts a
worker): starts N copies of `python ARGS...` with torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT; and ACCELERATE_USE_CPU as `accelerate launch --cpu`), prints their output (rank 0 first) and exits with rank 0's code, or
with the first non-zero code of another rank when rank 0's is 0.

    python launch.py --nproc N [--timeout S] -- ARGS...
"""
import argparse
import os
import socket
import subprocess
import sys


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(nproc, args, timeout=110, env_extra=None):
    """Returns [(returncode, stdout, stderr)] per rank."""
    port = free_port()
    procs = []
    for r in range(nproc):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(nproc), LOCAL_WORLD_SIZE=str(nproc),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OMP_NUM_THREADS="1",
                   ACCELERATE_USE_CPU="true")  # what `accelerate launch --cpu` sets
        env.update(env_extra or {})
        procs.append(subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    results = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            out, err = p.communicate()
            err += f"\nlaunch.py: killed after {timeout} s"
        results.append((p.returncode, out, err))
    return results


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--nproc", type=int, required=True)
    p.add_argument("--timeout", type=float, default=110)
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args()
    args = a.args[1:] if a.args and a.args[0] == "--" else a.args
    results = launch(a.nproc, args, a.timeout)
    for r, (code, out, err) in enumerate(results):
        sys.stdout.write(out)
        if err.strip():
            sys.stderr.write(f"--- rank {r} stderr (exit {code}) ---\n{err}")
    codes = [c for c, _, _ in results]
    return codes[0] if codes[0] != 0 else next((c for c in codes if c != 0), 0)


if __name__ == "__main__":
    sys.exit(main())
