"""Re-records golden cases with the real Accelerate and compares them with the committed ones.

    refresh.py [CASE ...] [--family F] [--dir DIR] [--write] [--keep DIR] [-j N] [--hang-timeout S] [--quiet]

CASE is a case name, a path to a case file, or a shell pattern over case names (`map-n3-*`); none means every case
in the cases folder: --dir, else golden/cases on torch 1.x and golden/cases-torch2 on torch >= 2 (each set was
recorded on that torch). Each case is recorded into a temporary folder (kept with --keep DIR) and compared with the committed
file, ignoring the `reference` object (provenance). One line per case: `identical`, or `changed` with the first
differing path and both values, or `failed` when recording itself failed. Nothing is overwritten unless --write is
given, and then only the changed files. Exit codes: 0 every case identical, 1 some changed or failed, 2 bad usage.

Each case runs in a process forked from this one (where Accelerate and torch are imported but nothing has run), so
no state of one case (Accelerate's shared state, torch's global generator) leaks into the next.
"""
import argparse
import fnmatch
import glob
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import goldjson  # noqa: E402
import record  # noqa: E402

GOLDEN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_cases_dir():
    torch_major = int(record.torch.__version__.split(".")[0])
    return os.path.join(GOLDEN_DIR, "cases-torch2" if torch_major >= 2 else "cases")


def first_difference(expected, actual, path=""):
    """(path, expected, actual) of the first difference, ignoring the top-level `reference`; None when equal."""
    def child(key):
        return key if not path else f"{path}.{key}"

    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    if not (number(expected) and number(actual)) and type(expected) is not type(actual):
        return path, expected, actual
    if isinstance(expected, dict):
        for k, v in expected.items():
            if not path and k == "reference":
                continue
            if k not in actual:
                return child(k), v, "(absent)"
            d = first_difference(v, actual[k], child(k))
            if d:
                return d
        for k, v in actual.items():
            if not path and k == "reference":
                continue
            if k not in expected:
                return child(k), "(absent)", v
        if list(k for k in expected if path or k != "reference") != list(k for k in actual if path or k != "reference"):
            return (path or "(top level)") + " (key order)", list(expected), list(actual)
        return None
    if isinstance(expected, list):
        for i, (x, y) in enumerate(zip(expected, actual)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(expected) != len(actual):
            n = min(len(expected), len(actual))
            return (f"{path}[{n}]", expected[n] if n < len(expected) else "(absent)",
                    actual[n] if n < len(actual) else "(absent)")
        return None
    return None if expected == actual else (path, expected, actual)


def compact(v):
    s = json.dumps(v, separators=(",", ":")) if not isinstance(v, str) or v != "(absent)" else v
    return s if len(s) <= 200 else s[:197] + "..."


def select_cases(patterns, family, cases_dir):
    every = sorted(glob.glob(os.path.join(cases_dir, "*.json")))
    names = {os.path.basename(p)[:-5]: p for p in every}
    chosen = []
    if not patterns:
        chosen = list(every)
    for pat in patterns:
        if os.path.isfile(pat):
            chosen.append(os.path.abspath(pat))
            continue
        base = os.path.basename(pat)
        base = base[:-5] if base.endswith(".json") else base
        hits = [names[n] for n in names if fnmatch.fnmatchcase(n, base)]
        if not hits:
            raise SystemExit(f"refresh: no case matches {pat!r}")
        chosen.extend(hits)
    seen, out = set(), []
    for p in chosen:
        if p in seen:
            continue
        seen.add(p)
        if family:
            with open(p) as f:
                if json.load(f).get("family") != family:
                    continue
        out.append(p)
    return out


def start_case(path, out_path, hang_timeout):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            # torch's and Accelerate's warnings (and any traceback) go to <case>.stderr beside the recorded trace.
            log = os.open(out_path[:-5] + ".stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(log, 2)
            os.close(log)
            with open(path) as f:
                doc = json.load(f)
            trace = record.record(doc, hang_timeout=hang_timeout)
            with open(out_path, "w") as f:
                f.write(goldjson.dumps(trace))
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    return pid


def main(argv=None):
    p = argparse.ArgumentParser(prog="golden/refresh", description=__doc__.split("\n\n")[0])
    p.add_argument("cases", nargs="*", help="case names, case files or name patterns (default: every case)")
    p.add_argument("--family", help="only cases of this family")
    p.add_argument("--dir", help="the cases folder (default: golden/cases on torch 1.x, golden/cases-torch2 on torch 2)")
    p.add_argument("--write", action="store_true", help="overwrite the committed files of the changed cases")
    p.add_argument("--keep", metavar="DIR", help="record into DIR (kept) instead of a temporary folder")
    p.add_argument("-j", "--jobs", type=int, default=1, help="cases recorded at once (default 1)")
    p.add_argument("--hang-timeout", type=float, default=record.DEFAULT_HANG_TIMEOUT,
                   help="seconds before a blocked rank of a multi-process case is killed")
    p.add_argument("--quiet", action="store_true", help="print only the changed/failed cases and the totals")
    args = p.parse_args(argv)

    cases = select_cases(args.cases, args.family, args.dir or default_cases_dir())
    if not cases:
        print("refresh: no cases selected", file=sys.stderr)
        return 2
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        out_dir = args.keep
    else:
        out_dir = tempfile.mkdtemp(prefix="accel-sim-refresh-")
    case_timeout = 2 * args.hang_timeout + 120
    counts = {"identical": 0, "changed": 0, "failed": 0}
    changed_paths = []
    started = time.monotonic()
    try:
        pending = list(cases)
        running = {}  # pid -> (case path, out path, start time)
        results = {}
        while pending or running:
            while pending and len(running) < max(1, args.jobs):
                path = pending.pop(0)
                out_path = os.path.join(out_dir, os.path.basename(path))
                if os.path.exists(out_path):
                    os.remove(out_path)
                running[start_case(path, out_path, args.hang_timeout)] = (path, out_path, time.monotonic())
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                now = time.monotonic()
                for rpid, (path, out_path, t0) in list(running.items()):
                    if now - t0 > case_timeout:
                        os.kill(rpid, signal.SIGKILL)
                time.sleep(0.02)
                continue
            if pid not in running:
                continue
            path, out_path, _ = running.pop(pid)
            results[path] = (out_path, status)
            name = os.path.basename(path)[:-5]
            with open(path) as f:
                expected = json.load(f)
            if status != 0 or not os.path.exists(out_path):
                counts["failed"] += 1
                how = f"status {os.WEXITSTATUS(status)}" if os.WIFEXITED(status) else f"signal {os.WTERMSIG(status)}"
                print(f"{name}: failed (recording ended with {how})", flush=True)
                try:
                    with open(out_path[:-5] + ".stderr") as f:
                        tail = f.read().strip().splitlines()[-15:]
                    print("\n".join("    " + line for line in tail), flush=True)
                except OSError:
                    pass
                continue
            with open(out_path) as f:
                actual = json.load(f)
            d = first_difference(expected, actual)
            if d is None:
                counts["identical"] += 1
                if not args.quiet:
                    print(f"{name}: identical", flush=True)
            else:
                counts["changed"] += 1
                changed_paths.append((path, out_path))
                print(f"{name}: changed at {d[0]}: committed {compact(d[1])}, recorded {compact(d[2])}", flush=True)
        if args.write:
            for path, out_path in changed_paths:
                shutil.copyfile(out_path, path)
                print(f"wrote {os.path.relpath(path)}")
        elapsed = time.monotonic() - started
        print(f"refresh: {counts['identical']} identical, {counts['changed']} changed, {counts['failed']} failed "
              f"of {len(cases)} cases ({elapsed:.0f} s; recorded traces in {out_dir}"
              f"{'' if args.keep else ', removed'})")
    finally:
        if not args.keep:
            shutil.rmtree(out_dir, ignore_errors=True)
    return 0 if counts["changed"] == 0 and counts["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
