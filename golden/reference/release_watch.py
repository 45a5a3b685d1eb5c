"""The release watch's comparison (golden/release-watch): a new Accelerate release's recordings of every
golden/cases-torch2 config against the newest modelled release's, family by family.

    python3 golden/reference/release_watch.py NEW_DIR [--base X.Y.Z] [--cases-torch2 DIR] [--releases DIR]

NEW_DIR holds rel-<case>.json (setup-releases-torch2 --record --out writes them to OUT/<X.Y.Z>/). The base release's
recording of <case> is golden/cases-releases/<base>/rel-<case>.json where that folder has it, else (1.15.0, the
release cases-torch2 was recorded with) golden/cases-torch2/<case>.json. Compared: the whole trace but `reference`,
`case` and config.accelerate_version. Prints one line per family: `like <base>` or the first differing case with its
first difference (path, both values), then the count; every differing case with its first difference at the end.
Exit 0 when every family behaves like the base, 1 when some differ, 2 on bad usage or a missing base recording.
"""
import argparse
import collections
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refresh import compact, first_difference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TORCH2_RELEASE = "1.15.0"


def comparable(doc, version_key="accelerate_version"):
    """The trace as two recordings of one config on two releases compare: without provenance, the case name and the
    config's release (`version_key`)."""
    doc = dict(doc)
    doc.pop("reference", None)
    doc.pop("case", None)
    doc["config"] = {k: v for k, v in doc.get("config", {}).items() if k != version_key}
    return doc


def base_file(case, base, releases, cases_torch2):
    """(path, release) of the base's recording; a family the base's folder does not hold (1.16.0 keeps no bss,
    randperm or scheduler case: their configs take no accelerate_version) is compared with 1.15.0's."""
    path = os.path.join(releases, base, f"rel-{case}.json")
    if os.path.isfile(path):
        return path, base
    path = os.path.join(cases_torch2, f"{case}.json")
    if os.path.isfile(path):
        return path, TORCH2_RELEASE
    return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("new_dir")
    ap.add_argument("--base", default="1.16.0", help="the newest modelled release (default 1.16.0)")
    ap.add_argument("--cases-torch2", default=os.path.join(ROOT, "golden", "cases-torch2"))
    ap.add_argument("--releases", default=os.path.join(ROOT, "golden", "cases-releases"))
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.new_dir, "rel-*.json")))
    if not files:
        print(f"release_watch: no rel-*.json in {a.new_dir}", file=sys.stderr)
        return 2
    families = collections.OrderedDict()
    missing = []
    for path in files:
        case = os.path.basename(path)[len("rel-"):-len(".json")]
        family = case.split("-")[0]
        base, release = base_file(case, a.base, a.releases, a.cases_torch2)
        if base is None:
            missing.append(case)
            continue
        d = first_difference(comparable(json.load(open(base))), comparable(json.load(open(path))))
        families.setdefault(family, []).append((case, d, release))
    new_release = json.load(open(files[0])).get("config", {}).get("accelerate_version", os.path.basename(a.new_dir))
    print(f"release watch: Accelerate {new_release} against {a.base}, {len(files)} recordings")
    differing = []
    for family, cases in families.items():
        diffs = [(c, d) for c, d, _ in cases if d is not None]
        differing += diffs
        against = sorted({r for _, _, r in cases})
        base = " and ".join(against)
        if not diffs:
            print(f"  {family:<9} {len(cases):4d} cases: like {base}")
        else:
            case, (where, old, new) = diffs[0]
            print(f"  {family:<9} {len(cases):4d} cases: {len(diffs)} differ from {base}; first {case} at {where}: "
                  f"{compact(old)} -> {compact(new)}")
    for case in missing:
        print(f"  no recording of {case} to compare with (golden/cases-releases/{a.base}/ or cases-torch2)")
    if differing:
        print(f"\n{len(differing)} differing cases, each with its first difference:")
        for case, (where, old, new) in differing:
            print(f"  {case}: {where}: {compact(old)} -> {compact(new)}")
    if missing:
        return 2
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
