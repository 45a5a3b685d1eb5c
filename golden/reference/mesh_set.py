"""Writes the inputs of the device-mesh golden cases (golden/cases-torch2/mesh-*.json):

    python3 golden/reference/mesh_set.py          # then: golden/refresh --torch 2 --write

prepare_data_loader(torch_device_mesh=init_device_mesh("cpu", shape, mesh_dim_names)) on real gloo ranks (a
DeviceMesh needs torch >= 2.2, so torch 2 only): the meshes ParallelismConfig builds (its order dp_replicate,
dp_shard, cp, sp, tp) and meshes users build themselves (tp outermost, the old names dp / fsdp). A mesh with a
dimension Accelerate does not divide by (("dp_shard", 2), ("sp", 2)) gives ranks 2-3 process_index 2-3 of 2 loader
processes: recorded, their first batch raises (map: TypeError, iterable: IndexError); accel-sim does not simulate
such loaders and says so (not recorded here)., each over map and iterable datasets, sharded and dispatched.
A file is written only when the case is not there yet, as `case`, `family` and `config` alone.

Then the Accelerator's side (`mesh-accel-*`, `mesh-metrics-*`): Accelerator(parallelism_config=ParallelismConfig(...))
as its prepare_data_loader call makes it (the real Accelerator refuses ParallelismConfig on CPU jobs; record.py's
prepare_with_parallelism makes that one call with the Accelerator's settings): shuffled and seeded loaders over two
epochs, a resumed pass (skip_first_batches), and the evaluation loop with gather_for_metrics, which gathers over every
rank of the job, tp ranks included.
"""
import json
import os

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MESHES = {
    # ParallelismConfig's own layouts.
    "tp2": [["tp", 2]],
    "tp4": [["tp", 4]],
    "fsdp2-tp2": [["dp_shard", 2], ["tp", 2]],
    "fsdp2-tp4": [["dp_shard", 2], ["tp", 4]],
    "ddp2-fsdp2-tp2": [["dp_replicate", 2], ["dp_shard", 2], ["tp", 2]],
    "fsdp2-cp2": [["dp_shard", 2], ["cp", 2]],
    "cp2-tp2": [["cp", 2], ["tp", 2]],
    "fsdp2-cp2-tp2": [["dp_shard", 2], ["cp", 2], ["tp", 2]],
    "fsdp3": [["dp_shard", 3]],
    # Users' own meshes.
    "tp2-fsdp2": [["tp", 2], ["dp_shard", 2]],
    "dp2-tp2": [["dp", 2], ["tp", 2]],
}

# name suffix -> loader options (all on 21 samples, batch 2 unless said)
VARIANTS = {
    "map": {"dataset_kind": "map"},
    "map-split": {"dataset_kind": "map", "split_batches": True, "batch_size": 4},
    "map-uneven-drop": {"dataset_kind": "map", "even_batches": False, "drop_last": True, "batch_size": 3},
    "iter": {"dataset_kind": "iterable", "dispatch_batches": False},
    "map-dispatch": {"dataset_kind": "map", "dispatch_batches": True},
    "iter-dispatch": {"dataset_kind": "iterable", "dispatch_batches": True},
    "iter-dispatch-split": {"dataset_kind": "iterable", "dispatch_batches": True, "split_batches": True,
                            "batch_size": 4},
}

# Which variants each mesh is recorded with: every mesh sharded over map and iterable, and dispatched where the
# dispatcher's mesh rule shows (with and without "tp", and the old names it refuses).
ALL = list(VARIANTS)
CHOSEN = {
    "tp2": ALL, "tp4": ["map", "iter", "map-dispatch", "iter-dispatch"],
    "fsdp2-tp2": ALL, "fsdp2-tp4": ["map", "map-split", "iter", "iter-dispatch"],
    "ddp2-fsdp2-tp2": ["map", "iter", "map-uneven-drop", "iter-dispatch"],
    "fsdp2-cp2": ["map", "iter", "iter-dispatch"], "cp2-tp2": ["map", "iter", "iter-dispatch"],
    "fsdp2-cp2-tp2": ["map", "iter"], "fsdp3": ["map", "iter-dispatch"],
    "tp2-fsdp2": ["map", "iter", "iter-dispatch"], "dp2-tp2": ["map", "iter", "iter-dispatch"],
}


def write_case(out_dir, name, family, config):
    """Writes the case's input unless it is there already (a recorded case is never overwritten); 1 if written."""
    target = os.path.join(out_dir, name + ".json")
    if os.path.exists(target):
        return 0
    with open(target, "w") as f:
        json.dump({"case": name, "family": family, "config": config}, f, indent=2)
        f.write("\n")
    return 1


def main():
    out_dir = os.path.join(GOLDEN, "cases-torch2")
    written = 0
    for mesh_name, mesh in MESHES.items():
        world = 1
        for _, n in mesh:
            world *= n
        for variant in CHOSEN[mesh_name]:
            config = {"api": "prepare_data_loader", "dataset_len": 21, "batch_size": 2, "num_processes": world,
                      "split_batches": False, "even_batches": True, "drop_last": False, "shuffle": False,
                      "use_seedable_sampler": False, "data_seed": None, "torch_manual_seed": None,
                      "epochs": 1, "schedule": ["prepared"], "set_epoch": None, "skip_first_batches": None,
                      "multiprocess": True, "torch_version": "2.6", "device_mesh": mesh}
            config.update(VARIANTS[variant])
            family = "dispatch" if config.get("dispatch_batches") else (
                "iterable" if config["dataset_kind"] == "iterable" else "map")
            written += write_case(out_dir, f"mesh-{mesh_name}-{variant}", family, config)
    written += accelerator_cases(out_dir)
    print(f"mesh_set: {written} case inputs written to {os.path.relpath(out_dir)}")


# name -> ParallelismConfig sizes
PARALLELISM = {
    "fsdp2-tp2": {"dp_shard_size": 2, "tp_size": 2},
    "tp2": {"tp_size": 2},
}
ACCEL_VARIANTS = {
    "map-skip3": {"dataset_kind": "map", "epochs": 2, "schedule": ["skipped", "prepared"], "skip_first_batches": 3},
    "iter-skip2": {"dataset_kind": "iterable", "schedule": ["skipped"], "skip_first_batches": 2},
    "map-seedable": {"dataset_kind": "map", "shuffle": True, "epochs": 2, "schedule": ["prepared", "prepared"],
                     "set_seed": 7, "set_epoch": [0, 1],
                     "accelerator": {"use_seedable_sampler": True}},
    "map-shuffle-skip2": {"dataset_kind": "map", "shuffle": True, "set_seed": 3, "schedule": ["skipped"],
                          "skip_first_batches": 2},
}
METRICS_VARIANTS = {
    "map": {"dataset_kind": "map"},
    "map-b3": {"dataset_kind": "map", "batch_size": 3},
    "iter": {"dataset_kind": "iterable"},
    "map-object": {"dataset_kind": "map", "use_gather_object": True},
    "map-uneven": {"dataset_kind": "map", "accelerator": {"even_batches": False}, "batch_size": 3},
}

# The training loop over the mesh's loader: AcceleratedScheduler steps num_processes (every rank) times per step.
SCHED_VARIANTS = {
    "lin": {},
    "lin-ga2-2epochs": {"gradient_accumulation_steps": 2, "epochs": 2},
    "lin-split": {"split_batches": True, "batch_size": 4},
}


def accelerator_cases(out_dir):
    written = 0
    for mesh_name, sizes in PARALLELISM.items():
        world = 1
        for n in sizes.values():
            world *= n
        pc = {k: v for k, v in sizes.items() if v > 1}
        cases = []
        for variant, options in ACCEL_VARIANTS.items():
            config = {"api": "accelerator", "dataset_kind": "map", "dataset_len": 21, "batch_size": 2,
                      "num_processes": world, "drop_last": False, "shuffle": False, "generator_seed": None,
                      "dataset_generator": False, "epochs": 1, "schedule": ["prepared"], "set_epoch": None,
                      "skip_first_batches": None, "set_seed": None, "set_seed_device_specific": False,
                      "accelerator": {}, "multiprocess": True, "torch_version": "2.6"}
            config.update({k: v for k, v in options.items() if k != "accelerator"})
            config["accelerator"] = dict(options.get("accelerator", {}), parallelism_config=pc)
            cases.append((f"mesh-accel-{mesh_name}-{variant}", "accelerator", config))
        for variant, options in METRICS_VARIANTS.items():
            config = {"api": "accelerator+gather_for_metrics", "dataset_kind": "map", "dataset_len": 11,
                      "batch_size": 2, "num_processes": world, "drop_last": False, "use_gather_object": False,
                      "break_after": None, "multiprocess": True}
            config.update({k: v for k, v in options.items() if k != "accelerator"})
            config["accelerator"] = dict(options.get("accelerator", {}), parallelism_config=pc)
            cases.append((f"mesh-metrics-{mesh_name}-{variant}", "metrics", config))
        for variant, options in SCHED_VARIANTS.items():
            config = {"api": "Accelerator.prepare+AcceleratedScheduler", "num_processes": world, "split_batches": False,
                      "gradient_accumulation_steps": 1, "adjust_scheduler": True, "sync_with_dataloader": True,
                      "step_with_optimizer": True,
                      "scheduler": {"kind": "linear_warmup", "base_lr": 0.1, "warmup_steps": 2, "training_steps": 20},
                      "dataset_len": 19, "batch_size": 2, "micro_steps_per_epoch": None, "epochs": 1,
                      "skipped_micro_steps": [], "multiprocess": True, "parallelism_config": pc}
            config.update(options)
            cases.append((f"mesh-sched-{mesh_name}-{variant}", "scheduler", config))
        for name, family, config in cases:
            written += write_case(out_dir, name, family, config)
    return written


if __name__ == "__main__":
    main()
