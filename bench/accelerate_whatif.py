"""The what-if's first configuration done by the real Accelerate: every rank's prepared loader enumerated.

    accelerate_whatif.py --ranks R --dataset-len N [--batch-size B] [--shuffle --seed S] [--skip-batches K]
                         [--max-seconds T]

Run with the reference environment's interpreter (bench/vs_accelerate.sh does). For each rank r, as
Accelerate's own tests and golden/record do: a fresh user DataLoader over a dataset whose sample i is i,
prepare_data_loader(dl, num_processes=R, process_index=r, use_seedable_sampler=..., data_seed=...), then
(with --skip-batches) skip_first_batches(prepared, K), and one full pass, every id counted. Prints one JSON
object: counts (yielded, duplicated, never seen), steps per rank, and timings. If the ranks take longer
than --max-seconds, it stops after the rank that crossed it and says how many ranks it measured, so the
caller can extrapolate linearly (every rank does the same work).
"""
import argparse
import json
import os
import sys
import time

T0 = time.perf_counter()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "golden", "reference"))

import shims  # noqa: E402,F401  (must come before accelerate)
import torch  # noqa: E402
from accelerate.data_loader import prepare_data_loader, skip_first_batches  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402

IMPORTED = time.perf_counter()


class RangeDataset(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return int(i)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--dataset-len", type=int, required=True)
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--shuffle", action="store_true")
    p.add_argument("--seed", type=int)
    p.add_argument("--skip-batches", type=int)
    p.add_argument("--max-seconds", type=float, default=180.0)
    a = p.parse_args()
    n, R = a.dataset_len, a.ranks
    times = bytearray(n)  # saturating per-id counts, enough to tell once / twice / more
    extra = 0  # yields beyond 255 of one id (never expected here)
    yielded = 0
    steps = []
    start = time.perf_counter()
    for r in range(R):
        dl = DataLoader(RangeDataset(n), batch_size=a.batch_size, shuffle=a.shuffle)
        prepared = prepare_data_loader(dl, num_processes=R, process_index=r, use_seedable_sampler=a.shuffle,
                                       data_seed=a.seed)
        loader = skip_first_batches(prepared, a.skip_batches) if a.skip_batches is not None else prepared
        count = 0
        for batch in loader:
            for i in batch.tolist():
                if times[i] == 255:
                    extra += 1
                else:
                    times[i] += 1
            yielded += len(batch)
            count += 1
        steps.append(count)
        if time.perf_counter() - start > a.max_seconds and r + 1 < R:
            break
    enumerate_s = time.perf_counter() - start
    never = times.count(0)
    distinct = n - never
    print(json.dumps({
        "ranks_measured": len(steps), "ranks": R, "import_s": IMPORTED - T0, "enumerate_s": enumerate_s,
        "yielded": yielded + extra, "duplicated": yielded + extra - distinct, "never_seen": never,
        "steps_per_rank": sorted(set(steps)), "torch": torch.__version__,
    }))


main()
