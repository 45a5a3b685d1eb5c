#!/usr/bin/env python3
"""The `ddp` golden family against accel-sim's real ranks: every case in golden/cases-ddp was recorded from torch's
DistributedDataParallel under the real Accelerate 1.15.0 (gloo on CPUs, MULTI_CPU; golden/record-ddp). Each is
launched with `accel-sim launch` on the same flags (MULTI_CPU too) and must end the same way: the same ranks block,
each at the epoch and micro-step the recording shows, the others finish; or every rank completes, with the
recorded micro-steps per pass and optimizer steps.

  ddp_golden_test.py ACCEL_SIM CASES_DIR
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from launch_verdict import hang_of, optimizer_steps_of, ranks_of  # noqa: E402

OTHER = re.compile(r"\(rank (\d+) at epoch (\d+) step (\d+)\)")



def check(bin_, case):
    flags = case["launch_flags"] + ["--timeout-s", "10", "--distributed-type", "MULTI_CPU"]
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        run = subprocess.run([bin_, "launch", *flags, "--out", out.name], capture_output=True, text=True, timeout=180)
        trace = json.load(open(out.name)) if os.path.getsize(out.name) else None
    log = run.stdout + run.stderr
    recorded = case["ranks"]
    blocked = {r["rank"]: r["blocked_at"] for r in recorded if not r["finished"]}
    hang = hang_of(log)
    if blocked:
        if run.returncode != 5 or not hang:
            return f"real DDP blocked ranks {sorted(blocked)} at {blocked}; accel-sim exit {run.returncode}"
        waiting = ranks_of(hang.group(1))
        where = {r: [int(hang.group(3)), int(hang.group(4))] for r in waiting}
        for m in OTHER.finditer(hang.group(5)):
            where[int(m.group(1))] = [int(m.group(2)), int(m.group(3))]
        if where != blocked:
            return f"real DDP blocked {blocked}; accel-sim {where}"
        return None
    steps = optimizer_steps_of(log, len(recorded))
    if run.returncode != 0 or not steps:
        return f"real DDP completed; accel-sim exit {run.returncode}"
    # Per rank: a rank that joined early made fewer optimizer steps than the others.
    real = [r["optimizer_steps"] for r in sorted(recorded, key=lambda r: r["rank"])]
    if steps != real:
        return f"optimizer steps per rank: real DDP {real}, accel-sim {steps}"
    for r in recorded:
        yielded = [len(p["batches"]) for p in trace["ranks"][r["rank"]]["epochs"]]
        if yielded != r["micro_steps"]:
            return f"rank {r['rank']}: real DDP trained on {r['micro_steps']} batches per pass, accel-sim's loader {yielded}"
    return None


def main():
    bin_, cases_dir = sys.argv[1], sys.argv[2]
    paths = sorted(glob.glob(os.path.join(cases_dir, "*.json")))
    if not paths:
        print(f"ddp_golden: no cases in {cases_dir}")
        return 1
    failed = 0
    for path in paths:
        case = json.load(open(path))
        problem = check(bin_, case)
        print(("FAIL " if problem else "ok   ") + case["case"] + (f": {problem}" if problem else ""), flush=True)
        failed += bool(problem)
    print(f"ddp_golden: {len(paths) - failed} matched, {failed} differed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
