"""A stand-in for accelerate_sim._core over the built `accel-sim` executable ($ACCEL_SIM_EXE), for the recorder tests when
no wheel is built (ctest -R python_package builds one; tests/recorder/run_with_package.sh prefers it).

run_cli runs the same command line as the compiled module does in-process (the executable is the same CLI), and
returns (exit_code, stdout, stderr). rng_state_draws is not offered by the executable: it raises ValueError, which
accelerate_sim.from_dataloader turns into a warning (the ids then assume nothing was drawn after set_seed).
"""

import os
import subprocess
from typing import List, Tuple

_EXE = os.environ.get("ACCEL_SIM_EXE", "accel-sim")


def run_cli(args: List[str]) -> Tuple[int, str, str]:
    p = subprocess.run([_EXE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def version_text() -> str:
    return subprocess.run([_EXE, "--version"], capture_output=True, text=True, check=True).stdout


def rng_state_draws(state: bytes) -> Tuple[int, int]:
    raise ValueError("not available through the accel-sim executable (tests/recorder/core_via_cli.py)")
