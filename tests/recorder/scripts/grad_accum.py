# Accelerator(gradient_accumulation_steps=4) with a training and an evaluation loader, for
# tests/recorder/plan_test.py (issue 50: plan said accumulation was "not modelled" right after simulating it).
# `grad_accum.py --no-scheduler` prepares no lr scheduler (then the CLI cannot simulate the training loop).
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from accelerate import Accelerator
from accelerate.utils import set_seed

accelerator = Accelerator(gradient_accumulation_steps=4)
set_seed(3)
train_loader = DataLoader(TensorDataset(torch.arange(96)), batch_size=4, shuffle=True)
eval_loader = DataLoader(TensorDataset(torch.arange(20)), batch_size=4)
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
if "--no-scheduler" in sys.argv:
    model, optimizer, train_loader, eval_loader = accelerator.prepare(model, optimizer, train_loader, eval_loader)
else:
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    model, optimizer, train_loader, eval_loader, scheduler = accelerator.prepare(
        model, optimizer, train_loader, eval_loader, scheduler)
for (x,) in train_loader:
    with accelerator.accumulate(model):
        pass
