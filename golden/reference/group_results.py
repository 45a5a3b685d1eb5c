"""The case-level error of a job recorded as a gloo group, from each rank's result (run_group's dict).

A failure before Accelerate's loader exists (Accelerator() or set_seed, the `early_kinds`) on any rank is the
job's failure, named for the first such rank; a prepare error that every rank raised alike is the config's,
named for rank 0. Anything else is per rank, and the caller records it on that rank.
"""


def case_error(results, n, early_kinds):
    for kind in early_kinds:
        failed = sorted(r for r, res in results.items() if kind in res)
        if failed:
            return {**results[failed[0]][kind], "rank": failed[0]}
    prepare_errors = {r: res["prepare_error"] for r, res in results.items() if "prepare_error" in res}
    if len(prepare_errors) == n and all(e == prepare_errors[0] for e in prepare_errors.values()):
        return {**prepare_errors[0], "rank": 0}
    return None
