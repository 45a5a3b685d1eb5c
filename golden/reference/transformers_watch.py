"""The transformers release watch (golden/transformers-watch): does transformers 5.N's Trainer behave like 5.25's,
the newest recorded release, on every golden/cases-trainer and golden/cases-trainer-eval config?

    build/reference-venv-transformers-5.N/bin/python golden/reference/transformers_watch.py 5.N [--out DIR] [-j J]

Run with the interpreter of the 5.N overlay (golden/reference/setup-transformers 5.N). Every 5.25 case's config is
recorded again with transformers_version "5.N" (the case renamed trainer[-eval]-v5.N-...) by trainer.py or
trainer_eval.py into DIR (default build/transformers-watch/5.N), unmodified transformers from PyPI, then compared with
the 5.25 recording: the whole trace but `reference`, `case` and config.transformers_version. Prints one line per
family, `like 5.25` or the first differing case with its first difference (path, both values), and every differing
case at the end. Exit 0: every family alike; 1: some differ or a recording failed; 2: bad usage.

Once 5.N is found alike, its recordings go into golden/cases-trainer*/ and 5.N into core/trainer_loop.cpp's table of
recorded releases (docs/releases.md, "A new transformers release").
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASE = "5.25"
FAMILIES = (("trainer", "cases-trainer", "trainer.py"), ("trainer-eval", "cases-trainer-eval", "trainer_eval.py"))

sys.path.insert(0, HERE)


def record_one(job):
    recorder, base_path, new_path, version = job
    doc = json.load(open(base_path))
    prefix = f"-v{BASE}-"
    case = doc["case"].replace(prefix, f"-v{version}-", 1)
    new = {"case": case, "family": doc["family"], "config": dict(doc["config"], transformers_version=version)}
    with open(new_path, "w") as f:
        json.dump(new, f, indent=1)
    r = subprocess.run([sys.executable, os.path.join(HERE, recorder), new_path, "--write"], capture_output=True,
                       text=True)
    return base_path, new_path, r.returncode, r.stderr[-2000:]


def main():
    ap = argparse.ArgumentParser(prog="golden/reference/transformers_watch.py")
    ap.add_argument("version", help="the transformers release X.Y to watch (5.N)")
    ap.add_argument("--out", help="where the recordings go (default build/transformers-watch/<version>)")
    ap.add_argument("-j", type=int, default=2, help="cases recorded at once (default 2)")
    ap.add_argument("--cases", default="*", help="a shell pattern over the 5.25 case names' tails (default: all)")
    a = ap.parse_args()
    if not re.fullmatch(r"5\.[0-9]+", a.version) or a.version == BASE:
        print(f"transformers_watch: the version must be a 5.N release other than {BASE}, got {a.version!r}",
              file=sys.stderr)
        return 2
    import transformers
    installed = ".".join(transformers.__version__.split(".")[:2])
    if installed != a.version:
        print(f"transformers_watch: this interpreter runs transformers {transformers.__version__}; use "
              f"build/reference-venv-transformers-{a.version}/bin/python (golden/reference/setup-transformers "
              f"{a.version})", file=sys.stderr)
        return 2
    from refresh import compact, first_difference
    from release_watch import comparable
    out = a.out or os.path.join(ROOT, "build", "transformers-watch", a.version)
    os.makedirs(out, exist_ok=True)
    jobs = []
    for family, folder, recorder in FAMILIES:
        for base_path in sorted(glob.glob(os.path.join(ROOT, "golden", folder, f"{family}-v{BASE}-{a.cases}.json"))):
            name = os.path.basename(base_path).replace(f"-v{BASE}-", f"-v{a.version}-", 1)
            jobs.append((recorder, base_path, os.path.join(out, name), a.version))
    if not jobs:
        print("transformers_watch: no 5.25 case matches", file=sys.stderr)
        return 2
    print(f"transformers watch: transformers {transformers.__version__} against {BASE}, {len(jobs)} configs",
          flush=True)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as pool:
        for base_path, new_path, rc, err in pool.map(record_one, jobs):
            results[base_path] = (new_path, rc, err)
    status = 0
    differing = []
    for family, folder, _ in FAMILIES:
        cases = [(b, results[b]) for _, b, _, _ in jobs if os.path.basename(b).startswith(f"{family}-v")]
        if not cases:
            continue
        failed = [(b, err) for b, (_, rc, err) in cases if rc != 0]
        diffs = []
        for b, (new_path, rc, _) in cases:
            if rc != 0:
                continue
            d = first_difference(comparable(json.load(open(b)), "transformers_version"),
                                 comparable(json.load(open(new_path)), "transformers_version"))
            if d is not None:
                diffs.append((os.path.basename(new_path), d))
        differing += diffs
        line = f"  {family:<13} {len(cases):4d} cases: "
        if not diffs and not failed:
            line += f"like {BASE}"
        else:
            status = 1
            if diffs:
                case, (where, old, new) = diffs[0]
                line += f"{len(diffs)} differ from {BASE}; first {case} at {where}: {compact(old)} -> {compact(new)}"
            if failed:
                line += f"; {len(failed)} failed to record (first {os.path.basename(failed[0][0])})"
                sys.stderr.write(failed[0][1])
        print(line)
    if differing:
        print(f"\n{len(differing)} differing cases, each with its first difference:")
        for case, (where, old, new) in differing:
            print(f"  {case}: {where}: {compact(old)} -> {compact(new)}")
    print(f"recordings: {out}")
    return status


if __name__ == "__main__":
    sys.exit(main())
