"""Fixtures: the real Accelerate 1.15.0 from the reference environment (golden/setup-reference), imported through
golden/reference/shims.py as the recorder does (Accelerate 1.15 on Debian's torch 1.13)."""

import os
import sys

import pytest

ROOT = os.environ.get("ACCEL_SIM_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


def _reference_site_packages():
    venv = os.environ.get("ACCEL_SIM_REFERENCE_VENV", os.path.join(ROOT, "build", "reference-venv"))
    if not os.path.isfile(os.path.join(venv, "VERSIONS.json")):
        return None
    # The reference venv's own Python version (Debian's 3.11, like the one running these tests).
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = os.path.join(venv, "lib", version, "site-packages")
    return site if os.path.isdir(os.path.join(site, "accelerate")) else None


@pytest.fixture(scope="session")
def accelerate():
    site = _reference_site_packages()
    if site is None:
        pytest.skip("reference environment missing (run golden/setup-reference): the real Accelerate is not importable")
    if site not in sys.path:
        sys.path.append(site)
    shims_dir = os.path.join(ROOT, "golden", "reference")
    if shims_dir not in sys.path:
        sys.path.insert(0, shims_dir)
    import shims  # noqa: F401  (before accelerate)
    import accelerate as acc

    assert acc.__version__ == "1.15.0", acc.__version__
    return acc
