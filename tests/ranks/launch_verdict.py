"""Reading rank 0's verdict line of `accel-sim launch` (ranks/rank_main.cpp), shared by the real-rank training tests."""
import re

# "[rank 0] hang: ranks 0, 1 wait forever in the gradient all_reduce at epoch 0 step 1; ..." (group 5: the rest,
# where ranks blocked elsewhere are named as "(rank r at epoch e step s)").
HANG = re.compile(r"^(?:\[rank 0\] )?hang: ranks? ([0-9, -]+) wait forever in the (.+?) at epoch (\d+) step (\d+)(.*)$")


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


# "[rank 0] identical (completed: 2 optimizer steps, ... per rank)" or, when the ranks differ, "[rank 0] identical
# (completed: ranks 0, 1: 2 optimizer steps, ...; rank 2: 1 optimizer step, ...)" (ranks/training_summary.hpp).
COMPLETED = re.compile(r"^(?:\[rank 0\] )?identical to the simulator's prediction \(completed: (.*)\)$")
EVERY_RANK = re.compile(r"^(\d+) optimizer steps?, .* per rank")
GROUP = re.compile(r"^ranks? ([0-9, -]+): (\d+) optimizer steps?,")


def optimizer_steps_of(log, world_size):
    """Each rank's optimizer steps from a completed launch's verdict line, as a list (None when none is there)."""
    m = next((m for m in map(COMPLETED.match, log.splitlines()) if m), None)
    if not m:
        return None
    every = EVERY_RANK.match(m.group(1))
    if every:
        return [int(every.group(1))] * world_size
    steps = [None] * world_size
    for part in m.group(1).split("; "):
        g = GROUP.match(part)
        if g:
            for r in ranks_of(g.group(1)):
                steps[r] = int(g.group(2))
    return steps
