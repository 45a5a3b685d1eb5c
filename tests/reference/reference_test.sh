#!/usr/bin/env bash
# The real Accelerate: re-records a sample of golden cases across every family (golden/refresh) and checks that
# they are identical to the committed ones, then runs `accel-sim compare --reference` once end to end.
# Needs the reference environment (golden/setup-reference); without it the test says so and exits 77, which
# ctest reports as Skipped (SKIP_RETURN_CODE), never as passed.
set -u
root=$1
bin=$2
venv="${ACCEL_SIM_REFERENCE_VENV:-$root/build/reference-venv}"
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/VERSIONS.json" ]; then
  echo "reference: NOT RUN: reference environment missing ($venv): run golden/setup-reference"
  exit 77
fi
sample=(
  map-n3-b4-l23-split-even-keep                    # map: the split_batches error
  map-n8-b16-l31-nosplit-even-keep                 # map: even_batches padding that multiplies the data
  iter-n3-b3-l10-split-even-keep                   # iterable: len() that disagrees with what is yielded
  itergen-n2-b2-l10-nosplit-even-keep              # iterable dataset owning a generator, reseeded per epoch
  seed-n2-b3-l10-nosplit-even-keep-globalseed123   # seedable: data_seed=None with torch.manual_seed
  skip-n4-b4-l33-split-even-keep-k12               # skip: k >= len
  skip-seed-n2-b3-l20-k2-s42-s.p.p                 # skip: epoch counters of skipped vs prepared loaders
  bss-var-n3-uneven-7batches                       # BatchSamplerShard over batches of varying size
  randperm-n64-s2147483647                         # SeedableRandomSampler / torch.randperm
  dispatch-map-n4-b1-l1-nosplit-even-keep          # dispatcher in a real gloo group: empty batches
  dispatch-iter-n2-b3-l10-nosplit-even-keep-skip1  # dispatcher + skip_first_batches on an iterable
  sched-onecycle-n2-split-ga1-overrun              # Accelerator loop: OneCycleLR stepped past total_steps
  sched-dist-lin-n2-nosplit-ga2                    # Accelerator loop in a real gloo group (DDP)
  sched-direct-step-n3-nosplit-noadjust-skipped    # AcceleratedScheduler.step driven directly
  metrics-iter-n2-b3-l10-nodispatch                # gather_for_metrics keeps an iterable shard's padding
  metrics-map-n4-b1-l1-dispatch                    # a tensor gather of unequal sizes refused, gloo group
  resume-rand-n1-e0s2-skipfirstbatches             # save_state / load_state across two process groups
  accel-iter-n1-b4-l1-droplast-nobatch             # Accelerator(): one process, no group, a dispatcher with no batch
  rs-gen-n2-b2-l10-g5                              # the DataLoader's _base_seed draw from the user's generator
  seed-ovf-n2-b2-l6-datamax                        # data_seed + epoch past 2^64: torch's overflow error
)
pass=0
fail=0
refresh_out=$("$root/golden/refresh" "${sample[@]}" 2>&1)
refresh_rc=$?
echo "$refresh_out"
identical=$(grep -c ': identical$' <<<"$refresh_out")
pass=$((pass + identical))
fail=$((fail + ${#sample[@]} - identical))
if [ "$refresh_rc" -ne 0 ] && [ "$identical" -eq ${#sample[@]} ]; then fail=$((fail + 1)); fi
out=$("$bin" compare --reference --ranks 8 --dataset-len 1001 --batch-size 4 --no-even-batches 2>&1)
rc=$?
echo "compare --reference --ranks 8 --dataset-len 1001 --batch-size 4 --no-even-batches: $out"
if [ "$rc" -eq 0 ] && [ "$out" = "identical" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
echo "reference: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
