"""The accel-sim executable in place of the compiled module (the portable wheel, scripts/build-portable-wheel.sh).

A module compiled for one CPython is what ties a wheel to that CPython; the portable wheel ships the one static
`accel-sim` executable instead (inside this package, `_bin/accel-sim`) and runs it for every call, so one wheel serves
every Python. `run_cli`, `version_text` and `rng_state_draws` answer what the compiled `_core` answers; `main` is the
`accel-sim` console script. ACCEL_SIM_EXE names another executable (tests).
"""
import os
import subprocess
import sys
from typing import List, Tuple

_EXE = os.environ.get("ACCEL_SIM_EXE") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "accel-sim")


def run_cli(args: List[str]) -> Tuple[int, str, str]:
    p = subprocess.run([_EXE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def version_text() -> str:
    return subprocess.run([_EXE, "--version"], capture_output=True, text=True, check=True).stdout


def rng_state_draws(state: bytes) -> Tuple[int, int]:
    p = subprocess.run([_EXE, "rng-state-draws"], input=state, capture_output=True)
    if p.returncode != 0:
        raise ValueError(p.stderr.decode(errors="replace").strip().removeprefix("accel-sim: rng-state-draws: "))
    seed, draws = p.stdout.split()
    return int(seed), int(draws)


def main() -> None:
    os.execv(_EXE, [_EXE, *sys.argv[1:]])
