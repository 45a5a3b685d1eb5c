"""accelerate_sim.what_if / trace / the console script: the CLI's report, in-process, under Accelerate's option names."""

import json
import os
import shutil
import subprocess

import pytest

import accelerate_sim


def test_acceptance_64_ranks_1001_samples_duplicates_23():
    # The acceptance value: 64 ranks over 1001 samples pad 1024 - 1001 = 23 samples.
    report = accelerate_sim.what_if(num_processes=64, dataset_len=1001)
    assert report["scenarios"][0]["duplicated"] == 23
    assert report["num_processes"] == 64 and report["dataset_len"] == 1001


def test_console_script_is_the_same_cli():
    exe = shutil.which("accel-sim")
    assert exe is not None, "the wheel installs the accel-sim console script"
    options = dict(num_processes=8, dataset_len=1001, batch_size=4, even_batches=False, shuffle=True, set_seed=3)
    # The same flags (a report may quote its command line), the same report.
    out = subprocess.run([exe] + accelerate_sim.flags(**options) + ["--json"], check=True, capture_output=True,
                         text=True).stdout
    assert json.loads(out) == accelerate_sim.what_if(**options)
    assert json.loads(out)["scenarios"][0]["steps_per_rank"] == [32, 32, 32, 31, 31, 31, 31, 31]  # 251 batches
    text = subprocess.run([exe, "--ranks", "64", "--dataset-len", "1001"], check=True, capture_output=True,
                          text=True).stdout
    assert "as configured" in text


def test_flags_are_accelerates_names():
    assert accelerate_sim.flags(num_processes=8, even_batches=False, dispatch_batches=None, use_seedable_sampler=True,
                           data_seed=3) == ["--num_processes", "8", "--no-even-batches", "--use-seedable-sampler",
                                            "--data_seed", "3"]


GOLDEN = os.path.join(os.environ.get("ACCEL_SIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                      "golden", "cases")


@pytest.mark.parametrize("case", ["map-n3-b3-l10-split-uneven-keep", "map-n8-b16-l31-nosplit-even-keep",
                                  "iter-n3-b3-l10-split-even-keep", "seed-n2-b3-l10-nosplit-even-keep-globalseed123",
                                  "rs-gen-n2-b2-l10-g5"])
def test_trace_equals_the_real_accelerates_recording(case):
    # golden/cases: traces recorded from the real Accelerate 1.15.0; the simulation must give the same batches.
    path = os.path.join(GOLDEN, case + ".json")
    if not os.path.isfile(path):
        pytest.skip(f"{path} not in this tree")
    with open(path) as f:
        recorded = json.load(f)
    simulated = accelerate_sim.trace(recorded["config"])
    assert [[e["batches"] for e in r["epochs"]] for r in simulated["ranks"]] == \
        [[e["batches"] for e in r["epochs"]] for r in recorded["ranks"]]
    assert accelerate_sim.trace(path)["ranks"] == simulated["ranks"]


def test_trace_round_robin_without_padding():
    # n a multiple of b * ranks: batch k of the sequential order goes to rank k % ranks, nothing padded.
    n, b, ranks = 48, 3, 4
    t = accelerate_sim.trace(api="prepare_data_loader", num_processes=ranks, dataset_len=n, batch_size=b)
    batches = [list(range(i, i + b)) for i in range(0, n, b)]
    for r in range(ranks):
        assert t["ranks"][r]["epochs"][0]["batches"] == batches[r::ranks]


def test_what_if_counts_agree_with_the_trace():
    options = dict(num_processes=4, dataset_len=103, batch_size=5, shuffle=True, set_seed=11)
    report = accelerate_sim.what_if(**options)
    t = accelerate_sim.trace(**options)
    ids = [i for rank in t["ranks"] for batch in rank["epochs"][0]["batches"] for i in batch]
    s = report["scenarios"][0]
    assert s["samples_yielded"] == len(ids)
    assert s["distinct_samples"] == len(set(ids))
    assert s["duplicated"] == len(ids) - len(set(ids))
    assert s["dropped"] == 103 - len(set(ids))
    assert s["steps_per_rank"] == [len(rank["epochs"][0]["batches"]) for rank in t["ranks"]]


def test_trace_of_a_config_dict_and_of_a_case_file(tmp_path):
    config = accelerate_sim.trace(api="prepare_data_loader", num_processes=2, dataset_len=10, batch_size=3)["config"]
    from_dict = accelerate_sim.trace(config)
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"case": "mine", "config": config}))
    from_file = accelerate_sim.trace(path)
    assert from_file["case"] == "mine"
    assert from_file["ranks"] == from_dict["ranks"]


def test_each_option_reaches_the_simulation():
    base = dict(num_processes=4, dataset_len=1001, batch_size=4)
    plain = accelerate_sim.what_if(**base)["scenarios"][0]
    assert accelerate_sim.what_if(**base, drop_last=True)["scenarios"][0]["dropped"] > 0 == plain["dropped"]
    assert accelerate_sim.what_if(**base, even_batches=False)["scenarios"][0]["duplicated"] == 0 < plain["duplicated"]
    split = accelerate_sim.what_if(num_processes=4, dataset_len=1001, batch_size=16, split_batches=True)
    assert split["scenarios"][0]["steps_per_rank"] == [63] * 4  # ceil(1001 / 16) global batches of 16
    it = accelerate_sim.what_if(**base, dataset="iterable", dispatch_batches=True)
    assert it["dataset_kind"] == "iterable" and it["scenarios"][0]["loader_class"] == "DataLoaderDispatcher"
    seeded = accelerate_sim.what_if(**base, shuffle=True, use_seedable_sampler=True, data_seed=5)
    assert seeded["order"] == "SeedableRandomSampler(seed=5)"
    assert accelerate_sim.what_if(**base, shuffle=True)["order_differs_every_run"] is True
    assert accelerate_sim.what_if(**base, shuffle=True, set_seed=1)["order_differs_every_run"] is False
    assert accelerate_sim.what_if(**base, shuffle=True, generator_seed=1)["order_differs_every_run"] is False


def test_errors():
    with pytest.raises(TypeError, match="num_procs"):
        accelerate_sim.what_if(num_procs=4, dataset_len=10)
    # A typo names the close option(s) first, without the list of every option (issue 50).
    with pytest.raises(TypeError) as e:
        accelerate_sim.what_if(num_processes=2, dataset_len=10, batchsize=4)
    message = str(e.value)
    assert message.startswith("accelerate_sim.what_if() got an unexpected option 'batchsize': did you mean 'batch_size'?")
    assert "even_batches" not in message and len(message) < 200, message
    for typo, meant in (("ranks", "num_processes"), ("dataset-len", "dataset_len"), ("grad_accum",
                        "gradient_accumulation_steps"), ("shufle", "shuffle")):
        with pytest.raises(TypeError, match=f"'{typo}': did you mean '{meant}'"):
            accelerate_sim.what_if(dataset_len=10, **{typo: 1})
    with pytest.raises(TypeError, match="no close name; the [0-9]+ options: accelerate_version, api, batch_size"):
        accelerate_sim.what_if(dataset_len=10, xyzzy=1)
    with pytest.raises(TypeError, match="'html': it is a what_if option, which trace"):
        accelerate_sim.trace(dataset_len=10, html="out.html")
    with pytest.raises(TypeError, match="even_batches"):
        accelerate_sim.what_if(dataset_len=10, even_batches="no")
    with pytest.raises(accelerate_sim.ConfigError, match=r"num_processes \(--ranks\): must be an integer in \[1, 65536\]"):
        accelerate_sim.what_if(num_processes=0, dataset_len=10)
    with pytest.raises(accelerate_sim.ConfigError, match=r"dataset_len \(--dataset-len\): is required"):
        accelerate_sim.what_if(num_processes=2)
    with pytest.raises(accelerate_sim.ConfigurationRejected, match="round multiple of the number of processes") as e:
        accelerate_sim.what_if(num_processes=3, dataset_len=10, batch_size=4, split_batches=True)
    assert e.value.report["scenarios"][0]["rejected"].startswith("ValueError")
    code, _, err = accelerate_sim.run_cli(["launch", "--nproc", "2"])
    assert code == 2 and "not available in-process" in err
    assert "Accelerate 1.15.0" in accelerate_sim.version()


def test_hf_datasets_options():
    # Issue 27: a datasets.IterableDataset of 10 unequal shards on 4 ranks, not dispatched: Accelerate's .shard() path.
    report = accelerate_sim.what_if(num_processes=4, dataset="hf-iterable", shard_sizes=[5, 3, 7, 2, 4, 6, 1, 3, 8, 2],
                               batch_size=2, dispatch_batches=False)
    assert report["hf_dataset"]["path"] == "shard"
    assert report["hf_dataset"]["examples_per_rank"] == [15, 12, 4, 10]
    assert report["scenarios"][0]["steps_per_rank"] == [8, 6, 2, 5]
    assert report["findings"][0]["code"] == "hf-uneven-shards"
    shuffled = accelerate_sim.what_if(num_processes=2, dataset="hf-iterable", num_shards=4, dataset_len=40,
                                 hf_shuffle=7, buffer_size=4, split_by_node=True, dispatch_batches=False)
    assert shuffled["hf_dataset"]["split_by_node"] is True and shuffled["hf_dataset"]["shuffled"] is True
    # A map-style datasets.Dataset.shuffle(42): index 0 holds row 18, which the padding repeats.
    mapped = accelerate_sim.what_if(num_processes=2, dataset="hf-map", dataset_len=23, batch_size=3, hf_shuffle=42)
    assert mapped["scenarios"][0]["duplicated_ids"] == [18]
    with pytest.raises(accelerate_sim.ConfigError, match="datasets_version"):
        accelerate_sim.what_if(num_processes=2, dataset="hf-iterable", num_shards=2, dataset_len=8, datasets_version="2.0")
