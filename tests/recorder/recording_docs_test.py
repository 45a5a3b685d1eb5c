"""ctest recorder_recording_docs (label recorder, issue 50): docs/recording.md's recording flow run verbatim, as a
user runs it, on 2 local processes (Accelerate 1.15.0 on Debian's torch 1.13 from build/reference-venv).

Every block marked `<!-- tested: recording -->` runs in one scratch folder, in page order: a ```python block is
written to the file its first line names (`# train.py`), a ```console block's `$ ` commands run with bash and must
print what the page shows (tests/docs/docs_examples_test.py's rules: "..." lines elide, "[exit N]" is the code).
`python` is the reference venv's, `accel-sim` the executable under test, and the package's sources (with the torch
1.13 import shims loaded by a sitecustomize, the one thing the page's commands do not show) are on PYTHONPATH.

Then what the page promises beyond its output:
- the same job run a second time into the same folder gives the same `check --recorded` / `diff --recorded`
  verdicts as once (a new run replaces the old one), and a stale rank file of an older, larger run goes;
- `python -m accelerate_sim.plan` of the script leaves no recording behind;
- `accelerate launch --cpu --num_processes 2` (one process, whatever it is asked) makes the recorder warn;
- the launcher's exit code is a failing rank's, and it stops the other ranks.

    run_with_package.sh ROOT ACCEL_SIM recording_docs_test.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ["ACCEL_SIM_SOURCE_DIR"]
sys.path.insert(0, os.path.join(ROOT, "tests", "docs"))
from docs_examples_test import blocks, console_steps, lines_match  # noqa: E402

MARK = "<!-- tested: recording -->"
failures = []


def check(cond, what, detail=""):
    if cond:
        print(f"ok   {what}")
    else:
        failures.append(what)
        print(f"FAIL {what}\n{detail}")
    return cond


def scratch():
    work = tempfile.mkdtemp(prefix="accel-sim-recording-")
    bin_dir = os.path.join(work, ".bin")
    os.mkdir(bin_dir)
    os.symlink(os.path.abspath(os.environ["ACCEL_SIM_EXE"]), os.path.join(bin_dir, "accel-sim"))
    # A script, not a link: a venv's python finds its venv from the path it is started by.
    with open(os.path.join(bin_dir, "python"), "w") as f:
        f.write(f'#!/bin/sh\nexec "{os.path.abspath(os.environ["ACCEL_SIM_PYTHON"])}" "$@"\n')
    os.chmod(os.path.join(bin_dir, "python"), 0o755)
    site = os.path.join(work, ".site")
    os.mkdir(site)
    with open(os.path.join(site, "sitecustomize.py"), "w") as f:
        # What docs/python.md tells Debian torch 1.13 users to do before importing accelerate.
        f.write("import torch\nif torch.__version__.startswith('1.13'):\n    import shims  # noqa: F401\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ACCELERATE_") and k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                               "MASTER_PORT")}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = site + os.pathsep + env.get("PYTHONPATH", "")
    env["HF_HOME"] = os.path.join(work, ".hf-home")
    return work, env


def sh(cmd, work, env, timeout=150):
    run = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=timeout)
    lines = run.stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return run.returncode, lines


def run_page(work, env):
    """Runs the page's marked blocks; returns the console commands with their documented output."""
    path = os.path.join(ROOT, "docs", "recording.md")
    found = blocks(path, MARK)
    check(len(found) >= 4, f"docs/recording.md has the marked blocks of the flow ({len(found)})")
    commands = []
    for line_no, lang, body in found:
        where = f"docs/recording.md:{line_no}"
        if lang == "python":
            name = body[0].lstrip("# ").split()[0] if body and body[0].startswith("# ") else None
            if not check(name is not None and name.endswith(".py"), f"{where}: the block's first line names its file"):
                continue
            with open(os.path.join(work, name), "w") as f:
                f.write("\n".join(body) + "\n")
            continue
        if not check(lang == "console", f"{where}: a marked block is python or console, got {lang!r}"):
            continue
        for cmd, expected, code in console_steps(body):
            t = time.time()
            got_code, actual = sh(cmd, work, env)
            first = cmd.split("\n")[0]
            ok = lines_match(expected, actual) and got_code == code
            check(ok, f"{where}: `{first}` ({time.time() - t:.1f} s)",
                  "    documented:\n" + "\n".join("      " + x for x in expected + [f"[exit {code}]"]) +
                  "\n    printed:\n" + "\n".join("      " + x for x in actual + [f"[exit {got_code}]"]))
            commands.append((cmd, expected, code))
    return commands


def main():
    work, env = scratch()
    try:
        commands = run_page(work, env)
        run1 = os.path.join(work, "run1")
        check(sorted(os.listdir(run1)) == ["rank-0.json", "rank-1.json"] if os.path.isdir(run1) else False,
              "run1 holds rank-0.json and rank-1.json")

        # The same job again into the same folder, after an older 4-rank run's stray file: one run's verdicts.
        with open(os.path.join(run1, "rank-0.json")) as f:
            stale = json.load(f)
        stale["config"]["num_processes"] = 4
        stale["ranks"][0]["rank"] = 3
        with open(os.path.join(run1, "rank-3.json"), "w") as f:
            json.dump(stale, f)
        code, out = sh("python -m accelerate_sim.launch -n 2 train.py", work, env)
        check(code == 0 and any("held an earlier run" in line and "replaces it" in line for line in out),
              "a second run into run1 says it replaces the earlier run", "\n".join(out[-20:]))
        check(sorted(os.listdir(run1)) == ["rank-0.json", "rank-1.json"], "the older run's rank-3.json is gone",
              str(os.listdir(run1)))
        for cmd, expected, want in commands:
            if "--recorded run1" in cmd:
                got, actual = sh(cmd, work, env)
                check(lines_match(expected, actual) and got == want, f"after a second run: `{cmd}` as documented",
                      "\n".join(actual))

        # plan of the same script: stopped before the first batch, nothing recorded.
        shutil.rmtree(run1)
        code, out = sh("python -m accelerate_sim.plan train.py --num-processes 2", work, env)
        check(code == 0, "python -m accelerate_sim.plan train.py exits 0", "\n".join(out[-20:]))
        check(not os.path.exists(os.path.join(run1, "rank-0.json")), "plan leaves no recording in run1",
              str(os.listdir(run1)) if os.path.isdir(run1) else "")

        # `accelerate launch --cpu --num_processes 2` starts one process: the recorder says so.
        # (`accelerate launch` is accelerate.commands.launch's main; its `accelerate` entry point also imports
        # huggingface_hub, which the reference venv lacks.)
        code, out = sh("python -m accelerate.commands.launch --cpu --num_processes 2 train.py", work, env)
        check(code == 0 and any("asked for 2 processes" in line and "accelerate_sim.launch -n 2" in line for line in out),
              "accelerate launch --cpu --num_processes 2: the recorder warns the world is 1", "\n".join(out[-20:]))
        with open(os.path.join(run1, "rank-0.json")) as f:
            check(json.load(f)["config"]["num_processes"] == 1, "... and records the one process it ran")

        # resume=: True appends whatever the pass, False replaces even a resume; the default decides by the pass.
        with open(os.path.join(work, "plain.py"), "w") as f:
            f.write("import sys\nfrom torch.utils.data import DataLoader\nimport accelerate_sim\n"
                    "resume = {'yes': True, 'no': False, 'auto': None}[sys.argv[1]]\n"
                    "start = int(sys.argv[2])\n"
                    "for b in accelerate_sim.record(DataLoader(range(6), batch_size=2), 'plain', resume=resume, "
                    "start_step=start):\n    pass\n")

        def segments():
            with open(os.path.join(work, "plain", "rank-0.json")) as f:
                return [(e["epoch"], e["segment"], e["start_step"]) for e in json.load(f)["ranks"][0]["epochs"]]

        for args, want in (("auto 0", [(0, 0, 0)]), ("auto 0", [(0, 0, 0)]), ("yes 0", [(0, 0, 0), (0, 1, 0)]),
                           ("auto 1", [(0, 0, 0), (0, 1, 0), (0, 2, 1)]), ("no 1", [(0, 0, 1)])):
            code, out = sh(f"python plain.py {args}", work, env)
            check(code == 0 and segments() == want, f"record resume={args}: passes {want}",
                  "\n".join(out) + f"\n{segments() if code == 0 else ''}")

        # The launcher: a failing rank's code, the others stopped (rank 1 would wait for ever).
        with open(os.path.join(work, "fail.py"), "w") as f:
            f.write("import os, sys, time\nif os.environ['RANK'] == '0':\n    sys.exit(3)\ntime.sleep(600)\n")
        t = time.time()
        code, out = sh("python -m accelerate_sim.launch -n 2 --grace 1 fail.py", work, env, timeout=60)
        check(code == 3 and time.time() - t < 30 and any("rank 0 exited with 3" in line for line in out),
              f"launch: rank 0 exits 3, the launch exits {code} and stops rank 1 ({time.time() - t:.1f} s)",
              "\n".join(out))
        code, out = sh("python -m accelerate_sim.launch -n 0 train.py", work, env)
        check(code == 2 and any("-n/--nproc" in line for line in out), "launch -n 0: exit 2 naming -n", "\n".join(out))
        code, out = sh("python -m accelerate_sim.launch -n 2 no_such.py", work, env)
        check(code == 2 and any("no_such.py: no such file" in line for line in out), "launch of a missing script: 2",
              "\n".join(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
