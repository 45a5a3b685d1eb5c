"""The rules of golden/trainer-iterable.md as a few lines of plain Python (no torch, no transformers), checked
against every recorded `-iter-` case of the `trainer` family:

    python3 golden/reference/trainer_iterable_rules.py [CASE.json ...]   # default: golden/cases-trainer/*-iter-*.json

For each case it predicts every rank's `steps` / `resumed_steps` (global_step and micro-batches) and error type from
the config alone, and compares them with the recording (error messages are not compared). Prints one line per case
that differs and a summary; exit 0 when all agree, 1 otherwise. A reading aid and a check of the written rules for
whoever models them: it is not the recorder and records nothing.
"""
import glob
import json
import os
import sys

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NO_STEP_EPOCHS = 50  # epochs in a row without an optimizer step: the real loop would never end (a Hang)


def pass_ids(c, epoch):
    n = c["dataset_len"]
    if c.get("iterable_set_epoch"):
        return [(epoch + j) % n for j in range(n)]
    return list(range(n))


def pass_batches(c, R, b, epoch):
    """Every rank's batches of one pass (§2): DataLoaderDispatcher, or DataLoaderShard over IterableDatasetShard."""
    ids = pass_ids(c, epoch)
    acc = c["accelerator_config"]
    split = acc["split_batches"]
    base = [ids[i:i + b] for i in range(0, len(ids), b)]  # drop_last never reaches the DataLoader
    if acc["dispatch_batches"] is not False:  # null: dispatch_batches = isinstance(dataset, IterableDataset)
        dispatches = base if split else [sum(base[i:i + R], []) for i in range(0, len(base), R)]
        out = [[] for _ in range(R)]
        if not dispatches:
            return out
        first = dispatches[0][:R]
        for i, d in enumerate(dispatches):
            s = len(d)
            if i == len(dispatches) - 1 and s % R:
                d, q = d + first, s // R + 1
            else:
                q = s // R
            for r in range(R):
                out[r].append(d[r * q:(r + 1) * q])
        return out
    if R == 1:
        return [base]
    real, per = (b, b // R) if split else (b * R, b)
    out = [[] for _ in range(R)]
    first = None
    groups = [ids[i:i + real] for i in range(0, len(ids), real)]
    for g in groups:
        if len(g) == real:
            first = first or list(g)
        else:
            first = first or list(g)
            while len(g) < real:
                g = g + first
        for r in range(R):
            out[r].append(g[r * per:(r + 1) * per])
    return out


def run_job(c, R, b, k, G=None, ignore_skip=False):
    """Every rank's optimizer steps (§3-§5), from scratch (G None) or resumed at checkpoint-G."""
    M, E = c["max_steps"], c["num_train_epochs"]
    has_len = c.get("iterable_has_len", False)
    if has_len:
        L = len(pass_batches(c, R, b, 0)[0])
        upe = max(L // k + int(L % k > 0), 1)
        max_steps = M if M > 0 else E * upe
        epochs = (max_steps // upe + int(max_steps % upe > 0)) if M > 0 else E
        steps_in_epoch = L
    else:
        upe, max_steps, epochs, steps_in_epoch = M, M, sys.maxsize, M * k
    gs = G or 0
    epochs_trained = gs // upe if G is not None else 0
    skip = (gs % upe) * k if G is not None and not ignore_skip else 0
    steps = [[] for _ in range(R)]
    pending = [[] for _ in range(R)]
    idle = 0
    epoch = epochs_trained
    while epoch < epochs:
        batches = pass_batches(c, R, b, epoch)
        step, first_update = -1, 0
        if epoch == epochs_trained and skip > 0:
            batches = [bs[skip:] for bs in batches]
            step, first_update = skip - 1, skip // k
        pos = 0
        stepped = False
        for update in range(first_update, upe):
            num = k
            if has_len and update == upe - 1:
                num = steps_in_epoch % k or k
            drawn = len(batches[0][pos:pos + num])
            for i in range(drawn):
                step += 1
                for r in range(R):
                    pending[r].append(batches[r][pos + i])
                if (step + 1) % k == 0 or (step + 1) == steps_in_epoch:
                    gs += 1
                    stepped = True
                    for r in range(R):
                        steps[r].append({"global_step": gs, "batches": pending[r]})
                        pending[r] = []
                    if gs >= max_steps:
                        return steps, None
            pos += drawn
        if step < 0:
            break
        idle = 0 if stepped else idle + 1
        if idle >= NO_STEP_EPOCHS:
            return steps, "Hang"
        epoch += 1
    return steps, None


def predict(c):
    """[(steps, resumed_steps or None, error type or None)] per rank."""
    R, v, res = c["num_processes"], c["transformers_version"], c["resume"]
    R2 = res["num_processes"] if res else 0
    refused = None
    if not c.get("iterable_has_len") and c["max_steps"] <= 0:
        refused = "ValueError"  # Trainer.__init__: no __len__, no max_steps
    if c["train_sampling_strategy"] == "group_by_length" and v == "4.57":
        refused = "ValueError"  # 4.57: group_by_length with an IterableDataset
    ranks = []
    if refused:
        for r in range(max(R, R2)):
            ranks.append(([], [] if res else None, refused))
        return ranks
    first, err1 = run_job(c, R, c["per_device_train_batch_size"], c["gradient_accumulation_steps"])
    second, err2 = [[] for _ in range(R2)], None
    if res:
        if v == "4.57" and R2 > 1:
            err2 = "RuntimeError"  # map_location cpu:0 on a CPU process group
        else:
            second, err2 = run_job(c, R2, res["per_device_train_batch_size"], res["gradient_accumulation_steps"],
                                   G=res["global_step"], ignore_skip=res["ignore_data_skip"])
    for r in range(max(R, R2)):
        ranks.append((first[r] if r < R else [], (second[r] if r < R2 else []) if res else None,
                      (err1 if r < R else None) or (err2 if r < R2 else None)))
    return ranks


def recorded(doc):
    out = []
    for rec in doc["ranks"]:
        out.append((rec["steps"], rec.get("resumed_steps"), (rec.get("error") or {}).get("type")))
    return out


def main(argv):
    files = argv or sorted(glob.glob(os.path.join(GOLDEN, "cases-trainer", "trainer-v*-iter-*.json")))
    bad = 0
    for f in files:
        doc = json.load(open(f))
        if "ranks" not in doc:
            print(f"{doc['case']}: not recorded yet")
            bad += 1
            continue
        if predict(doc["config"]) != recorded(doc):
            print(f"{doc['case']}: differs from the rules")
            bad += 1
    print(f"trainer_iterable_rules: {len(files) - bad} of {len(files)} recorded cases follow the rules")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
