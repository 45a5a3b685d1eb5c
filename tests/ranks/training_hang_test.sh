#!/usr/bin/env bash
# Real ranks that train (issue 16): a job whose ranks get different numbers of batches must block in the
# real gradient all_reduce, and `launch` must say so (exit 5) naming the waiting ranks and the step the
# simulator predicts, never "identical"; the same job inside join_uneven_inputs completes on a MULTI_GPU job.
#   training_hang_test.sh ACCEL_SIM
set -u
bin=$1
source "$(dirname "$0")/../cli/harness.sh"

uneven=(launch --nproc 3 --dataset-len 10 --batch-size 2 --no-even-batches --timeout-s 10)
# The what-if for the same config predicts ranks 0-1 waiting at step 1 (10 samples, batches of 2, 3 ranks).
predicted=$("$bin" --ranks 3 --dataset-len 10 --batch-size 2 --no-even-batches --json |
            python3 -c 'import json,sys; s=json.load(sys.stdin)["scenarios"][0]; print(s["waiting_ranks"], s["min_steps"])')
check_output "the what-if predicts ranks 0-1 at step 1" "^\[0, 1\] 1$" echo "$predicted"

started=$(date +%s)
out=$("$bin" "${uneven[@]}" 2>&1)
rc=$?
took=$(( $(date +%s) - started ))
echo "$out"
check "uneven job exits 5 (hang)" 0 test "$rc" -eq 5
check_output "names ranks 0, 1 at epoch 0 step 1" "^\[rank 0\] hang: ranks 0, 1 wait forever in the gradient all_reduce at epoch 0 step 1; rank 2 finished its loop after 1 micro-step" echo "$out"
check_lacks "never says identical" "identical" echo "$out"
check "detected within --timeout-s (took ${took}s)" 0 test "$took" -le 10

# Accelerate 1.15 runs join_uneven_inputs only on multi-device jobs: over gloo on CPUs (MULTI_CPU) it does nothing
# and the job hangs as before (recorded from real DDP: golden/cases-ddp/uneven-n3-l10-b2-join.json).
"$bin" "${uneven[@]}" --join-uneven-inputs >/dev/null 2>&1
check "join_uneven_inputs on MULTI_CPU still hangs" 0 test $? -eq 5
out=$("$bin" "${uneven[@]}" --join-uneven-inputs --distributed-type MULTI_GPU 2>&1)
check "join_uneven_inputs on MULTI_GPU completes" 0 test $? -eq 0
# Per rank (issue 31): rank 2 joined after its one batch and made one optimizer step, not the others' two.
check_output "and says identical with each rank's steps" "^\[rank 0\] identical to the simulator's prediction (completed: ranks 0, 1: 2 optimizer steps, 2 gradient all_reduces, 6 scheduler steps; rank 2: 1 optimizer step, 1 gradient all_reduce (+1 shadowed by Join), 3 scheduler steps)$" echo "$out"

out=$("$bin" "${uneven[@]}" --loader-only 2>&1)
check "--loader-only compares the loader only" 0 test $? -eq 0

out=$("$bin" "${uneven[@]}" --grad-accum 2 2>&1)
check "accumulation pairs different steps instead of hanging" 0 test $? -eq 0
check_output "and says the ranks were out of step" "ranks were out of step from epoch 0 step 1" echo "$out"

echo "training_hang: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
