"""accelerate_sim.pytest_plugin: accel-sim in a pytest suite, registered through the ``pytest11`` entry point
(pyproject.toml) so that installing the package is enough.

    @pytest.mark.accel_sim(steps=20, epochs=2)
    def test_loader(accel_sim):
        accel_sim.assert_loader_matches(accelerator.prepare(DataLoader(ds, batch_size=16, shuffle=True)))
        accel_sim.assert_ranks_match(lambda: DataLoader(ds, batch_size=16, shuffle=True), num_processes=4)

It owns the ``accel_sim`` fixture (an AccelSim: the loader checks and the what-if, with the test's marker options as
defaults), the ``accel_sim`` marker (registered here, so --strict-markers accepts it), the ``--accel-sim-steps``
option (caps every check's batches per pass) and the failure report: a LoaderMismatch, whether raised through the
fixture or by accelerate_sim.testing.assert_loader_matches called directly, is reported as the first divergent rank /
epoch / step with the expected and actual sample ids, not as a traceback through accelerate_sim's internals. Nothing here
imports torch or accelerate_sim's core until a test uses them: the plugin loads in every pytest run of the environment.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import pytest

_MARKER_HELP = ("accel_sim(**options): defaults for the accel_sim fixture's checks: steps, epochs, seed, "
                "num_processes (assert_ranks_match, what_if, from_dataloader) and any what_if option")
# The marker's keys that are the check's own arguments, not simulation options.
_CHECK_ARGS = ("steps", "epochs", "seed")


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("accel_sim", "accel-sim loader checks")
    group.addoption("--accel-sim-steps", type=int, default=None, metavar="N",
                    help="check at most N batches per pass in every accel_sim loader check (a faster suite)")


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", _MARKER_HELP)


def pytest_report_header(config: Any) -> Optional[str]:
    try:
        from importlib import metadata
        return f"accel-sim: {metadata.version('accel-sim')}"
    except Exception:  # noqa: BLE001 - run from a source tree: no distribution metadata, no header
        return None


def describe_mismatch(err: Any) -> str:
    """A LoaderMismatch as the failure's text: where the loader first differs, what was expected and what came."""

    def ids(v: Any) -> str:
        return "end of the pass" if v is None else repr(v)

    options = ", ".join(f"{k}={v!r}" for k, v in err.options.items())
    return (f"accel-sim: the prepared loader differs from the simulation\n"
            f"  first divergence: rank {err.rank}, epoch {err.epoch}, step {err.step}\n"
            f"  expected ids: {ids(err.expected)}\n"
            f"  actual ids:   {ids(err.actual)}\n"
            f"  simulated with: {options}")


class AccelSim:
    """The ``accel_sim`` fixture: loader checks and the what-if, with the test's ``@pytest.mark.accel_sim(...)``
    options (and ``--accel-sim-steps``) as defaults that a call's own arguments override."""

    def __init__(self, options: Dict[str, Any], max_steps: Optional[int] = None):
        self.options = dict(options)
        self.max_steps = max_steps

    def _check_args(self, kwargs: Dict[str, Any]) -> Dict[str, Any]:
        merged = {k: v for k, v in self.options.items() if k != "num_processes"}
        merged.update(kwargs)
        if self.max_steps is not None:
            steps = merged.get("steps")
            merged["steps"] = self.max_steps if steps is None else min(steps, self.max_steps)
        return merged

    def assert_loader_matches(self, prepared_dataloader: Any, **kwargs: Any) -> Dict[str, Any]:
        """accelerate_sim.testing.assert_loader_matches on a loader Accelerate prepared; a mismatch fails the test with
        the first divergent rank / epoch / step, NotModelled fails it with what is not modelled."""
        from . import NotModelled
        from .testing import LoaderMismatch, assert_loader_matches

        try:
            return assert_loader_matches(prepared_dataloader, **self._check_args(kwargs))
        except LoaderMismatch as err:
            failure = describe_mismatch(err)
        except NotModelled as err:
            failure = f"accel-sim: not modelled, nothing was checked: {err}"
        # Failed outside the except clause: the report shows this text alone, not the exception it came from.
        pytest.fail(failure, pytrace=False)

    def assert_ranks_match(self, make_dataloader: Callable[[], Any], num_processes: Optional[int] = None,
                           **kwargs: Any) -> Dict[str, Any]:
        """Every rank of a job of ``num_processes`` (the marker's by default) in this one process, as Accelerate's
        own tests do: ``prepare_data_loader(make_dataloader(), num_processes=N, process_index=r, **prepare)`` for
        each rank r, each checked. ``kwargs`` are prepare_data_loader's arguments (split_batches, even_batches,
        dispatch_batches, use_seedable_sampler, data_seed, rng_types) and the check's (steps, epochs, seed, any
        override). Returns {"ranks": N, "batches_checked": total}."""
        from accelerate.data_loader import prepare_data_loader

        ranks = num_processes if num_processes is not None else self.options.get("num_processes")
        if not isinstance(ranks, int) or ranks < 1:
            raise TypeError("accel_sim.assert_ranks_match: give num_processes=N (or @pytest.mark.accel_sim("
                            "num_processes=N))")
        prepare_keys = ("split_batches", "even_batches", "dispatch_batches", "use_seedable_sampler", "data_seed",
                        "rng_types", "put_on_device")
        prepare = {k: kwargs.pop(k) for k in prepare_keys if k in kwargs}
        total = 0
        for rank in range(ranks):
            loader = prepare_data_loader(make_dataloader(), num_processes=ranks, process_index=rank, **prepare)
            total += self.assert_loader_matches(loader, **kwargs)["batches_checked"]
        return {"ranks": ranks, "batches_checked": total}

    def _sim_options(self, kwargs: Dict[str, Any]) -> Dict[str, Any]:
        merged = {k: v for k, v in self.options.items() if k not in _CHECK_ARGS}
        merged.update(kwargs)
        return merged

    def what_if(self, **options: Any) -> Dict[str, Any]:
        """accelerate_sim.what_if with the marker's options as defaults."""
        from . import what_if

        return what_if(**self._sim_options(options))

    def from_dataloader(self, dataloader: Any, accelerator: Any = None, **options: Any) -> Dict[str, Any]:
        """accelerate_sim.from_dataloader with the marker's options as defaults."""
        from . import from_dataloader

        return from_dataloader(dataloader, accelerator, **self._sim_options(options))


@pytest.fixture
def accel_sim(request: Any) -> AccelSim:
    """accel-sim's loader checks for this test (see AccelSim); ``@pytest.mark.accel_sim(...)`` sets their
    defaults."""
    options: Dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers("accel_sim"))):  # the closest marker wins
        if marker.args:
            raise TypeError("@pytest.mark.accel_sim takes keyword options only, e.g. accel_sim(num_processes=4)")
        options.update(marker.kwargs)
    return AccelSim(options, request.config.getoption("accel_sim_steps"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any):
    """A LoaderMismatch raised by accelerate_sim.testing.assert_loader_matches called directly: reported like the
    fixture's (the test's line, then the divergence), unless a long traceback was asked for (--tb=long/native)."""
    outcome = yield
    report = outcome.get_result()
    excinfo = call.excinfo
    if excinfo is None or not report.failed or type(excinfo.value).__name__ != "LoaderMismatch":
        return
    if type(excinfo.value).__module__ != "accelerate_sim.testing":
        return
    if item.config.getoption("tbstyle", "auto") in ("long", "native"):
        return
    where = ""
    for entry in reversed(excinfo.traceback):
        if str(entry.path) == str(getattr(item, "path", getattr(item, "fspath", ""))):
            where = f"{entry.path}:{entry.lineno + 1}: "
            break
    report.longrepr = where + describe_mismatch(excinfo.value)
