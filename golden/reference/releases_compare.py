"""Which release recordings differ from 1.15.0's for the same config (golden/releases.md, "Recorded").

    python3 golden/reference/releases_compare.py [golden/cases-releases] [--base 1.15.0] [--consecutive] [--all]

Compares, per case, what the ranks were given: the case-level error's type (or none) and, per rank, the rank-level
error's type and every pass's batches (the sample ids, in order) and pass error type. Lengths, counters and
end_of_dataloader / remainder are not compared (see --all).
"""
import argparse
import json
import os
import sys


def key(doc, full):
    err = doc.get("error")
    if err:
        return ("error", err["type"])
    out = []
    for r in doc["ranks"]:
        e = r.get("error")
        if "steps" in r:  # metrics
            out.append((e and e["type"], [(s["batch"], s["gather_for_metrics"]) for s in r["steps"]]))
        elif "resumed" in r:  # resume: the two jobs' batches
            out.append((e and e["type"], r["uninterrupted"], r["resumed"]))
        else:
            passes = [(p["batches"], p["error"] and p["error"]["type"]) + ((p["end_of_dataloader"], p["remainder"],
                      p["iteration_after"], p["sampler_epoch_after"]) if full else ()) for p in r["epochs"]]
            out.append((e and e["type"], passes) + ((r["len"],) if full else ()))
    return ("ranks", json.dumps(out))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "cases-releases"))
    p.add_argument("--base", default="1.15.0")
    p.add_argument("--all", action="store_true", help="also compare len, end_of_dataloader, remainder, counters")
    p.add_argument("--consecutive", action="store_true", help="compare each release with the previous one instead")
    args = p.parse_args(argv)
    releases = sorted(os.listdir(args.root), key=lambda v: tuple(int(x) for x in v.split(".")))
    base = {f[:-5]: json.load(open(os.path.join(args.root, args.base, f)))
            for f in os.listdir(os.path.join(args.root, args.base))}
    if args.consecutive:
        print("| release | differ from the previous recorded release (ids/errors) |")
        print("| --- | --- |")
        for prev, v in zip(releases, releases[1:]):
            diff = []
            for f in sorted(os.listdir(os.path.join(args.root, v))):
                a = json.load(open(os.path.join(args.root, v, f)))
                b = os.path.join(args.root, prev, f)
                if os.path.exists(b) and key(a, args.all) != key(json.load(open(b)), args.all):
                    diff.append(f[:-5].replace("rel-", ""))
            print(f"| {prev} -> {v} | {len(diff)}: {', '.join(diff) or '-'} |")
        return 0
    print("| release | cases | raise (case level) | differ from %s (ids/errors) |" % args.base)
    print("| --- | --- | --- | --- |")
    for v in releases:
        files = sorted(os.listdir(os.path.join(args.root, v)))
        diff, raised = [], []
        for f in files:
            doc = json.load(open(os.path.join(args.root, v, f)))
            name = f[:-5]
            if doc["error"]:
                raised.append(name)
            if name in base and key(doc, args.all) != key(base[name], args.all):
                diff.append(name)
        print(f"| {v} | {len(files)} | {len(raised)} | {len(diff)}: {', '.join(d.replace('rel-', '') for d in diff) or '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
