"""ctest recorder_record (label recorder): accelerate_sim.record on real gloo groups of 1-4 processes (Accelerate 1.15.0
on Debian's torch 1.13, tests/recorder/launch.py), map-style and iterable (key=), worker processes, a custom batch
sampler, a resume appending to the same recording, and two planted mistakes. Every recorded file is checked against
what the training loop itself received (tests/recorder/record_worker.py reads the ids from the batch contents),
and the batches and torch's generator are checked to be the same with and without record().

    record_test.py loaders|resume [KEEP_DIR]   (KEEP_DIR: keep the recordings there, e.g. for `accel-sim check
                                                --recorded`; ctest runs the two groups as two tests)
"""
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import launch  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL {what}")
    return cond


def run(scenario, nproc, out, *extra, expect_codes=None):
    t = time.time()
    results = launch(nproc, [os.path.join(HERE, "record_worker.py"), scenario, out, *extra], timeout=100)
    codes = [c for c, _, _ in results]
    want = expect_codes or [0] * nproc
    if not check(codes == want, f"{scenario} {' '.join(extra)}: exit codes {codes}, expected {want}"):
        for r, (c, o, e) in enumerate(results):
            print(f"--- rank {r} (exit {c})\n{o}{e[-3000:]}")
    print(f"  ran {scenario} {' '.join(extra)} on {nproc} processes ({time.time() - t:.1f} s)")


def load(path):
    with open(path) as f:
        return json.load(f)


def compare_rank(scenario, rec, got, r, phases):
    """The rank file against what the loop received in each phase (the passes, in order)."""
    c = rec["config"]
    check(rec["family"] == "recorded" and rec["error"] is None, f"{scenario} rank {r}: family/error")
    check(rec["reference"]["recorder"] == "accelerate_sim.record" and rec["reference"]["accelerate_version"] == "1.15.0",
          f"{scenario} rank {r}: reference {rec['reference']}")
    ranks = rec["ranks"]
    if not check(len(ranks) == 1 and ranks[0]["rank"] == r, f"{scenario} rank {r}: ranks {[x['rank'] for x in ranks]}"):
        return
    first = got[phases[0]]
    check(ranks[0]["len"] == first["len"] and ranks[0]["loader_class"] == first["loader_class"],
          f"{scenario} rank {r}: len/loader_class {ranks[0]['len']} {ranks[0]['loader_class']} vs loop "
          f"{first['len']} {first['loader_class']}")
    seen = [e for ph in phases for e in got[ph]["epochs"]]
    recorded = ranks[0]["epochs"]
    if not check(len(recorded) == len(seen), f"{scenario} rank {r}: {len(recorded)} passes recorded, {len(seen)} run"):
        return
    segments = {}
    for k, (x, y) in enumerate(zip(recorded, seen)):
        where = f"{scenario} rank {r} pass {k}"
        for field in ("epoch", "start_step", "batches", "end_of_dataloader", "remainder", "complete"):
            check(x[field] == y[field], f"{where}: {field} recorded {x[field]}, received {y[field]}")
        check(x["segment"] == segments.get(x["epoch"], 0), f"{where}: segment {x['segment']}")
        segments[x["epoch"]] = segments.get(x["epoch"], 0) + 1
    return c


def accel_sim(*args):
    """accel-sim's exit code and output (the executable the test was given: ACCEL_SIM_EXE)."""
    import subprocess
    run_ = subprocess.run([os.environ["ACCEL_SIM_EXE"], *args], capture_output=True, text=True)
    return run_.returncode, run_.stdout + run_.stderr


def judged(name, directory, requirements, want_code, want_text=""):
    """check --recorded over a real recording: the verdict (exit code) and its evidence."""
    code, out = accel_sim("check", "--recorded", directory, "--require", requirements)
    check(code == want_code and want_text in out,
          f"{name}: check --recorded --require {requirements}: exit {code} (wanted {want_code}), output {out[:400]!r}")


def diffed(name, directory, want_code, want_text=""):
    code, out = accel_sim("diff", "--recorded", directory)
    check(code == want_code and want_text in out,
          f"{name}: diff --recorded: exit {code} (wanted {want_code}), output {out[:400]!r}")


# What check --recorded / diff --recorded must say of each recording (the planted mistakes fail with their evidence).
VERDICTS = {
    # 23 samples, batch 3, 2 ranks: even_batches pads 1 sample; every sample is seen, ranks in lock-step, and the
    # order is the simulation's (set_seed in the worker: torch_initial_seed).
    "map2-n2": lambda d: (judged("map2-n2", d, "no-drops,lockstep,len-consistent", 0),
                          judged("map2-n2", d, "no-duplicates", 1, "samples seen more than once"),
                          diffed("map2-n2", d, 0, "identical")),
    "map2-n1": lambda d: (judged("map2-n1", d, "full-coverage,lockstep", 0), diffed("map2-n1", d, 0, "identical")),
    "custom_sampler-n2": lambda d: (judged("custom_sampler-n2", d, "lockstep", 0),
                                    diffed("custom_sampler-n2", d, 3, "not compared")),
    # Each rank shuffles with its own seed and nothing is synchronised: samples twice and never.
    "seeded_differently-n2": lambda d: (judged("seeded_differently-n2", d, "full-coverage", 1, "seen more than once"),
                                        judged("seeded_differently-n2", d, "no-drops", 1, "never seen")),
    # even_batches=False over 21 samples: rank 0 has a batch more.
    "uneven-n2": lambda d: (judged("uneven-n2", d, "full-coverage", 0),
                            judged("uneven-n2", d, "lockstep", 1, "rank 1 yields 5 batches, others up to 6")),
    # The resumed seedable run trains every sample of every epoch once per rank pair (before and after the crash).
    "resume-n2": lambda d: (judged("resume-n2", d, "no-drops,lockstep", 0),),
}


def main():
    group = sys.argv[1] if len(sys.argv) > 1 else ""
    if group not in ("loaders", "resume"):
        print("usage: record_test.py loaders|resume [KEEP_DIR]")
        return 2
    keep = sys.argv[2] if len(sys.argv) > 2 else None
    root = tempfile.mkdtemp(prefix="accel-sim-recorder-")
    try:
        if group == "loaders":
            cases = [("map2", 2), ("map4_workers", 4), ("iterable_dispatch", 3), ("iterable_shard", 2),
                     ("custom_sampler", 2), ("map2", 1)]
        else:  # the planted mistakes (for check --recorded), and the resume below
            cases = [("seeded_differently", 2), ("uneven", 2)]
        for scenario, n in cases:
            name = f"{scenario}-n{n}"
            out = os.path.join(root, name)
            os.makedirs(out)
            run(scenario, n, out)
            files = sorted(os.listdir(os.path.join(out, "recording")))
            check(files == [f"rank-{r}.json" for r in range(n)], f"{name}: files {files}")
            configs = []
            for r in range(n):
                got = {"first": load(os.path.join(out, f"received-first-{r}.json"))}
                rec = load(os.path.join(out, "recording", f"rank-{r}.json"))
                configs.append(compare_rank(name, rec, got, r, ["first"]))
                if scenario.startswith("iterable"):
                    err = got["first"].get("no_key_error") or ""
                    check("key=" in err, f"{name}: record() of an iterable loader without key: {err!r}")
                check(rec["case"] == "recording", f"{name}: case {rec['case']}")
            c = configs[0]
            check(all(x == c for x in configs), f"{name}: the ranks' configs differ")
            if name in VERDICTS:
                VERDICTS[name](os.path.join(out, "recording"))
            check(c["num_processes"] == n, f"{name}: num_processes {c['num_processes']}")
            if scenario == "custom_sampler":
                check(c["modelled"] is False and len(c["not_modelled"]) == 1 and "Buckets" in c["not_modelled"][0],
                      f"{name}: not_modelled {c['not_modelled']}")
            elif scenario == "map2":
                check(c["modelled"] and c["dataset_kind"] == "map" and c["dataset_len"] == 23 and c["batch_size"] == 3
                      and c["shuffle"] is True and c["accelerator"]["even_batches"] is True,
                      f"{name}: config {c}")
            elif scenario == "map4_workers":
                check(c["accelerator"]["even_batches"] is False, f"{name}: even_batches {c['accelerator']}")
            elif scenario == "iterable_dispatch":
                check(c["dataset_kind"] == "iterable" and c["accelerator"]["dispatch_batches"] is None
                      and configs[0] is not None, f"{name}: config {c}")
            if keep:
                shutil.copytree(os.path.join(out, "recording"), os.path.join(keep, name), dirs_exist_ok=True)

        # record() changes nothing: the same job without it receives the same batches and ends with the same
        # torch generator state (map2: a synchronised RandomSampler; map4_workers: workers prefetching).
        for scenario, n in (("map2", 2), ("map4_workers", 4)) if group == "loaders" else ():
            out = os.path.join(root, f"{scenario}-plain")
            os.makedirs(out)
            run(scenario, n, out, "--plain")
            for r in range(n):
                plain = load(os.path.join(out, f"received-first-{r}.json"))
                recorded = load(os.path.join(root, f"{scenario}-n{n}", f"received-first-{r}.json"))
                check(plain["epochs"] == recorded["epochs"], f"{scenario} rank {r}: batches differ with record()")
                check(plain["rng_after"] == recorded["rng_after"], f"{scenario} rank {r}: torch's generator differs")

        # A resume: the first job crashes in epoch 1 after 2 batches (the pass is written at exit, complete false);
        # the second job, fresh processes over the same directory, skips 2 batches of epoch 1 and runs epoch 2.
        if group != "resume":
            return finish()
        out = os.path.join(root, "resume-n2")
        os.makedirs(out)
        run("resume", 2, out, "--phase", "first", expect_codes=[1, 1])
        run("resume", 2, out, "--phase", "resume")
        for r in range(2):
            got = {ph: load(os.path.join(out, f"received-{ph}-{r}.json")) for ph in ("first", "resume")}
            rec = load(os.path.join(out, "recording", f"rank-{r}.json"))
            compare_rank("resume-n2", rec, got, r, ["first", "resume"])
            shape = [(e["epoch"], e["segment"], e["start_step"], e["complete"], len(e["batches"]))
                     for e in rec["ranks"][0]["epochs"]]
            check(shape == [(0, 0, 0, True, 6), (1, 0, 0, False, 2), (1, 1, 2, True, 4), (2, 0, 0, True, 6)],
                  f"resume-n2 rank {r}: passes {shape}")
        VERDICTS["resume-n2"](os.path.join(out, "recording"))
        if keep:
            shutil.copytree(os.path.join(out, "recording"), os.path.join(keep, "resume-n2"), dirs_exist_ok=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return finish()


def finish():
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("recorder: every recording is what the loops received")
    return 0


if __name__ == "__main__":
    sys.exit(main())
