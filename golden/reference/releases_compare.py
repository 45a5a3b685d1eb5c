"""Which release recordings differ from 1.15.0's for the same config (golden/releases.md, "Recorded").

    python3 golden/reference/releases_compare.py [golden/cases-releases] [--base 1.15.0] [--consecutive] [--all]
                                                 [--cases PATTERN ...] [--torch2 golden/cases-torch2]

Compares, per case, what the ranks were given: the case-level error's type (or none) and, per rank, the rank-level
error's type and every pass's batches (the sample ids, in order) and pass error type. Lengths, counters and
end_of_dataloader / remainder are not compared (see --all). Resume cases: each rank's uninterrupted and resumed
batches and error type; metrics cases: each step's batch and gathered ids.

The release cases recorded on torch 2 (rel-hf-*, rel-resume-*-stateful*, rel-accel-*-stateful*, rel-workers-*:
golden/reference/setup-releases-torch2 --record) have no file in <root>/1.15.0/: 1.15.0's recording of them is
golden/cases-torch2/<case>.json itself (the same config but for the `rel-` prefix and config.accelerate_version),
which --torch2 names; it stands in for <root>/<base>/rel-<case>.json wherever that is missing (--torch2 '' turns this
off). --cases keeps the cases whose name (with `rel-`, without .json) matches one of the shell patterns.
"""
import argparse
import fnmatch
import json
import os
import sys

TORCH2_RELEASE = "1.15.0"  # the release golden/cases-torch2 was recorded with


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
    here = os.path.dirname(__file__)
    p = argparse.ArgumentParser()
    p.add_argument("root", nargs="?", default=os.path.join(here, "..", "cases-releases"))
    p.add_argument("--base", default="1.15.0")
    p.add_argument("--all", action="store_true", help="also compare len, end_of_dataloader, remainder, counters")
    p.add_argument("--consecutive", action="store_true", help="compare each release with the previous one instead")
    p.add_argument("--cases", action="append", metavar="PATTERN", help="only the cases (rel-...) matching PATTERN")
    p.add_argument("--torch2", default=os.path.join(here, "..", "cases-torch2"),
                   help=f"the {TORCH2_RELEASE} recordings of the rel-* cases recorded on torch 2 ('' for none)")
    args = p.parse_args(argv)
    releases = sorted(os.listdir(args.root), key=lambda v: tuple(int(x) for x in v.split(".")))
    wanted = lambda f: not args.cases or any(fnmatch.fnmatchcase(f[:-5], pat) for pat in args.cases)
    every = sorted({f for v in releases for f in os.listdir(os.path.join(args.root, v)) if wanted(f)})

    def path_of(v, f):
        """The recording of case file f (rel-<case>.json) under release v, or None."""
        own = os.path.join(args.root, v, f)
        if os.path.exists(own):
            return own
        if args.torch2 and v == TORCH2_RELEASE and f.startswith("rel-"):
            t2 = os.path.join(args.torch2, f[len("rel-"):])
            if os.path.exists(t2):
                return t2
        return None

    def files_of(v):
        return [f for f in every if path_of(v, f)]

    releases = [v for v in releases if files_of(v)]  # with --cases: the releases that recorded such cases
    base = {f[:-5]: json.load(open(path_of(args.base, f))) for f in files_of(args.base)}
    if args.consecutive:
        print("| release | differ from the previous recorded release (ids/errors) |")
        print("| --- | --- |")
        for prev, v in zip(releases, releases[1:]):
            diff = []
            for f in files_of(v):
                a = json.load(open(path_of(v, f)))
                b = path_of(prev, f)
                if b and key(a, args.all) != key(json.load(open(b)), args.all):
                    diff.append(f[:-5].replace("rel-", ""))
            print(f"| {prev} -> {v} | {len(diff)}: {', '.join(diff) or '-'} |")
        return 0
    print("| release | cases | raise (case level) | differ from %s (ids/errors) |" % args.base)
    print("| --- | --- | --- | --- |")
    for v in releases:
        files = files_of(v)
        diff, raised = [], []
        for f in files:
            doc = json.load(open(path_of(v, f)))
            name = f[:-5]
            if doc["error"]:
                raised.append(name)
            if name in base and key(doc, args.all) != key(base[name], args.all):
                diff.append(name)
        print(f"| {v} | {len(files)} | {len(raised)} | {len(diff)}: {', '.join(d.replace('rel-', '') for d in diff) or '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
