"""Prints what the real transformers.trainer_pt_utils.get_length_grouped_indices returns, for the values
tests/core/length_grouped_sampler_test.cpp checks (the numbers there are this script's output, pasted):

    build/reference-venv-transformers-5.25/bin/python golden/reference/length_grouped_values.py
    build/reference-venv-transformers-4.57/bin/python golden/reference/length_grouped_values.py   # the same output

Each line is one call: a name, then the JSON of {"lengths", "batch_size", "seed", "randperm", "indices"}, where
`randperm` is torch.randperm(len(lengths), generator=torch.Generator().manual_seed(seed)) (the permutation the
function draws first) and `indices` the function's result from a generator seeded alike. The lengths are fixed
here (not drawn), so the C++ test holds the same inputs.
"""
import json

import torch
import transformers
from transformers.trainer_pt_utils import get_length_grouped_indices

CASES = {
    # Distinct lengths, one megabatch (n < 4 * batch_size: mega_batch_mult 1, megabatch = batch_size).
    "distinct-n10-b4": ([5, 1, 9, 3, 7, 2, 8, 4, 6, 0], 4, 42),
    # Many ties: stable descending sort keeps the randperm's order among equal lengths; the first megabatch
    # holding the global maximum (argmax: the first one) gives its head to megabatch 0.
    "ties-n23-b2": ([3, 1, 3, 2, 1, 3, 2, 2, 1, 3, 1, 2, 3, 1, 2, 3, 3, 1, 2, 1, 2, 3, 1], 2, 7),
    # mega_batch_mult = min(40 // (2 * 4), 50) = 5: megabatches of 10.
    "mult5-n40-b2": ([(i * 37) % 23 for i in range(40)], 2, 0),
    # mega_batch_mult capped at 50: n = 450, batch_size 2 -> 450 // 8 = 56 -> 50, megabatches of 100.
    "cap50-n450-b2": ([(i * 7919) % 101 for i in range(450)], 2, 123),
    # One element; and all lengths equal (the order is the randperm itself).
    "single": ([4], 3, 5),
    "equal-n9-b2": ([2] * 9, 2, 11),
    # Zeros, the maximum heading megabatch 2 (swapped to the front), and a short last megabatch.
    "zeros-max-n13-b3": ([0, 0, 1, 0, 2, 0, 0, 1, 0, 0, 0, 0, 9], 3, 3),
}


def main():
    print(f"# transformers {transformers.__version__}, torch {torch.__version__}")
    for name, (lengths, batch_size, seed) in CASES.items():
        perm = torch.randperm(len(lengths), generator=torch.Generator().manual_seed(seed)).tolist()
        indices = get_length_grouped_indices(lengths, batch_size, generator=torch.Generator().manual_seed(seed))
        print(name, json.dumps({"lengths": lengths, "batch_size": batch_size, "seed": seed, "randperm": perm,
                                "indices": indices}))
    # What an empty dataset raises (torch.argmax over no megabatch maximum).
    try:
        get_length_grouped_indices([], 2, generator=torch.Generator().manual_seed(0))
    except Exception as exc:  # noqa: BLE001  (printed, whatever it is)
        print("empty", json.dumps({"type": type(exc).__name__, "message": str(exc)}))


if __name__ == "__main__":
    main()
