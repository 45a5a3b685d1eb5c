# Accelerate's examples/nlp_example.py (v1.15.0), its loop shape kept line for line, with stand-in data and model so
# that nothing is downloaded: GLUE MRPC's sizes (3,668 train pairs, 408 validation) as random token ids, a tiny
# classifier for bert-base-cased, and transformers' get_linear_schedule_with_warmup (the same functools.partial of
# _get_linear_schedule_with_warmup_lr_lambda, copied here: transformers is not in the reference environment).
# Used by tests/recorder/plan_test.py: `python -m accelerate_sim.plan nlp_example_standin.py --num-processes 8`.
import argparse
import functools

import torch
from torch.optim import AdamW
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader, Dataset

from accelerate import Accelerator, DistributedType
from accelerate.utils import set_seed

MAX_GPU_BATCH_SIZE = 16
EVAL_BATCH_SIZE = 32


def _get_linear_schedule_with_warmup_lr_lambda(current_step, *, num_warmup_steps, num_training_steps):
    if current_step < num_warmup_steps:
        return float(current_step) / float(max(1, num_warmup_steps))
    return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    lr_lambda = functools.partial(_get_linear_schedule_with_warmup_lr_lambda, num_warmup_steps=num_warmup_steps,
                                  num_training_steps=num_training_steps)
    return LambdaLR(optimizer, lr_lambda, last_epoch)


class StandInMRPC(Dataset):
    """tokenized_datasets[split]: input_ids, attention_mask, labels."""

    def __init__(self, n):
        g = torch.Generator().manual_seed(n)
        self.ids = torch.randint(0, 100, (n, 16), generator=g)
        self.labels = torch.randint(0, 2, (n,), generator=g)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(16, dtype=torch.long), "labels": self.labels[i]}


class StandInModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 8)
        self.head = torch.nn.Linear(8, 2)

    def forward(self, input_ids, attention_mask, labels):
        logits = self.head(self.emb(input_ids).mean(1))
        return argparse.Namespace(logits=logits, loss=torch.nn.functional.cross_entropy(logits, labels))


def get_dataloaders(accelerator: Accelerator, batch_size: int = 16):
    train_dataset, eval_dataset = StandInMRPC(3668), StandInMRPC(408)
    train_dataloader = DataLoader(train_dataset, shuffle=True, batch_size=batch_size, drop_last=True)
    eval_dataloader = DataLoader(eval_dataset, shuffle=False, batch_size=EVAL_BATCH_SIZE,
                                 drop_last=(accelerator.mixed_precision == "fp8"))
    return train_dataloader, eval_dataloader


def training_function(config, args):
    accelerator = Accelerator(cpu=args.cpu, mixed_precision=args.mixed_precision)
    lr = config["lr"]
    num_epochs = int(config["num_epochs"])
    seed = int(config["seed"])
    batch_size = int(config["batch_size"])
    gradient_accumulation_steps = 1
    if batch_size > MAX_GPU_BATCH_SIZE and accelerator.distributed_type != DistributedType.XLA:
        gradient_accumulation_steps = batch_size // MAX_GPU_BATCH_SIZE
        batch_size = MAX_GPU_BATCH_SIZE
    set_seed(seed)
    train_dataloader, eval_dataloader = get_dataloaders(accelerator, batch_size)
    model = StandInModel()
    model = model.to(accelerator.device)
    optimizer = AdamW(params=model.parameters(), lr=lr)
    lr_scheduler = get_linear_schedule_with_warmup(
        optimizer=optimizer,
        num_warmup_steps=100,
        num_training_steps=(len(train_dataloader) * num_epochs) // gradient_accumulation_steps,
    )
    model, optimizer, train_dataloader, eval_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, eval_dataloader, lr_scheduler
    )
    for epoch in range(num_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            batch.to(accelerator.device) if hasattr(batch, "to") else None
            outputs = model(**batch)
            loss = outputs.loss / gradient_accumulation_steps
            accelerator.backward(loss)
            if step % gradient_accumulation_steps == 0:
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        model.eval()
        for step, batch in enumerate(eval_dataloader):
            with torch.no_grad():
                outputs = model(**batch)
            predictions = outputs.logits.argmax(dim=-1)
            predictions, references = accelerator.gather_for_metrics((predictions, batch["labels"]))
        accelerator.print(f"epoch {epoch}: done")


def main():
    parser = argparse.ArgumentParser(description="Simple example of training script.")
    parser.add_argument("--mixed_precision", type=str, default=None, choices=["no", "fp16", "bf16", "fp8"])
    parser.add_argument("--cpu", action="store_true", help="If passed, will train on the CPU.")
    args = parser.parse_args()
    config = {"lr": 2e-5, "num_epochs": 3, "seed": 42, "batch_size": 16}
    training_function(config, args)


if __name__ == "__main__":
    main()
