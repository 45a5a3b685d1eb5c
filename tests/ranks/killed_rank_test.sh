#!/usr/bin/env bash
# A rank exits abruptly mid-pass (--die-at-step): every other rank must fail (non-zero) with a message
# naming the dead rank, well within a bound, never hang. Once for a rank that is not the store's host,
# once for rank 0, which is.
set -u
bin=$1
fail=0
bound_ms=60000

scenario() {  # name dead_rank pattern
  local name=$1 dead=$2 pattern=$3
  local start end log rc elapsed
  start=$(date +%s%N)
  log=$(timeout 110 "$bin" launch --nproc 4 --dataset iterable --put-on-device --dataset-len 40 --batch-size 2 \
        --timeout-s 5 --die-at-step 2 --die-rank "$dead" 2>&1)
  rc=$?
  end=$(date +%s%N)
  elapsed=$(((end - start) / 1000000))
  echo "$log"
  echo "$name: exit $rc after ${elapsed} ms (time to failure)"
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then echo "FAIL $name: exit $rc (0 = success, 124 = hang)"; fail=1; fi
  if [ "$elapsed" -ge "$bound_ms" ]; then echo "FAIL $name: ${elapsed} ms >= ${bound_ms} ms"; fail=1; fi
  if ! grep -q "^\[rank $dead\] .*--die-at-step 2: exiting abruptly" <<<"$log"; then
    echo "FAIL $name: rank $dead did not die as asked"; fail=1
  fi
  for r in 0 1 2 3; do
    [ "$r" -eq "$dead" ] && continue
    if ! grep -q "^\[rank $r\] accel-sim-rank: rank $r: the job failed: .*$pattern" <<<"$log"; then
      echo "FAIL $name: rank $r did not fail naming rank $dead ('$pattern')"; fail=1
    fi
    if ! grep -q "^\[launch\] rank $r exited with code 4" <<<"$log"; then
      echo "FAIL $name: rank $r did not exit with code 4 on its own"; fail=1
    fi
  done
}

scenario "rank 2 dies" 2 "rank 2 died or stopped (no heartbeat for"
scenario "rank 0 dies" 0 "rank 0 is gone"
[ "$fail" -eq 0 ] && echo "PASS: killed ranks are named, no hang"
exit "$fail"
