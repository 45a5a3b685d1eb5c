"""accelerate_sim.testing.assert_loader_matches on loaders prepared by the real Accelerate 1.15.0 (reference environment):
one process through Accelerator(), and several ranks simulated in one process with
prepare_data_loader(..., num_processes=R, process_index=r) as Accelerate's own tests do."""

import itertools
import os
import sys

import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, IterableDataset, TensorDataset, get_worker_info  # noqa: E402

import accelerate_sim  # noqa: E402
from accelerate_sim.testing import LoaderMismatch, assert_loader_matches  # noqa: E402

ROOT = os.environ.get("ACCEL_SIM_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(torch.arange(self.n).float() * 10)

    def __len__(self):
        return self.n


def _features(n):
    # What a script's dataset returns: not indices (the check swaps in an index-yielding copy).
    return TensorDataset(torch.randn(n, 3), torch.randint(0, 2, (n,)))


@pytest.fixture
def accelerator(accelerate):
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, GradientState

    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    return Accelerator(cpu=True)


def test_accelerator_shuffled_loader_matches(accelerator):
    dl = accelerator.prepare(DataLoader(_features(103), batch_size=4, shuffle=True))
    result = assert_loader_matches(dl, epochs=2)
    assert result["batches_checked"] == 2 * 26 and result["rank"] == 0
    assert result["options"]["set_seed"] == 0  # the copy ran from torch.manual_seed(0)
    assert assert_loader_matches(dl, steps=5, seed=123)["batches_checked"] == 5


def test_accelerator_generator_and_iterable(accelerator):
    g = torch.Generator().manual_seed(42)
    dl = accelerator.prepare(DataLoader(_features(50), batch_size=8, shuffle=True, generator=g))
    assert assert_loader_matches(dl, seed=9)["options"]["generator_seed"] == 9
    it = accelerator.prepare(DataLoader(Stream(21), batch_size=4))
    assert type(it).__name__ == "DataLoaderDispatcher"
    assert assert_loader_matches(it)["batches_checked"] == 6


def test_the_live_loader_is_left_as_it_was(accelerator):
    g = torch.Generator().manual_seed(42)
    dl = accelerator.prepare(DataLoader(list(range(30)), batch_size=4, shuffle=True, generator=g))
    g_state = g.get_state().clone()
    torch.manual_seed(5)
    global_state = torch.get_rng_state().clone()
    assert_loader_matches(dl, steps=3, seed=1)
    assert torch.equal(g.get_state(), g_state)
    assert torch.equal(torch.get_rng_state(), global_state)
    assert dl.iteration == 0
    assert accelerator.gradient_state.active_dataloader is None
    first = [b.tolist() for b in dl]  # the real dataset's items, untouched
    assert sorted(i for b in first for i in b) == list(range(30))


def _prepared(accelerate, ranks, make_loader, **kwargs):
    from accelerate.data_loader import prepare_data_loader

    return [prepare_data_loader(make_loader(), num_processes=ranks, process_index=r, **kwargs) for r in range(ranks)]


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(even_batches=False),
    dict(split_batches=True),
    dict(use_seedable_sampler=True, data_seed=7),
])
def test_simulated_ranks_map(accelerate, kwargs):
    shuffle = "use_seedable_sampler" in kwargs
    ranks = 4
    loaders = _prepared(accelerate, ranks, lambda: DataLoader(_features(1001), batch_size=8, shuffle=shuffle),
                        **kwargs)
    total = 0
    for dl in loaders:
        total += assert_loader_matches(dl, epochs=2)["batches_checked"]
    assert total > 0


def test_simulated_ranks_iterable_shard(accelerate):
    for dl in _prepared(accelerate, 3, lambda: DataLoader(Stream(31), batch_size=3), split_batches=True):
        assert assert_loader_matches(dl)["batches_checked"] > 0


def test_after_passes_the_seedable_sampler_is_checked_where_it_is(accelerate):
    (dl,) = _prepared(accelerate, 1, lambda: DataLoader(list(range(40)), batch_size=4, shuffle=True),
                      use_seedable_sampler=True, data_seed=1)
    for _ in dl:
        pass
    result = assert_loader_matches(dl)
    assert result["first_epoch"] == 1  # compared with the simulation's second pass (seed 1 + 1)


def test_a_wrong_expectation_is_detected(accelerate):
    # Prepared with even_batches=True; told even_batches=False, the simulation expects the last rank to stop early.
    loaders = _prepared(accelerate, 4, lambda: DataLoader(list(range(1001)), batch_size=8))
    with pytest.raises(LoaderMismatch) as e:
        assert_loader_matches(loaders[3], even_batches=False)
    err = e.value
    assert (err.rank, err.epoch, err.step) == (3, 0, 31)
    assert err.expected is None and isinstance(err.actual, list) and len(err.actual) == 8
    assert "rank 3, epoch 0, step 31" in str(err)
    # A wrong seed: the seedable sampler's order differs from the first batch on.
    (dl,) = _prepared(accelerate, 1, lambda: DataLoader(list(range(40)), batch_size=4, shuffle=True),
                      use_seedable_sampler=True, data_seed=1)
    with pytest.raises(LoaderMismatch, match="rank 0, epoch 0, step 0"):
        assert_loader_matches(dl, data_seed=2)


def test_not_modelled_is_refused(accelerate, accelerator):
    with pytest.raises(accelerate_sim.NotModelled, match="not a loader prepared by Accelerate"):
        assert_loader_matches(DataLoader(list(range(4))))
    dl = accelerator.prepare(DataLoader(list(range(40)), batch_size=4))
    skipped = accelerator.skip_first_batches(dl, 2)
    with pytest.raises(accelerate_sim.NotModelled, match="skip_first_batches"):
        assert_loader_matches(skipped)
    own = DataLoader(list(range(40)), batch_size=4, sampler=torch.utils.data.RandomSampler(
        list(range(40)), generator=torch.Generator().manual_seed(3)))
    with pytest.raises(accelerate_sim.NotModelled, match="generator of its own"):
        assert_loader_matches(accelerator.prepare(own))


class _Collator:
    """A collator holding what cannot be copied (as a tokenizer's collator may)."""

    def __init__(self):
        import threading

        self.lock = threading.Lock()

    def __call__(self, items):
        with self.lock:
            return {"x": torch.stack([item[0] for item in items])}


def test_the_users_collate_fn_is_neither_copied_nor_used(accelerator):
    dl = accelerator.prepare(DataLoader(_features(20), batch_size=4, collate_fn=_Collator()))
    assert assert_loader_matches(dl)["batches_checked"] == 5
    assert set(next(iter(dl))) == {"x"}  # the live loader still collates with it


def test_an_error_the_simulation_predicts_is_a_match(accelerate):
    # data_seed 2^64 - 1: the first pass runs, the second overflows in SeedableRandomSampler's manual_seed (torch
    # 1.13: RuntimeError), as the simulation of that torch says it does.
    (dl,) = _prepared(accelerate, 1, lambda: DataLoader(list(range(6)), batch_size=2, shuffle=True),
                      use_seedable_sampler=True, data_seed=2**64 - 1)
    assert assert_loader_matches(dl, epochs=2)["batches_checked"] == 3
    # Told another seed, the simulation expects another order from the first batch on.
    with pytest.raises(LoaderMismatch, match="rank 0, epoch 0, step 0"):
        assert_loader_matches(dl, epochs=2, data_seed=2**64 - 3)


def test_the_default_shuffle_on_several_ranks(accelerate):
    # use_seedable_sampler=False, no DataLoader generator: Accelerate creates the sampler's generator at prepare (seeded
    # from torch's global generator); the copy's is seeded as that prepare seeds it after torch.manual_seed(seed).
    loaders = _prepared(accelerate, 2, lambda: DataLoader(_features(37), batch_size=4, shuffle=True),
                        rng_types=["generator"])
    for dl in loaders:
        result = assert_loader_matches(dl, epochs=2)
        assert result["batches_checked"] == 2 * 5 and result["options"]["set_seed"] == 0
    # Told another seed than the copy ran from, the simulation expects another order from the first batch on.
    with pytest.raises(LoaderMismatch, match="rank 1, epoch 0, step 0"):
        assert_loader_matches(loaders[1], set_seed=1)


class Split(IterableDataset):
    """torch's documented worker split over a stream of tensors: strided (itertools.islice(stream, worker_id, None,
    num_workers)), contiguous (the worker's block), or a custom one accel-sim does not model (reversed blocks)."""

    def __init__(self, n, split):
        self.n, self.split = n, split

    def __len__(self):
        return self.n

    def __iter__(self):
        stream = iter(torch.arange(self.n).float() * 10)
        info = get_worker_info()
        if info is None:
            return stream
        if self.split == "strided":
            return itertools.islice(stream, info.id, None, info.num_workers)
        per = -(-self.n // info.num_workers)
        block = list(stream)[info.id * per:(info.id + 1) * per]
        return iter(block if self.split == "contiguous" else block[::-1])


def test_iterable_with_workers_and_the_strided_split(accelerate, accelerator):
    # The acceptance: a real iterable loader with 2 workers and a strided split (each worker batches its own
    # share, the main process takes batches round-robin).
    dl = accelerator.prepare(DataLoader(Split(23, "strided"), batch_size=3, num_workers=2))
    result = assert_loader_matches(dl, epochs=2)
    assert result["options"]["worker_split"] == "strided" and result["options"]["num_workers"] == 2
    assert result["batches_checked"] == 2 * 8  # 12 + 11 samples: 4 batches from each worker, worker 1's last short
    for ranks, kwargs in ((2, {}), (3, dict(split_batches=True))):
        for dl in _prepared(accelerate, ranks, lambda: DataLoader(Split(31, "strided"), batch_size=3, num_workers=2),
                            dispatch_batches=False, **kwargs):
            assert assert_loader_matches(dl)["batches_checked"] > 0
    contiguous = accelerator.prepare(DataLoader(Split(20, "contiguous"), batch_size=4, num_workers=2,
                                                persistent_workers=True))
    for _ in contiguous:  # the live loader's persistent workers are running: the copy starts its own
        pass
    assert assert_loader_matches(contiguous, epochs=2)["options"]["worker_split"] == "contiguous"


def test_a_wrong_worker_split_is_detected(accelerate):
    # Planted: the dataset splits strided, the check is told contiguous: the first batch differs.
    (dl,) = _prepared(accelerate, 1, lambda: DataLoader(Split(23, "strided"), batch_size=3, num_workers=2))
    with pytest.raises(LoaderMismatch) as e:
        assert_loader_matches(dl, worker_split="contiguous")
    assert (e.value.rank, e.value.epoch, e.value.step) == (0, 0, 0)
    assert e.value.expected == [0, 1, 2] and e.value.actual == [0, 2, 4]
    # A split accel-sim does not model is refused, naming the modelled ones, not reported as a mismatch.
    (custom,) = _prepared(accelerate, 1, lambda: DataLoader(Split(23, "reversed"), batch_size=3, num_workers=2))
    with pytest.raises(accelerate_sim.NotModelled, match="does not model: what its workers yield follows none of"):
        assert_loader_matches(custom)


def _gloo_env():
    """PYTHONPATH for a process of its own: accelerate_sim as this one imports it, the reference Accelerate and shims."""
    import accelerate as acc

    paths = [os.path.dirname(os.path.dirname(accelerate_sim.__file__)), os.path.dirname(os.path.dirname(acc.__file__)),
             os.path.join(ROOT, "golden", "reference")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths + [os.environ.get("PYTHONPATH", "")]))


def test_real_gloo_ranks(accelerate):
    # Two real processes in a gloo group (tests/recorder/launch.py: torchrun's environment): an Accelerator's
    # default shuffled loader (its generator drawn at prepare, synchronised from rank 0 at every pass) and an
    # iterable loader with 2 workers and a strided split, checked on every rank.
    sys.path.insert(0, os.path.join(ROOT, "tests", "recorder"))
    from launch import launch

    worker = os.path.join(os.path.dirname(__file__), "gloo_check_worker.py")
    results = launch(2, [worker], timeout=150, env_extra=_gloo_env())
    for rank, (code, out, err) in enumerate(results):
        assert code == 0, f"rank {rank} exited {code}:\n{out}\n{err[-3000:]}"
        assert f"rank {rank}: default shuffle ok (2 ranks, 26 batches)" in out
        assert f"rank {rank}: iterable workers ok (strided, 12 batches)" in out
        assert f"rank {rank}: wrong seed caught at rank {rank}, epoch 0, step 0" in out
