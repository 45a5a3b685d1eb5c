"""One rank of test_testing.py's real gloo job (started by tests/recorder/launch.py with torchrun's environment):
accelerate_sim.testing.assert_loader_matches on an Accelerator's default shuffled loader (its generator drawn at prepare,
synchronised from rank 0 at every pass) and on an iterable loader with 2 workers and a strided split, then a wrong
seed that must be caught. Prints one line per check; exits non-zero on any failure."""

import itertools
import sys

import torch

if torch.__version__.startswith("1.13"):
    import shims  # noqa: F401  (before accelerate: Accelerate 1.15 on Debian's torch 1.13)
from accelerate import Accelerator  # noqa: E402
from accelerate.utils import set_seed  # noqa: E402
from torch.utils.data import DataLoader, IterableDataset, TensorDataset, get_worker_info  # noqa: E402

from accelerate_sim.testing import LoaderMismatch, assert_loader_matches  # noqa: E402


class Strided(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        stream = iter(torch.arange(self.n) * 10)
        info = get_worker_info()
        return stream if info is None else itertools.islice(stream, info.id, None, info.num_workers)


accelerator = Accelerator(cpu=True)
rank = accelerator.process_index
assert accelerator.num_processes == 2, accelerator.num_processes
set_seed(42)
model = torch.nn.Linear(3, 1)  # draws from torch's generator between set_seed and prepare, as a script does
dl = accelerator.prepare(DataLoader(TensorDataset(torch.randn(101, 3)), batch_size=4, shuffle=True))
for _ in dl:  # a pass the live loader already made
    pass
result = assert_loader_matches(dl, epochs=2)
print(f"rank {rank}: default shuffle ok ({result['options']['num_processes']} ranks, "
      f"{result['batches_checked']} batches)")
it = accelerator.prepare(DataLoader(Strided(45), batch_size=4, num_workers=2))
result = assert_loader_matches(it, epochs=2)
print(f"rank {rank}: iterable workers ok ({result['options']['worker_split']}, {result['batches_checked']} batches)")
try:
    assert_loader_matches(dl, set_seed=1)
    print(f"rank {rank}: wrong seed NOT caught")
    sys.exit(1)
except LoaderMismatch as e:
    print(f"rank {rank}: wrong seed caught at rank {e.rank}, epoch {e.epoch}, step {e.step}")
torch.distributed.barrier()  # (Accelerate's wait_for_everyone passes device_ids, which torch 1.13's gloo refuses)
