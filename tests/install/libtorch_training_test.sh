#!/usr/bin/env bash
# examples/libtorch_training over 2 real Gloo ranks: the sample ids each rank trained on, pass by pass, must equal
# that rank's batches in `accel-sim trace` for the same flags; the ranks must end with bit-identical weights (the
# gradient all_reduce ran every step) and a lower loss than they started with. A config whose ranks would fall out
# of step must be refused, not hang.
# usage: libtorch_training_test.sh LIBTORCH_TRAINING ACCEL_SIM TRACE_BATCHES
set -uo pipefail
example="$1" accel_sim="$2" trace_batches="$3"
tmp="$(mktemp -d /tmp/accel-sim-libtorch-test.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

# The example's --shuffle is the seedable sampler (it prepares with use_seedable_sampler=True); accel-sim's flags
# follow prepare_data_loader's default (False), so the comparison asks for it.
seedable_when_shuffled() { for a in "$@"; do [ "$a" = --shuffle ] && echo --use-seedable-sampler; done; return 0; }
check_job() {
  local name="$1"
  shift
  local dir="$tmp/$name"
  mkdir -p "$dir"
  if ! timeout 240 "$example" "$@" --out-dir "$dir" >"$dir/stdout" 2>&1; then
    cat "$dir/stdout"; fail "$name: the training job runs"; return
  fi
  cat "$dir/stdout"
  "$accel_sim" trace --api prepare_data_loader "$@" $(seedable_when_shuffled "$@") >"$dir/trace.json" || { fail "$name: accel-sim trace"; return; }
  local ranks
  ranks="$(sed -n 's/.*--ranks \([0-9]*\).*/\1/p' <<<"$*")"
  for ((r = 0; r < ranks; r++)); do
    "$trace_batches" "$dir/trace.json" "$r" >"$dir/expected$r" || { fail "$name: trace has rank $r"; continue; }
    grep '^epoch ' "$dir/rank$r.txt" >"$dir/consumed$r"
    if [ -s "$dir/expected$r" ] && diff -u "$dir/expected$r" "$dir/consumed$r"; then
      pass "$name: rank $r trained on the trace's ids ($(wc -l <"$dir/consumed$r") batches)"
    else
      fail "$name: rank $r trained on the trace's ids"
    fi
  done
  if [ "$(grep -h '^weights:' "$dir"/rank*.txt | sort -u | wc -l)" -eq 1 ]; then
    pass "$name: every rank ends with the same weights"
  else
    grep -H '^weights:' "$dir"/rank*.txt; fail "$name: every rank ends with the same weights"
  fi
  if awk '/first step/ { gsub(",", ""); for (i = 1; i <= NF; i++) { if ($i == "first") f = $(i + 2); if ($i == "last") l = $(i + 2) } }
          END { exit !(f != "" && l + 0 < f + 0) }' "$dir/stdout"; then
    pass "$name: the loss went down"
  else
    fail "$name: the loss went down"
  fi
}

check_job shuffled-resumed --ranks 2 --dataset-len 37 --batch-size 4 --shuffle --seed 42 --epochs 3 --skip-batches 2
check_job split-drop-last --ranks 2 --dataset-len 30 --batch-size 6 --split-batches --drop-last --epochs 2

# even_batches=False with 5 samples: rank 0 gets 2 batches, rank 1 one; the example must say so and exit non-zero.
if out="$(timeout 120 "$example" --ranks 2 --dataset-len 5 --batch-size 2 --no-even-batches --out-dir "$tmp" 2>&1)"; then
  printf '%s\n' "$out"; fail "uneven ranks are refused"
elif grep -q "would hang" <<<"$out"; then
  pass "uneven ranks are refused (no hang)"
else
  printf '%s\n' "$out"; fail "uneven ranks are refused with the reason"
fi

[ $failures -eq 0 ] || { echo "$failures failed"; exit 1; }
