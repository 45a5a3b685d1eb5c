#!/usr/bin/env python3
"""Issue 25: the examples of README.md and docs/*.md run as shown, and every link between the pages resolves.

Marker convention (explicit: an unmarked block is prose and is not run):

  <!-- tested -->            on the line right before a ```console block. Each line starting with "$ " is a command
                             (a line ending in "\\" continues it), run with bash; the lines after it, up to the next
                             "$ " line, are exactly what it prints (stdout and stderr together). Two forms only are
                             not literal: a line "..." stands for any number of lines (the docs elide long reports
                             with it), and a last line "[exit N]" is the exit code expected (0 when absent).
  <!-- tested: python -->    on the line right before a ```python block. The block runs as one script with --python;
                             every line holding "# prints: TEXT" gives, in order, one line the script prints, where
                             "..." inside TEXT stands for any characters (elided ids). Only with --python.
  <!-- tested: pytest -->    on the line right before a ```python block. The block is a test file, run with
                             `--python -m pytest --strict-markers` (the accel_sim plugin from the installed wheel's
                             pytest11 entry point, not named on the command line); it must exit 0 with every one of
                             its `def test_` functions passed. Only with --python.

Commands run in a scratch folder holding build/accel-sim (a link to the executable under test) and golden/ (a link
to the checkout's), with no ACCELERATE_* variable and an empty HF_HOME, so they run exactly as printed and a user's
own Accelerate config cannot leak in. Links: every [text](target) that is not a URL must name an existing file of the
checkout and, with #anchor into a .md page, one of its headings; every docs/*.md page must be linked from README.md.

Exit 0 when everything matches, 1 on any difference (with a diff), 2 on bad usage, 77 when --python is asked for but
that Python (or --accelerate-venv's Accelerate) is missing (ctest: Skipped).
"""
import argparse
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARK_CONSOLE = "<!-- tested -->"
MARK_PYTHON = "<!-- tested: python -->"
MARK_PYTEST = "<!-- tested: pytest -->"
EXIT_LINE = re.compile(r"^\[exit (\d+)\]$")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def pages(root):
    return [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def blocks(path, marker):
    """(line number, fence language, lines) of every fenced block right after `marker`."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    for i, line in enumerate(lines):
        if line.strip() != marker:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            found.append((i + 1, None, []))  # a marker not followed by a fence: reported as an error
            continue
        lang = lines[i + 1][3:].strip()
        body = []
        j = i + 2
        while j < len(lines) and not lines[j].startswith("```"):
            body.append(lines[j])
            j += 1
        found.append((i + 2, lang, body))
    return found


def console_steps(body):
    """[(command, expected lines, expected exit code)] of a console block."""
    steps = []
    i = 0
    while i < len(body):
        if not body[i].startswith("$ "):
            raise ValueError(f"line {i + 1} of the block is output before any '$ ' command: {body[i]!r}")
        cmd = body[i][2:]
        while cmd.endswith("\\") and i + 1 < len(body):
            i += 1
            cmd = cmd + "\n" + body[i]
        i += 1
        out = []
        while i < len(body) and not body[i].startswith("$ "):
            out.append(body[i])
            i += 1
        code = 0
        if out and EXIT_LINE.match(out[-1]):
            code = int(EXIT_LINE.match(out[-1]).group(1))
            out = out[:-1]
        steps.append((cmd, out, code))
    return steps


def lines_match(expected, actual):
    """Whether `actual` equals `expected`, where an expected line "..." matches any run of lines."""
    memo = {}

    def go(e, a):
        if (e, a) in memo:
            return memo[(e, a)]
        if e == len(expected):
            r = a == len(actual)
        elif expected[e] == "...":
            r = any(go(e + 1, k) for k in range(a, len(actual) + 1))
        else:
            r = a < len(actual) and expected[e] == actual[a] and go(e + 1, a + 1)
        memo[(e, a)] = r
        return r

    return go(0, 0)


def text_match(expected, actual):
    """One line, where "..." inside the expected text matches any characters."""
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def scratch(root, accel_sim):
    work = tempfile.mkdtemp(prefix="accel-sim-docs-")
    os.mkdir(os.path.join(work, "build"))
    os.symlink(os.path.abspath(accel_sim), os.path.join(work, "build", "accel-sim"))
    os.symlink(os.path.join(root, "golden"), os.path.join(work, "golden"))
    os.mkdir(os.path.join(work, "hf-home"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCELERATE_")}
    env["HF_HOME"] = os.path.join(work, "hf-home")
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "ACCEL_SIM_ROOT"):
        env.pop(k, None)
    return work, env


def report(failures, where, expected, actual, what):
    failures.append(where)
    print(f"FAIL {where}: {what}")
    for line in difflib.unified_diff(expected, actual, "documented", "printed", lineterm="", n=2):
        print("    " + line)


def marked_blocks(root, mark, lang, failures):
    """(where, body) of every block marked `mark` in the pages; a mark on a block of another language fails."""
    for path in pages(root):
        rel = os.path.relpath(path, root)
        for line_no, block_lang, body in blocks(path, mark):
            where = f"{rel}:{line_no}"
            if block_lang != lang:
                report(failures, where, [], [], f"{mark} must precede a ```{lang} block, got {block_lang!r}")
                continue
            yield where, body


def check_console(root, accel_sim, failures):
    count = 0
    work, env = scratch(root, accel_sim)
    try:
        for where, body in marked_blocks(root, MARK_CONSOLE, "console", failures):
            try:
                steps = console_steps(body)
            except ValueError as e:
                report(failures, where, [], [], str(e))
                continue
            for cmd, expected, code in steps:
                count += 1
                run = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, timeout=120)
                actual = run.stdout.split("\n")
                if actual and actual[-1] == "":
                    actual.pop()
                first = cmd.split("\n")[0]
                if not lines_match(expected, actual):
                    report(failures, where, expected, actual, f"`{first}` prints something else")
                elif run.returncode != code:
                    report(failures, where, [], [], f"`{first}` exits {run.returncode}, documented {code}")
                else:
                    print(f"ok   {where}: {first}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return count


def python_blocks(root, accel_sim, pythonpath, mark, failures):
    """(scratch folder, environment, where, body) of every ```python block marked `mark`, run in one scratch folder
    (removed afterwards) with PYTHONPATH set when given."""
    work, env = scratch(root, accel_sim)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    try:
        for where, body in marked_blocks(root, mark, "python", failures):
            yield work, env, where, body
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_python(root, accel_sim, python, pythonpath, failures):
    count = 0
    for work, env, where, body in python_blocks(root, accel_sim, pythonpath, MARK_PYTHON, failures):
        count += 1
        expected = [line.split("# prints: ", 1)[1] for line in body if "# prints: " in line]
        script = os.path.join(work, "example.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write("\n".join(body) + "\n")
        run = subprocess.run([python, script], cwd=work, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, timeout=300)
        actual = run.stdout.rstrip("\n").split("\n") if run.stdout else []
        ok = len(expected) == len(actual) and all(text_match(e, a) for e, a in zip(expected, actual))
        if run.returncode != 0:
            report(failures, where, [], run.stderr.splitlines()[-5:], f"the script exits {run.returncode}")
        elif not ok:
            report(failures, where, expected, actual, "the script prints something else")
        else:
            print(f"ok   {where}: python block ({len(expected)} printed lines)")
    return count


def check_pytest(root, accel_sim, python, pythonpath, failures):
    count = 0
    for work, env, where, body in python_blocks(root, accel_sim, pythonpath, MARK_PYTEST, failures):
        count += 1
        tests = sum(1 for line in body if re.match(r"^def test_\w+\(", line))
        with open(os.path.join(work, "test_example.py"), "w", encoding="utf-8") as f:
            f.write("\n".join(body) + "\n")
        run = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--strict-markers",
                              "test_example.py"], cwd=work, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=300)
        lines = run.stdout.rstrip("\n").split("\n")
        summary = lines[-1] if lines else ""
        if run.returncode != 0 or not re.match(rf"^=*\s*{tests} passed( |,|$)", summary) or tests == 0:
            report(failures, where, [f"{tests} passed"], lines[-40:],
                   f"pytest exits {run.returncode}, documented 0 with {tests} passed")
        else:
            print(f"ok   {where}: pytest block ({summary.strip('= ')})")
    return count


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def check_links(root, failures):
    count = 0
    linked_from_readme = set()
    for path in pages(root):
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8").read()
        text_no_code = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in LINK.findall(text_no_code):
            if re.match(r"^[a-z]+:", target):
                continue
            count += 1
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                failures.append(f"{rel}: link {target}")
                print(f"FAIL {rel}: link ({target}): {os.path.relpath(dest, root)} does not exist")
                continue
            if rel == "README.md":
                linked_from_readme.add(os.path.relpath(dest, root))
            if anchor and dest.endswith(".md"):
                heads = [slug(h) for h in re.findall(r"^#+ (.*)$", open(dest, encoding="utf-8").read(), re.M)]
                if anchor not in heads:
                    failures.append(f"{rel}: link {target}")
                    print(f"FAIL {rel}: link ({target}): no heading #{anchor} in {os.path.relpath(dest, root)}")
    for page in pages(root)[1:]:
        rel = os.path.relpath(page, root)
        if rel not in linked_from_readme:
            failures.append(f"README.md: no link to {rel}")
            print(f"FAIL README.md: no link to {rel}")
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="the checkout (README.md, docs/, golden/)")
    ap.add_argument("--accel-sim", required=True, help="the accel-sim executable the commands run as build/accel-sim")
    ap.add_argument("--python", help="run the python blocks (only them) with this interpreter")
    ap.add_argument("--pythonpath", help="PYTHONPATH for the python blocks (where accel_sim / accelerate are)")
    ap.add_argument("--accelerate-venv", help="put this venv's site-packages (Accelerate installed with pip --no-deps,"
                    " as docs/python.md says) on PYTHONPATH; 77 when it has no Accelerate")
    ap.add_argument("--min-commands", type=int, default=4, help="fail when fewer tested commands are found")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    failures = []
    if args.python:
        if not os.path.exists(args.python):
            print(f"docs: NOT RUN: {args.python} is missing (the python_package test builds it)")
            return 77
        pythonpath = args.pythonpath
        if args.accelerate_venv:
            sites = glob.glob(os.path.join(args.accelerate_venv, "lib", "python3*", "site-packages", "accelerate"))
            if not sites:
                print(f"docs: NOT RUN: no Accelerate in {args.accelerate_venv} (golden/setup-reference makes it)")
                return 77
            pythonpath = os.pathsep.join(p for p in (pythonpath, os.path.dirname(sites[0])) if p)
        n = check_python(root, args.accel_sim, args.python, pythonpath, failures)
        if n == 0:
            failures.append("no python block")
            print(f"FAIL no {MARK_PYTHON} block found")
        n_pytest = check_pytest(root, args.accel_sim, args.python, pythonpath, failures)
        if n_pytest == 0:
            failures.append("no pytest block")
            print(f"FAIL no {MARK_PYTEST} block found")
        print(f"docs: {n} python blocks, {n_pytest} pytest blocks, {len(failures)} failed")
        return 1 if failures else 0
    n = check_console(root, args.accel_sim, failures)
    if n < args.min_commands:
        failures.append("too few")
        print(f"FAIL only {n} tested commands found (at least {args.min_commands}): were the {MARK_CONSOLE} marks lost?")
    links = check_links(root, failures)
    print(f"docs: {n} commands, {links} links, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
