"""Chooses the torch-2 golden set (golden/cases-torch2) from golden/cases and writes each chosen case's input:

    python3 golden/reference/torch2_set.py          # then: golden/refresh --torch 2 --write

Every dispatch, bss_varying, randperm and scheduler case (where torch's collectives, its schedulers and its
randperm are exercised), every second iterable, seedable and skip case, and every fourth map case, by sorted name.
Loader configs get `"torch_version": "2.6"` (the simulator's name for torch >= 2.6); the other families have no
such field. A file is written only when the case is not in golden/cases-torch2 yet, as `case`, `family` and
`config` alone: refresh sees it differ from the recording and --write replaces it with the full trace.
"""
import glob
import json
import os

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVERY = {"accelerator": 1, "dispatch": 1, "bss_varying": 1, "randperm": 1, "scheduler": 1, "iterable": 2, "seedable": 2, "skip": 2,
         "map": 4}
LOADER_FAMILIES = ("accelerator", "map", "iterable", "seedable", "skip", "dispatch")


def main():
    out_dir = os.path.join(GOLDEN, "cases-torch2")
    os.makedirs(out_dir, exist_ok=True)
    seen = {}
    written = 0
    for path in sorted(glob.glob(os.path.join(GOLDEN, "cases", "*.json"))):
        with open(path) as f:
            case = json.load(f)
        family = case["family"]
        k = seen.get(family, 0)
        seen[family] = k + 1
        if k % EVERY[family]:
            continue
        target = os.path.join(out_dir, os.path.basename(path))
        if os.path.exists(target):
            continue
        config = dict(case["config"])
        if family in LOADER_FAMILIES or "torch_version" in config:
            config["torch_version"] = "2.6"
        with open(target, "w") as f:
            json.dump({"case": case["case"], "family": family, "config": config}, f, indent=2)
            f.write("\n")
        written += 1
    print(f"torch2_set: {written} case inputs written to {os.path.relpath(out_dir)}")


if __name__ == "__main__":
    main()
