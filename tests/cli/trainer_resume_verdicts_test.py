#!/usr/bin/env python3
"""Issue 28: the Trainer what-if's resume verdicts agree with the recorded Trainer.

For every recorded resume in golden/cases-trainer (the real transformers Trainer, 5.25 and 4.57, gloo groups),
the case's config is retyped as `accel-sim --api trainer` flags (on CPU, as recorded) and the report is compared
with what the recording itself shows, computed here from the recorded ids alone:
  * the flags resolve to the recorded config (input echo),
  * exact (same shape: every rank's steps after the checkpoint equal the resumed job's; another shape: the same
    multiset of trained samples) <=> the report's resume.identical,
  * extra - missing equals the recorded difference in trained occurrences,
  * a recorded resume error <=> the report's resume.error (same type).
"""
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

binary, cases = sys.argv[1], sys.argv[2]


def flags(c, tmp):
    f = ["--api", "trainer", "--transformers-version", c["transformers_version"], "--ranks", str(c["num_processes"]),
         "--dataset-len", str(c["dataset_len"]), "--per-device-batch-size", str(c["per_device_train_batch_size"]),
         "--grad-accum", str(c["gradient_accumulation_steps"]), "--epochs", str(c["num_train_epochs"])]
    if c["max_steps"] != -1:
        f += ["--max-steps", str(c["max_steps"])]
    if c["dataloader_drop_last"]:
        f.append("--drop-last")
    f += ["--set-seed", str(c["seed"])]
    if c.get("data_seed") is not None:
        f += ["--data-seed", str(c["data_seed"])]
    if c.get("train_sampling_strategy", "random") != "random":
        f += ["--train-sampling-strategy", c["train_sampling_strategy"]]
    if "lengths" in c:
        path = os.path.join(tmp, "lengths.txt")
        with open(path, "w") as out:
            out.write("\n".join(str(v) for v in c["lengths"]))
        f += ["--lengths", path]
    a = c.get("accelerator_config", {})
    if a.get("split_batches"):
        f.append("--split-batches")
    if a.get("even_batches") is False:
        f.append("--no-even-batches")
    if a.get("use_seedable_sampler") is False:
        f.append("--no-seedable-sampler")
    if c.get("dataset_kind") == "iterable":
        f += ["--dataset", "iterable"]
        if c.get("iterable_has_len"):
            f.append("--iterable-has-len")
        if c.get("iterable_set_epoch"):
            f.append("--iterable-set-epoch")
        if a.get("dispatch_batches") is not None:
            f.append("--dispatch-batches" if a["dispatch_batches"] else "--no-dispatch-batches")
    r = c["resume"]
    f += ["--resume-at-step", str(r["global_step"])]
    if r["num_processes"] != c["num_processes"]:
        f += ["--resume-ranks", str(r["num_processes"])]
    if r["per_device_train_batch_size"] != c["per_device_train_batch_size"]:
        f += ["--resume-batch-size", str(r["per_device_train_batch_size"])]
    if r["gradient_accumulation_steps"] != c["gradient_accumulation_steps"]:
        f += ["--resume-grad-accum", str(r["gradient_accumulation_steps"])]
    if r["ignore_data_skip"]:
        f.append("--ignore-data-skip")
    return f + ["--json"]


def recorded_verdict(d):
    g = d["config"]["resume"]["global_step"]
    errors = [r["error"] for r in d["ranks"] if r.get("error")]
    if errors:
        return None, errors[0]["type"], 0
    before = [[s for s in r["steps"] if s["global_step"] is not None and s["global_step"] > g] for r in d["ranks"]]
    after = [[s for s in r.get("resumed_steps", []) if s["global_step"] is not None] for r in d["ranks"]]
    count = lambda runs: collections.Counter(i for steps in runs for s in steps for b in s["batches"] for i in b)
    u, a = count(before), count(after)
    c, r = d["config"], d["config"]["resume"]
    same = (r["num_processes"], r["per_device_train_batch_size"], r["gradient_accumulation_steps"]) == (
        c["num_processes"], c["per_device_train_batch_size"], c["gradient_accumulation_steps"])
    exact = before == after if same else u == a
    return exact, None, sum(a.values()) - sum(u.values())


failures, checked, inexact = [], 0, 0
tmp = tempfile.mkdtemp(prefix="accel-sim-verdicts-")
env = dict(os.environ, ACCELERATE_USE_CPU="true")
for path in sorted(glob.glob(os.path.join(cases, "trainer-*.json"))):
    d = json.load(open(path))
    c = d["config"]
    if not c.get("resume") or d.get("error"):
        continue
    name = os.path.basename(path)
    p = subprocess.run([binary] + flags(c, tmp), capture_output=True, text=True, env=env)
    if p.returncode not in (0,):
        failures.append(f"{name}: exit {p.returncode}: {p.stderr.strip()}")
        continue
    rep = json.loads(p.stdout)
    echoed = dict(rep["input"])
    if echoed.pop("device") != "cpu":
        failures.append(f"{name}: ACCELERATE_USE_CPU did not make the device cpu")
    want = dict(c)
    want.setdefault("train_sampling_strategy", "random")
    if want.get("dataset_kind") == "iterable":
        want.setdefault("iterable_has_len", False)
        want.setdefault("iterable_set_epoch", False)
    if echoed != want:
        failures.append(f"{name}: the flags resolve to {json.dumps(echoed, sort_keys=True)}, recorded "
                        f"{json.dumps(want, sort_keys=True)}")
    exact, error_type, net = recorded_verdict(d)
    res = rep["resume"]
    checked += 1
    if error_type:
        if not res["error"] or res["error"]["type"] != error_type:
            failures.append(f"{name}: recorded {error_type} in the resumed job, report error {res['error']}")
        continue
    inexact += not exact
    if res["identical"] != exact:
        failures.append(f"{name}: recorded exact={exact}, report identical={res['identical']}")
    if res["extra"]["count"] - res["missing"]["count"] != net:
        failures.append(f"{name}: report extra-missing {res['extra']['count'] - res['missing']['count']}, recorded {net}")

print(f"{checked} recorded resumes judged, {inexact} of them inexact")
shutil.rmtree(tmp)
if checked < 20 or inexact < 5:
    failures.append("too few recorded resumes (or too few inexact ones) to judge the verdicts")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
