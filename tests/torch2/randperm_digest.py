"""The real torch's side of the torch2 randperm ctest: for each (n, seed) pair, the digest of
torch.randperm(n, generator=torch.Generator().manual_seed(seed)) in randperm_digest.cpp's format.

    randperm_digest.py N SEED [N SEED ...]     (run with the torch-2 reference environment's interpreter)
"""
import sys

import numpy as np
import torch

STEP = np.uint64(0x9E3779B97F4A7C15)
OFFSET = np.uint64(0x632BE59BD9B4E019)
CHUNK = 1 << 24  # bounds the temporaries to a few hundred MB next to the 8-byte-per-id permutation


def digest(ids):
    # numpy's uint64 array arithmetic wraps mod 2^64 like the C++ side; the running total is kept as a Python int.
    h = 0
    for start in range(0, len(ids), CHUNK):
        part = ids[start:start + CHUNK]
        weight = np.arange(start, start + len(part), dtype=np.uint64) * STEP + OFFSET
        h = (h + int(np.sum((part + np.uint64(1)) * weight, dtype=np.uint64))) & 0xFFFFFFFFFFFFFFFF
    return h


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        print("usage: randperm_digest.py N SEED [N SEED ...]", file=sys.stderr)
        return 2
    for a in range(0, len(argv), 2):
        n, seed = int(argv[a]), int(argv[a + 1])
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
        ids = perm.numpy().view(np.uint64)
        u = len(ids)
        picks = " ".join(f"ids[{i}]={int(ids[i])}" for i in (0, 1, u // 3, u // 2, u - 2, u - 1))
        print(f"n={n} seed={seed} digest={digest(ids):016x} {picks}", flush=True)
        del perm, ids
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
