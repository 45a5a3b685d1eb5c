"""accelerate_sim.pytest_plugin in a pytest run of its own (a subprocess, as a user's suite runs it): the accel_sim fixture
and marker under --strict-markers, and a planted wrong expectation that must fail with exit 1 and a report naming the
first divergent rank / epoch / step with the ids, not a traceback through accel_sim. Where accel_sim is the installed
wheel (the python_package test), the plugin must come from its pytest11 entry point; from a source tree it is
loaded with -p."""

import os
import subprocess
import sys
import textwrap

import pytest

import accelerate_sim

ROOT = os.environ.get("ACCEL_SIM_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

HEADER = '''
import sys
import torch
import pytest
if torch.__version__.startswith("1.13"):
    import shims  # noqa: F401  (before accelerate)
from torch.utils.data import DataLoader
from accelerate.data_loader import prepare_data_loader
'''


def _entry_point_registered():
    from importlib import metadata

    eps = metadata.entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    return any(ep.name == "accelerate_sim" and ep.value == "accelerate_sim.pytest_plugin" for ep in group)


def _installed():
    """accelerate_sim is the one pip installed into this environment (not a source tree on PYTHONPATH)."""
    return os.path.abspath(accelerate_sim.__file__).startswith(os.path.abspath(sys.prefix))


def _run_pytest(accelerate, tmp_path, body, *args):
    test = tmp_path / "test_user_suite.py"
    test.write_text(HEADER + textwrap.dedent(body))
    paths = [os.path.dirname(os.path.dirname(accelerate.__file__)), os.path.join(ROOT, "golden", "reference")]
    if not _installed():
        paths.insert(0, os.path.dirname(os.path.dirname(accelerate_sim.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    plugin = [] if _entry_point_registered() else ["-p", "accelerate_sim.pytest_plugin"]
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--strict-markers",
                          *plugin, *args, str(test)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    return run.returncode, run.stdout + run.stderr


def test_the_installed_wheel_registers_the_entry_point():
    if not _installed():
        pytest.skip("accelerate_sim runs from a source tree: no entry point to read (python_package installs the wheel)")
    assert _entry_point_registered(), "no pytest11 entry point accelerate_sim = accelerate_sim.pytest_plugin"


def test_fixture_and_marker_pass(accelerate, tmp_path):
    code, out = _run_pytest(accelerate, tmp_path, '''
        @pytest.mark.accel_sim(num_processes=4, epochs=2)
        def test_every_rank(accel_sim):
            result = accel_sim.assert_ranks_match(lambda: DataLoader(list(range(1001)), batch_size=8, shuffle=True),
                                                  even_batches=False)
            assert result["ranks"] == 4 and result["batches_checked"] > 0

        @pytest.mark.accel_sim(num_processes=64)
        def test_what_if(accel_sim):
            assert accel_sim.what_if(dataset_len=1001)["scenarios"][0]["duplicated"] == 23

        def test_one_loader(accel_sim):
            dl = prepare_data_loader(DataLoader(list(range(40)), batch_size=4), num_processes=2, process_index=1)
            assert accel_sim.assert_loader_matches(dl)["batches_checked"] == 5
    ''')
    assert code == 0, out
    assert "3 passed" in out


def test_a_planted_mismatch_fails_readably(accelerate, tmp_path):
    # Prepared with even_batches=True, checked as if even_batches=False: the simulation expects rank 3's pass to
    # end at step 31, where the real loader yields a padded batch.
    code, out = _run_pytest(accelerate, tmp_path, '''
        def test_through_the_fixture(accel_sim):
            dl = prepare_data_loader(DataLoader(list(range(1001)), batch_size=8), num_processes=4, process_index=3)
            accel_sim.assert_loader_matches(dl, even_batches=False)

        def test_called_directly():
            from accelerate_sim.testing import assert_loader_matches
            dl = prepare_data_loader(DataLoader(list(range(1001)), batch_size=8), num_processes=4, process_index=3)
            assert_loader_matches(dl, even_batches=False)
    ''')
    assert code == 1, out
    assert "2 failed" in out
    assert out.count("first divergence: rank 3, epoch 0, step 31") == 2, out
    assert out.count("expected ids: end of the pass") == 2, out
    assert "actual ids:   [" in out
    lines = (tmp_path / "test_user_suite.py").read_text().split("\n")
    line = max(i for i, text in enumerate(lines) if "assert_loader_matches(dl, even_batches=False)" in text) + 1
    assert f"test_user_suite.py:{line}: accel-sim: the prepared loader differs" in out, out  # the direct call's line
    assert "During handling" not in out, out
    assert "accelerate_sim/testing.py" not in out and "Traceback" not in out, out  # no internals


def test_the_marker_is_registered(accelerate, tmp_path):
    code, out = _run_pytest(accelerate, tmp_path, "", "--markers")
    assert code == 0, out
    assert "@pytest.mark.accel_sim(**options)" in out
