"""accelerate_sim.from_trainer / from_training_args on real transformers.Trainer objects (issue 28), transformers 5.25 on
CPU: the report is the CLI's for the same flags; a real one-process training run takes the optimizer steps, and
trains the sample ids, the report and the trace say; what is not modelled is refused by name.
Run by from_trainer_test.sh with accelerate_sim on sys.path; prints "N passed, M failed"."""
import json
import os
import sys

import torch
from transformers import Trainer, TrainerCallback, TrainingArguments

import accelerate_sim

OUT = os.environ["OUT_DIR"]
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok  ", name)
    else:
        failed += 1
        print("FAIL", name, detail)


class Stream(torch.utils.data.IterableDataset):
    def __iter__(self):
        return iter(range(5))


class Ids(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "labels": torch.tensor([0.0])}


SEEN = []


class Tiny(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.linear = torch.nn.Linear(1, 1)
        self.scale = 1.0 / n

    def forward(self, x, labels):
        if self.training:
            SEEN.append([int(v) for v in x.view(-1).long().tolist()])
        return {"loss": torch.nn.functional.mse_loss(self.linear(x * self.scale), labels)}


class Steps(TrainerCallback):
    def __init__(self):
        self.steps, self.taken = [], 0

    def on_step_end(self, args, state, control, **kwargs):
        self.steps.append({"global_step": state.global_step, "batches": SEEN[self.taken:]})
        self.taken = len(SEEN)


def args(**kw):
    base = dict(output_dir=os.path.join(OUT, "run"), use_cpu=True, report_to=[], disable_tqdm=True,
                logging_strategy="no", save_strategy="no", dataloader_num_workers=0)
    base.update(kw)
    return TrainingArguments(**base)


# 1. The acceptance job on a real Trainer object (one process here; planned for 8): the CLI's report, exactly.
n = 50000
trainer = Trainer(model=Tiny(n), args=args(per_device_train_batch_size=16, gradient_accumulation_steps=4,
                                           num_train_epochs=3), train_dataset=Ids(n))
report = accelerate_sim.from_trainer(trainer, num_processes=8, resume_from_checkpoint=100)
flags = ["--api", "trainer", "--ranks", "8", "--dataset-len", "50000", "--per-device-batch-size", "16",
         "--grad-accum", "4", "--epochs", "3", "--resume-at-step", "100", "--use-cpu", "--json"]
code, out, err = accelerate_sim.run_cli(flags)
cli = json.loads(out)
mine = {k: v for k, v in report.items() if k != "not_modelled"}
check("from_trainer returns the CLI's report for the same job", code == 0 and mine == cli,
      json.dumps({k: (mine.get(k), cli.get(k)) for k in set(mine) | set(cli) if mine.get(k) != cli.get(k)})[:600])
check("... which resumes exactly at step 100", report["resume"]["identical"] is True)
moved = accelerate_sim.from_trainer(trainer, num_processes=8, resume_from_checkpoint="ckpt/checkpoint-100", resume_ranks=16)
check("on 16 processes the resume loses samples", moved["resume"]["identical"] is False
      and moved["resume"]["missing"]["count"] > 0, moved["resume"]["reasons"])
check("TrainingArguments' defaults are read, not assumed", report["input"]["seed"] == 42
      and report["input"]["accelerator_config"]["use_seedable_sampler"] is True and report["input"]["device"] == "cpu")

# 2. A real training run on one process: the steps and ids the report and the trace predict.
SEEN.clear()
n = 23
recorder = Steps()
small = Trainer(model=Tiny(n), args=args(per_device_train_batch_size=2, gradient_accumulation_steps=3,
                                         num_train_epochs=2, seed=7, data_seed=11),
                train_dataset=Ids(n), callbacks=[recorder])
predicted = accelerate_sim.from_trainer(small)
options = accelerate_sim.training_args_options(small.args, small.train_dataset)
small.train()
check("a real run takes the optimizer steps the report says", small.state.global_step ==
      predicted["job"]["optimizer_steps"] == predicted["job"]["last_global_step"],
      (small.state.global_step, predicted["job"]))
config = {k: v for k, v in json.loads(json.dumps(predicted["input"])).items()}
trace = accelerate_sim.trace({"case": "from-trainer", "family": "trainer", "config": config})
check("... and trains the ids the simulated trace has, step by step", trace["ranks"][0]["steps"] == recorder.steps,
      (trace["ranks"][0]["steps"][:2], recorder.steps[:2]))
check("data_seed and seed reach the config", config["data_seed"] == 11 and config["seed"] == 7, config)

# 2b. group_by_length: the lengths are read from the samples' input_ids, as Trainer's LengthGroupedSampler reads them.
class Sized(Ids):
    def __getitem__(self, i):
        if i >= self.n:  # LengthGroupedSampler iterates the dataset by index until IndexError
            raise IndexError(i)
        item = super().__getitem__(i)
        item["input_ids"] = torch.zeros((i * 7) % 11 + 1, dtype=torch.long)
        return item


def drop_input_ids(features):
    return {k: torch.stack([f[k] for f in features]) for k in ("x", "labels")}


SEEN.clear()
n = 30
recorder = Steps()
grouped = Trainer(model=Tiny(n), args=args(per_device_train_batch_size=2, gradient_accumulation_steps=2,
                                           num_train_epochs=2, train_sampling_strategy="group_by_length"),
                  train_dataset=Sized(n), data_collator=drop_input_ids, callbacks=[recorder])
predicted = accelerate_sim.from_trainer(grouped)
grouped.train()
config = predicted["input"]
check("group_by_length: the lengths come from input_ids", config["lengths"] == [(i * 7) % 11 + 1 for i in range(n)],
      config.get("lengths"))
trace = accelerate_sim.trace({"case": "from-trainer-gbl", "family": "trainer", "config": config})
check("group_by_length: the real run trains the ids the trace has", trace["ranks"][0]["steps"] == recorder.steps,
      (trace["ranks"][0]["steps"][:2], recorder.steps[:2]))

# 2c. An IterableDataset (no __len__: dataset_len= says how many samples a pass yields): a real run over a stream
# that runs out twice before max_steps, against the trace of the config from_training_args resolves.
class StreamIds(torch.utils.data.IterableDataset):
    def __init__(self, n):
        self.items = Ids(n)

    def __iter__(self):
        return (self.items[i] for i in range(len(self.items)))


SEEN.clear()
n = 5
recorder = Steps()
streamed = Trainer(model=Tiny(n), args=args(per_device_train_batch_size=2, gradient_accumulation_steps=2, max_steps=4),
                   train_dataset=StreamIds(n), callbacks=[recorder])
predicted = accelerate_sim.from_trainer(streamed, dataset_len=n)
streamed.train()
config = predicted["input"]
check("an IterableDataset: the config says so", config.get("dataset_kind") == "iterable"
      and config.get("iterable_has_len") is False, config)
trace = accelerate_sim.trace({"case": "from-trainer-iter", "family": "trainer", "config": config})
check("an IterableDataset: the real run trains the ids the trace has (steps carry across passes)",
      trace["ranks"][0]["steps"] == recorder.steps, (trace["ranks"][0]["steps"], recorder.steps))

# 2d. trainer.evaluate() on one process: the report's evaluation, and what the real call returns.
evaluator = Trainer(model=Tiny(10), args=args(per_device_eval_batch_size=4), train_dataset=Ids(10),
                    eval_dataset=Ids(10))
predicted = accelerate_sim.from_trainer(evaluator, num_processes=2)
check("an eval dataset is simulated (2 processes: eval_loss weighs the padded batch)",
      predicted["not_modelled"] == [] and predicted["evaluation"]["dataset_len"] == 10
      and predicted["evaluation"]["exact"] is False, predicted.get("evaluation"))
alone = accelerate_sim.from_trainer(evaluator)
metrics = evaluator.evaluate()
with torch.no_grad():
    per_sample = [float(evaluator.model(x=item["x"][None], labels=item["labels"][None])["loss"])
                  for item in (Ids(10)[i] for i in range(10))]
check("... on its one process it is exact, as the real evaluate() is (the mean of the per-sample losses)",
      alone["evaluation"]["exact"] is True and abs(metrics["eval_loss"] - sum(per_sample) / 10) < 1e-6,
      (alone["evaluation"], metrics, sum(per_sample) / 10))

# 3. What is not modelled is refused by name.
for name, kw, data in (("worker processes", dict(dataloader_num_workers=2), Ids(10)),
                       ("fractional epochs", dict(num_train_epochs=1.5), Ids(10)),
                       ("an IterableDataset without dataset_len=", dict(max_steps=3), Stream())):
    try:
        accelerate_sim.from_training_args(args(**kw), data)
        check(f"{name} is refused", False, "no NotModelled")
    except accelerate_sim.NotModelled as e:
        check(f"{name} is refused", True, str(e))
check("an iterable eval dataset is named as not modelled",
      accelerate_sim.from_training_args(args(), Ids(10), Stream())["not_modelled"][0].startswith("evaluation over Stream"))

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
