# A training script with something accel-sim does not model: a custom batch sampler (batches of similar lengths,
# the usual bucketing trick) given to the DataLoader, prepared by Accelerate. Used by tests/recorder/plan_test.py:
# `python -m accelerate_sim.plan` must name the batch sampler, and plan the loader it can read (the eval loader).
import sys

import torch
from torch.utils.data import DataLoader, Sampler, TensorDataset

from accelerate import Accelerator
from accelerate.utils import set_seed


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size):
        self.order = sorted(range(len(lengths)), key=lambda i: lengths[i])
        self.batch_size = batch_size

    def __iter__(self):
        for s in range(0, len(self.order), self.batch_size):
            yield self.order[s:s + self.batch_size]

    def __len__(self):
        return (len(self.order) + self.batch_size - 1) // self.batch_size


def main():
    accelerator = Accelerator()
    set_seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    data = TensorDataset(torch.arange(100))
    lengths = [(i * 37) % 11 for i in range(100)]
    train_loader = DataLoader(data, batch_sampler=BucketBatchSampler(lengths, 8))
    eval_loader = DataLoader(data, batch_size=10)
    train_loader, eval_loader = accelerator.prepare(train_loader, eval_loader)
    for batch in train_loader:
        raise AssertionError("plan must stop before the first batch")


if __name__ == "__main__":
    main()
