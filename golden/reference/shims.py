"""Import-level shims that let Accelerate 1.15 (which declares torch>=2.0) import and run on Debian's torch 1.13.

Import this module before importing `accelerate`. It changes none of Accelerate's logic:

- `safetensors-stub-module`: Accelerate imports the optional `safetensors` package at module level (checkpointing,
  offload, modeling utilities) but never calls it on the data-loader and scheduler code paths recorded here. A stub
  `safetensors` / `safetensors.torch` module stands in for it; every function it offers raises if called.
- `torch.cpu.device_count-backport`, `torch.cpu.set_device-backport`: `PartialState.set_device()` calls
  `torch.cpu.device_count()` and `torch.cpu.set_device()` when it starts a CPU process group. torch 1.13's
  `torch.cpu` has neither; torch 2 returns 1 and does nothing, which is what the back-ports do.
- `torch.distributed._tensor-stub-module`: the released Accelerate 1.15.0 (not the 1.15.0.dev0 checkout the golden
  files were first recorded with) asks `model_has_dtensor(model)` in `Accelerator.prepare_model`, which imports
  `DTensor` from `torch.distributed._tensor` on torch < 2.5. torch 1.13 has no DTensor, so no parameter can be
  one: the stub module's `DTensor` is a class that nothing is an instance of, which gives the answer torch 2 gives
  for a plain model (False). Installed only when torch lacks the module.

`SHIMS` lists the shims this module actually installed (a newer torch that has the functions gets no back-port),
in the order the golden files record them. On torch >= 2 it installs none: `SHIMS` is empty.
"""
import importlib.util
import sys
import types

SHIMS = []


class ShimCalled(RuntimeError):
    pass


def _stub(name):
    def call(*args, **kwargs):
        raise ShimCalled(f"{name}() is a stub of the reference shims (golden/reference/shims.py): safetensors is not "
                         "installed, and Accelerate called it on a code path the recorder does not expect")
    call.__name__ = name.rsplit(".", 1)[-1]
    return call


def _install_safetensors_stub():
    if importlib.util.find_spec("safetensors") is not None:
        return
    root = types.ModuleType("safetensors")
    root.__version__ = "0.0.0+accel-sim-stub"
    root.__path__ = []  # a package, so `import safetensors.torch` resolves to the stub below
    for name in ("safe_open", "serialize", "serialize_file", "deserialize"):
        setattr(root, name, _stub("safetensors." + name))
    sub = types.ModuleType("safetensors.torch")
    for name in ("load_file", "save_file", "load_model", "save_model", "load", "save"):
        setattr(sub, name, _stub("safetensors.torch." + name))
    root.torch = sub
    sys.modules["safetensors"] = root
    sys.modules["safetensors.torch"] = sub
    SHIMS.append("safetensors-stub-module")


def _install_torch_cpu_backports():
    import torch
    import torch.cpu

    if not hasattr(torch.cpu, "device_count"):
        def device_count() -> int:
            return 1  # torch 2: torch.cpu.device_count() is always 1
        torch.cpu.device_count = device_count
        SHIMS.append("torch.cpu.device_count-backport")
    if not hasattr(torch.cpu, "set_device"):
        def set_device(device) -> None:
            return None  # torch 2: "Sets the current device, in CPU we do nothing"
        torch.cpu.set_device = set_device
        SHIMS.append("torch.cpu.set_device-backport")


def _install_dtensor_stub():
    import torch.distributed

    if importlib.util.find_spec("torch.distributed.tensor") or importlib.util.find_spec("torch.distributed._tensor"):
        return

    class DTensor:  # torch 1.13 has no distributed tensors: no parameter is ever an instance of this class
        def __new__(cls, *args, **kwargs):
            raise ShimCalled("torch.distributed._tensor.DTensor is a stub of the reference shims")

    module = types.ModuleType("torch.distributed._tensor")
    module.DTensor = DTensor
    sys.modules["torch.distributed._tensor"] = module
    torch.distributed._tensor = module
    SHIMS.append("torch.distributed._tensor-stub-module")


def _torch_major():
    import torch

    return int(torch.__version__.split(".")[0])


# Accelerate 1.15 is made for torch 2: there (golden/setup-reference --torch 2) nothing is shimmed, so a missing
# dependency fails the import instead of being stood in for.
if _torch_major() < 2:
    _install_safetensors_stub()
    _install_torch_cpu_backports()
    _install_dtensor_stub()
