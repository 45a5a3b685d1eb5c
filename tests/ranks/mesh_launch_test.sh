#!/usr/bin/env bash
# Real ranks with a device mesh (issue 32): `accel-sim launch` builds the mesh on real Gloo ranks, and the ranks of
# each tp / cp group compare their batches with an all_gather, as a model-parallel step would need them equal.
# A group that agrees says so beside "identical"; a group whose ranks got different batches (Accelerate's
# rank // (tp*cp) over a mesh with tp outermost) exits 6 with the ranks, the step and both batches.
#   mesh_launch_test.sh ACCEL_SIM
set -u
bin=$1
source "$(dirname "$0")/../cli/harness.sh"
base=(launch --nproc 4 --timeout-s 10)
job() {  # flags...: runs the launch; its stderr (the verdicts) in $out, its exit code in $rc
  out=$("$bin" "${base[@]}" "$@" 2>&1 >/dev/null)
  rc=$?
  echo "$out"
}

job --parallelism dp_shard=2,tp=2 --dataset-len 20 --batch-size 2
check "ParallelismConfig dp_shard=2,tp=2 completes" 0 test "$rc" -eq 0
check_output "and says identical" "^\[rank 0\] identical to the simulator's prediction" echo "$out"
check_output "the tp groups 0,1 and 2,3 agree on the real ranks" \
  "^\[rank 0\] mesh: every model-parallel group (0,1; 2,3) received identical batches on the real ranks (an all_gather of batch digests over gloo)$" \
  echo "$out"

# tp outermost: Accelerate still divides the rank by tp, so ranks 0,1 read data rank 0 and ranks 2,3 data rank 1,
# while the ranks meant to share a batch are those with one dp_shard coordinate, {0,2} and {1,3}. Batches of 2 over
# the 2 data ranks: data rank 0 reads [0,1] first, data rank 1 [2,3].
job --api prepare_data_loader --device-mesh tp=2,dp_shard=2 --dataset-len 20 --batch-size 2
check "tp outermost exits 6" 0 test "$rc" -eq 6
check_output "the simulation itself matched" "^\[rank 0\] identical to the simulator's prediction" echo "$out"
check_output "names group 0,2, the step and both batches" \
  "^\[rank 0\] error\[mesh-group-split\] on the real ranks: the model-parallel group 0,2 .* at epoch 0 step 0 rank 0 got \[0,1\], rank 2 got \[2,3\]" \
  echo "$out"
# The what-if predicts the same split from the same config.
check_output "the what-if predicts it" "error\[mesh-group-split\]" \
  "$bin" --ranks 4 --api prepare_data_loader --device-mesh tp=2,dp_shard=2 --dataset-len 20 --batch-size 2

# An iterable dataset under the dispatcher with "tp": rank 0 fetches one batch per step and every rank gets all of it.
job --parallelism tp=4 --dataset iterable --put-on-device --loader-only --dataset-len 9 \
      --batch-size 2
check "tp=4 dispatcher completes" 0 test "$rc" -eq 0
check_output "one group of all four ranks agrees" "^\[rank 0\] mesh: every model-parallel group (0,1,2,3) received identical" \
  echo "$out"

# A job the simulator predicts to hang (2 data ranks, 5 batches, even_batches off) still ends as a hang (exit 5): the
# group check is not made, so it cannot add a wait of its own.
job --parallelism dp_shard=2,tp=2 --dataset-len 10 --batch-size 2 \
      --no-even-batches
check "the predicted hang exits 5" 0 test "$rc" -eq 5
check_lacks "no mesh verdict after a hang" "^\[rank 0\] mesh:" echo "$out"
# The what-if's advice for an uneven mesh job names a launch with the same mesh; run it: every rank completes.
hint=$("$bin" --ranks 4 --parallelism dp_shard=2,tp=2 --dataset-len 21 --batch-size 2 |
       grep -o 'as `accel-sim launch [^`]*`' | head -1 | sed 's/^as `accel-sim launch //; s/`$//')
check_output "the hint keeps the mesh" "^--parallelism dp_shard=2,tp=2 --no-even-batches --join-uneven-inputs" echo "$hint"
# shellcheck disable=SC2086
job $hint --dataset-len 21 --batch-size 2
check "the hinted launch completes" 0 test "$rc" -eq 0
check_output "with the groups agreeing" "^\[rank 0\] mesh: every model-parallel group (0,1; 2,3) received identical" echo "$out"

echo "mesh_launch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
