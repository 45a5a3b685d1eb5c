"""Reading rank 0's verdict line of `accel-sim launch` (ranks/rank_main.cpp), shared by the real-rank training tests."""
import re

# "[rank 0] hang: ranks 0, 1 wait forever in the gradient all_reduce at epoch 0 step 1; ..." (group 5: the rest,
# where ranks blocked elsewhere are named as "(rank r at epoch e step s)").
HANG = re.compile(r"^\[rank 0\] hang: ranks? ([0-9, -]+) wait forever in the (.+?) at epoch (\d+) step (\d+)(.*)$")


def ranks_of(text):
    """'0-2, 5' -> [0, 1, 2, 5] (sim/rank_ranges.hpp's rank_ranges, read back)."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-")
            out += list(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def hang_of(log):
    """The first hang verdict line of a launch's output, as a match (None when the job did not hang)."""
    return next((m for m in map(HANG.match, log.splitlines()) if m), None)
