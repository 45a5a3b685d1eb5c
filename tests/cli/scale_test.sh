#!/usr/bin/env bash
# Issue 48: the issue's rows answer from the loaders' structure, not a replay: exact counts, and ids only when
# drawn. The expected figures are arithmetic on the configuration, not the tool's output. No timing is asserted
# (the 20-second timeout only stops a run that went back to drawing 10^9 positions).
set -u
bin=$1
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
t() { timeout 20 "$@"; }

# Issue 48: undrawn, a shuffle of 10^12 samples is a permutation whose counts need no draw.
check_output "dataset-len 1e12 shuffled, counted" "note\[ids-not-drawn\]: the shuffle of 1000000000000 samples was not drawn" \
  t "$bin" --dataset-len 1000000000000 --shuffle --ranks 2
# The issue's row: 31,250,000 full batches over 4096 ranks take 7630 rounds, padded from the epoch's start.
json_field "4096 ranks x 1e9 shuffled, counted" "True" \
  "j['scenarios'][0]['duplicated'] == 7630 * 4096 * 32 - 10**9 and not j['scenarios'][0]['ids_drawn'] and j['scenarios'][0]['duplicated_ids'] == [] and j['passes']['per_pass'][0]['ids_drawn'] is False" \
  t "$bin" --ranks 4096 --dataset-len 1000000000 --batch-size 32 --shuffle --seed 7 --json
json_field "a drawn shuffle names its ids" "True" \
  "j['scenarios'][0]['ids_drawn'] and len(j['scenarios'][0]['duplicated_ids']) == 4 * 4 - 10" \
  t "$bin" --ranks 4 --dataset-len 10 --batch-size 4 --shuffle --seed 7 --json
# upgrade past 2^22 replayed positions compares the structure: 3 epochs x 10^7 samples = 30,000,000 positions.
check_output "upgrade 64 x 1e7 x 3 epochs, structure" "not replayed: each release's passes hold 30000000 sample positions" \
  t "$bin" upgrade --from 0.14.0 --to 1.15.0 --ranks 64 --dataset-len 10000000 --shuffle --epochs 3
check_output "upgrade structure keeps the rules" "shuffle: 0.14.0: an unseeded torch.Generator()" \
  t "$bin" upgrade --from 0.14.0 --to 1.15.0 --ranks 64 --dataset-len 10000000 --shuffle --epochs 3
check_lacks "upgrade structure claims no sameness" "nothing changes" \
  t "$bin" upgrade --from 1.15.0 --to 1.16.0 --ranks 64 --dataset-len 10000000 --epochs 3
check_output "upgrade within the limit replays" "order changes, and with it the rank's samples" \
  t "$bin" upgrade --from 0.14.0 --to 1.15.0 --ranks 4 --dataset-len 1000 --shuffle --epochs 3

echo "scale: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
