"""Records real DDP training jobs (issue 16): torch's DistributedDataParallel under the real Accelerate 1.15.0, in
a gloo group of forked ranks on 127.0.0.1, training on what `accelerator.prepare(dataloader)` yields, as
`accel-sim launch` models it. For each config the recording says, per rank, how many micro-steps of each epoch it
trained on and whether it finished its loop or blocked (and at which epoch and micro-step), which
tests/ranks/ddp_golden_test.py compares with `accel-sim launch` on the same flags.

  python record_ddp.py OUT_DIR          (run by golden/record-ddp in the reference environment)

A rank that finishes its loop stays alive (as a script that goes on to evaluate or save would), so its peers
block in DDP's gradient all_reduce instead of seeing a closed connection; every rank is killed after the hang
timeout and its last progress says where it was.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402  (shims before accelerate, run_group)
import torch  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.utils import DataLoaderConfiguration, GradientAccumulationPlugin  # noqa: E402

# (name, ranks, dataset_len, batch_size, accelerator options, loop options, epochs): the flags `accel-sim launch`
# takes for each are derived below, so a case is one line.
CASES = [
    ("uneven-n3-l10-b2", 3, 10, 2, {"even_batches": False}, {}, 1),
    ("uneven-n4-l13-b2", 4, 13, 2, {"even_batches": False}, {}, 1),
    ("uneven-n5-l53-b2", 5, 53, 2, {"even_batches": False}, {}, 1),
    ("even-n3-l10-b2", 3, 10, 2, {}, {}, 1),
    ("uneven-n3-l10-b2-join", 3, 10, 2, {"even_batches": False}, {"join": True}, 1),
    ("even-n3-l10-b2-join-override-false", 3, 10, 2, {}, {"join": True, "join_even_batches": False}, 1),
    ("uneven-n3-l10-b2-accum2", 3, 10, 2, {"even_batches": False}, {"grad_accum": 2}, 1),
    ("uneven-n3-l10-b2-accum2-each", 3, 10, 2, {"even_batches": False}, {"grad_accum": 2, "sync_each_batch": True}, 1),
    ("uneven-n4-l25-b2-accum3", 4, 25, 2, {"even_batches": False}, {"grad_accum": 3}, 1),
    ("uneven-n5-l32-b2-epochs2", 5, 32, 2, {"even_batches": False}, {}, 2),
    ("uneven-n5-l27-b3-epochs2", 5, 27, 3, {"even_batches": False}, {}, 2),
    ("uneven-n2-l7-b1-epochs2-join", 2, 7, 1, {"even_batches": False}, {"join": True}, 2),
]


def launch_flags(ranks, length, batch, acc, loop, epochs):
    flags = ["--nproc", str(ranks), "--dataset-len", str(length), "--batch-size", str(batch)]
    if acc.get("even_batches") is False:
        flags.append("--no-even-batches")
    if epochs > 1:
        flags += ["--epochs", str(epochs)]
    if loop.get("grad_accum", 1) > 1:
        flags += ["--grad-accum", str(loop["grad_accum"])]
    if loop.get("sync_each_batch"):
        flags.append("--sync-each-batch")
    if loop.get("join"):
        flags.append("--join-uneven-inputs")
    if "join_even_batches" in loop:
        flags += ["--join-even-batches", "true" if loop["join_even_batches"] else "false"]
    return flags


def worker(rank, progress, length, batch, acc, loop, epochs, linger):
    plugin = GradientAccumulationPlugin(num_steps=loop.get("grad_accum", 1),
                                        sync_each_batch=loop.get("sync_each_batch", False))
    accelerator = Accelerator(cpu=True, gradient_accumulation_plugin=plugin, dataloader_config=DataLoaderConfiguration(**acc))
    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.DataLoader(torch.arange(length, dtype=torch.float32), batch_size=batch)
    model, optimizer, data = accelerator.prepare(model, optimizer, data)
    state = {"rank": rank, "micro_steps": [], "optimizer_steps": 0, "at": None, "finished": False}
    progress(state)

    def train():
        for epoch in range(epochs):
            state["micro_steps"].append(0)
            for step, x in enumerate(data):
                state["at"] = [epoch, step]
                progress(state)
                with accelerator.accumulate(model):
                    loss = model(x.unsqueeze(1)).sum()
                    accelerator.backward(loss)
                    optimizer.step()
                    if accelerator.sync_gradients:
                        state["optimizer_steps"] += 1
                    optimizer.zero_grad()
                state["micro_steps"][-1] += 1
                state["at"] = None
                progress(state)

    if loop.get("join"):
        kwargs = {"even_batches": loop["join_even_batches"]} if "join_even_batches" in loop else {}
        with accelerator.join_uneven_inputs([model], **kwargs):
            train()
    else:
        train()
    state["finished"] = True
    progress(state)
    time.sleep(linger)  # alive, as a script that goes on would be; killed after the hang timeout
    return {"record": state}


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    hang_timeout = 10.0
    for name, ranks, length, batch, acc, loop, epochs in CASES:
        results = record.run_group(
            ranks, lambda r, p: worker(r, p, length, batch, acc, loop, epochs, hang_timeout + 5), hang_timeout)
        observed = []
        for r in range(ranks):
            res = results[r]
            rec = res.get("record") or res.get("partial")
            if rec is None or ("failure" in res and res["failure"]["type"] not in ("Hang",)):
                raise SystemExit(f"{name}: rank {r} failed: {res}")
            observed.append({"rank": r, "micro_steps": rec["micro_steps"], "optimizer_steps": rec["optimizer_steps"],
                             "finished": rec["finished"], "blocked_at": None if rec["finished"] else rec["at"]})
        case = {"case": name, "family": "ddp", "launch_flags": launch_flags(ranks, length, batch, acc, loop, epochs),
                "reference": {"accelerate": record.accelerate.__version__, "torch": torch.__version__,
                              "backend": "gloo", "model": "torch.nn.Linear(1, 1) in DistributedDataParallel"},
                "ranks": observed}
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(case, f, indent=2)
            f.write("\n")
        blocked = [o["rank"] for o in observed if not o["finished"]]
        print(f"{name}: " + (f"ranks {blocked} blocked at {[observed[b]['blocked_at'] for b in blocked]}"
                             if blocked else "completed"), flush=True)


if __name__ == "__main__":
    main()
