"""Runs `python -m MODULE ARGS...` after golden/reference/shims.py (Accelerate 1.15 on Debian's torch 1.13), for the
recorder tests: torchrun tests/recorder/with_shims.py accelerate_sim.smoke --dataset-len 10 ..."""
import runpy
import sys

import shims  # noqa: F401  (before accelerate)

module = sys.argv[1]
sys.argv = [module] + sys.argv[2:]
runpy.run_module(module, run_name="__main__", alter_sys=True)
