#!/usr/bin/env python3
"""Issue 29: `accel-sim upgrade`'s resume and metrics verdicts against the recordings of each release
(golden/cases-releases/<X.Y.Z>/rel-resume-* and rel-metrics-*).

For every recorded resume case of every release X, its configuration is retyped as flags and
`accel-sim upgrade --from X --to Y ... --resume-at E:S` is run, Y the next release that recorded the case (the newest
pairs with the oldest), so every release appears on both sides. A case with `resume.state_writer` has no flag and is
listed as not retyped, never counted as passed. The verdict the report gives X (and Y) must be what the recordings
themselves show, worked out here from the traces alone: "fails" when the recording has an error on a rank,
"identical" when every rank's resumed batches are its uninterrupted batches from step S of epoch E on, else
"not identical". The same for the evaluation: rank 0's gather_for_metrics returns over the recorded pass are exact
when they hold every sample once. Both sides of each pair are judged, and a case the report does not state is a
failure, never a pass.

    upgrade_verdicts_test.py ACCEL_SIM CASES_RELEASES_DIR
"""
import glob
import json
import os
import re
import subprocess
import sys


def release_key(v):
    return tuple(int(x) for x in v.split("."))


def resume_verdict(d):
    if any(r.get("error") for r in d["ranks"]):
        return "fails"
    r = d["config"]["resume"]
    e, s = r["epoch"], r["step"]
    for rank in d["ranks"]:
        u = rank["uninterrupted"]
        if rank["resumed"] != [u[e][s:]] + u[e + 1:]:
            return "not identical"
    return "identical"


def metrics_verdict(d):
    if any(r.get("error") for r in d["ranks"]):
        return "fails"
    n = d["config"]["dataset_len"]
    returned = []
    for step in d["ranks"][0]["steps"]:
        if step["gather_for_metrics"] is None:
            return "fails"
        returned += step["gather_for_metrics"]
    return "exact" if sorted(returned) == list(range(n)) else "inexact"


def outcome_class(text):
    text = text.strip()
    for word in ("fails", "identical to the uninterrupted job", "not identical", "exact", "inexact", "never finishes"):
        if text.startswith(word):
            return {"identical to the uninterrupted job": "identical", "never finishes": "fails"}.get(word, word)
    return "unknown: " + text


def stated(report, label_start, frm, to):
    """The (from, to) verdicts the report gives the outcome whose label starts with label_start."""
    for line in report.splitlines():
        line = line.strip()
        if not line.startswith(label_start):
            continue
        rest = line.split(": ", 1)[1]
        if " -> " in rest:
            before, after = rest.split(" -> ", 1)
            return outcome_class(before), outcome_class(after)
        return outcome_class(rest), outcome_class(rest)
    return None


def base_flags(c):
    f = ["--ranks", str(c["num_processes"]), "--dataset-len", str(c["dataset_len"]), "--batch-size", str(c["batch_size"])]
    if c.get("shuffle"):
        f.append("--shuffle")
    if c.get("set_seed") is not None:
        f += ["--set-seed", str(c["set_seed"])]
    if c.get("drop_last"):
        f.append("--drop-last")
    if c.get("dataset_kind", "map") == "iterable":
        f += ["--dataset", "iterable"]
    acc = c.get("accelerator", {})
    for key, flag, when in (("use_seedable_sampler", "--use-seedable-sampler", True),
                            ("even_batches", "--no-even-batches", False),
                            ("use_stateful_dataloader", "--use-stateful-dataloader", True)):
        if key in acc and acc[key] == when:
            f.append(flag)
    if acc.get("data_seed") is not None:
        f += ["--data-seed", str(acc["data_seed"])]
    unknown = set(acc) - {"use_seedable_sampler", "even_batches", "use_stateful_dataloader", "data_seed"}
    if unknown:
        raise SystemExit(f"upgrade_verdicts_test: no flag retypes accelerator option(s) {sorted(unknown)}")
    return f


def main():
    exe, root = sys.argv[1], sys.argv[2]
    releases = sorted(os.listdir(root), key=release_key)
    cases = {}  # (release, case) -> trace
    for v in releases:
        for path in glob.glob(os.path.join(root, v, "rel-resume-*.json")) + glob.glob(os.path.join(root, v, "rel-metrics-*.json")):
            with open(path) as fh:
                cases[(v, os.path.basename(path)[:-5])] = json.load(fh)
    names = sorted({name for _, name in cases})
    checked = failed = 0
    not_retyped = set()
    for name in names:
        # A case recorded in only some releases pairs the releases that have it, in order.
        have = [v for v in releases if (v, name) in cases]
        if len(have) < 2:
            continue
        for i, frm in enumerate(have):
            to = have[(i + 1) % len(have)]
            a, b = cases[(frm, name)], cases[(to, name)]
            c = a["config"]
            if "state_writer" in c.get("resume", {}):
                not_retyped.add(name)  # no flag names the rank whose state file survives
                continue
            # The shuffle (and 1.5.0's torch.get_default_device) of the torch the recordings ran on.
            torch = "1.13" if a["reference"]["torch"].startswith("1.13") else "2.6"
            flags = [exe, "upgrade", "--from", frm, "--to", to, "--torch-version", torch] + base_flags(c)
            if name.startswith("rel-resume-"):
                r = c["resume"]
                flags += ["--epochs", str(c["epochs"]), "--resume-at", f"{r['epoch']}:{r['step']}", "--resume-with", r["with"]]
                if r.get("loop_set_epoch"):
                    flags.append("--loop-set-epoch")
                expected = (resume_verdict(a), resume_verdict(b))
                label = "resume from save_state"
            else:
                expected = (metrics_verdict(a), metrics_verdict(b))
                label = "gather_for_metrics over one pass"
            p = subprocess.run(flags, capture_output=True, text=True)
            got = stated(p.stdout, label, frm, to) if p.returncode == 0 else None
            checked += 1
            if got != expected:
                failed += 1
                print(f"FAIL {name} {frm} -> {to}: recorded {expected}, the report says {got} "
                      f"(exit {p.returncode})\n  {' '.join(flags[1:])}\n{p.stdout}{p.stderr}")
    print(f"upgrade_verdicts: {checked} release pairs x cases judged, {failed} failed "
          f"({len(releases)} releases, {len(names)} cases; not retyped, so not judged: {sorted(not_retyped) or 'none'})")
    if checked == 0:
        print("FAIL: nothing was judged")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
