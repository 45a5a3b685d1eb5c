"""python -m accelerate_sim.smoke with a planted mistake on rank 1: its BatchSamplerShard is built with even_batches=False
(the other ranks keep the default), so rank 1's last batch differs from what the simulation predicts."""
import os
import runpy
import sys

import shims  # noqa: F401  (before accelerate)
import accelerate.data_loader as adl

if os.environ.get("RANK") == "1":
    original = adl.BatchSamplerShard.__init__

    def planted(self, *args, **kwargs):
        kwargs["even_batches"] = False
        original(self, *args, **kwargs)

    adl.BatchSamplerShard.__init__ = planted
sys.argv = ["accelerate_sim.smoke"] + sys.argv[1:]
runpy.run_module("accelerate_sim.smoke", run_name="__main__", alter_sys=True)
