"""A user's 2-process job (issue 45): Accelerator().prepare of a shuffled DataLoader after set_seed(42), two epochs,
recorded with accelerate_sim.record into OUT_DIR; on rank 0 it also prints from_dataloader's simulated release.

    python launch.py --nproc 2 -- installed_release_job.py OUT_DIR
"""
import os
import sys

from torch.utils.data import DataLoader
from accelerate import Accelerator
from accelerate.utils import set_seed

import accelerate_sim

out = sys.argv[1]
accelerator = Accelerator(cpu=True)
dl = DataLoader(range(1001), batch_size=1, shuffle=True)
if accelerator.process_index == 0:
    print("from_dataloader simulates Accelerate", accelerate_sim.from_dataloader(dl, num_processes=2)["accelerate_version"])
set_seed(42)
loader = accelerator.prepare(dl)
for epoch in range(2):
    for batch in accelerate_sim.record(loader, out, accelerator=accelerator):
        pass
