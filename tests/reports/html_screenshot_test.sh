#!/usr/bin/env bash
# The HTML report as a person sees it: rendered by headless Chromium, screenshotted, and the
# screenshot's pixels checked for the chart colours each config must show, small and large jobs alike; and the
# findings the page opens with, errors first, checked in the pixels and in the DOM Chromium builds.
# Exit 77 (ctest: Skipped) when Chromium is not installed (apt-get install chromium).
# SHOTS_DIR=dir keeps the screenshots there.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "SKIP: chromium is not installed (apt-get install chromium)"; exit 77; fi
py=$(command -v python3)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
shot() {  # name flags... -> $tmp/name.png (HEIGHT=pixels for a taller window)
  local name=$1
  shift
  "$bin" "$@" --html "$tmp/$name.html" > /dev/null || { echo "FAIL $name: accel-sim exited $?"; fail=$((fail + 1)); return 1; }
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="900,${HEIGHT:-1500}" \
    --screenshot="$tmp/$name.png" "file://$tmp/$name.html" > /dev/null 2>&1
  [ -s "$tmp/$name.png" ] || { echo "FAIL $name: no screenshot"; fail=$((fail + 1)); return 1; }
  if [ -n "${SHOTS_DIR:-}" ]; then mkdir -p "$SHOTS_DIR" && cp "$tmp/$name.png" "$tmp/$name.html" "$SHOTS_DIR/"; fi
}
legend=144  # each legend swatch is 12x12 pixels
count() {  # name colour [region] -> pixels
  if [ -n "${3:-}" ]; then
    "$py" "$here/png_colors.py" "$tmp/$1.png" --region "$3" "$2" | awk -v c="$2" '$1 == c {print $2}'
  else
    "$py" "$here/png_colors.py" "$tmp/$1.png" "$2" | awk -v c="$2" '$1 == c {print $2}'
  fi
}
expect() {  # name colour min|zero (zero: nothing but the legend swatch)
  local name=$1 colour=$2 want=$3 n
  n=$(count "$name" "$colour")
  if { [ "$want" = zero ] && [ "$n" -le "$legend" ]; } || { [ "$want" != zero ] && [ "$n" -ge $((want + legend)) ]; }; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: colour #$colour has $n pixels, wanted $want"
    fail=$((fail + 1))
  fi
}
between() {  # name colour lo hi [region]: lo <= pixels <= hi (in the region, when given)
  local n
  n=$(count "$1" "$2" "${5:-}")
  if [ "$n" -ge "$3" ] && [ "$n" -le "$4" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL $1: colour #$2 has $n pixels${5:+ in region $5}, wanted $3-$4"
    fail=$((fail + 1))
  fi
}
once=4c9a4c dup=e8912d dropped=d43c3c batch=3b6fb6 hang=8e24aa
# even_batches on: 23 duplicated ids at the start of the strip, every rank in lock-step, nobody waits.
if shot even --ranks 64 --dataset-len 1001; then
  expect even $once 5000; expect even $dup 200; expect even $batch 5000; expect even $hang zero
fi
# drop_last: the last 41 ids dropped, nothing duplicated.
if shot drop --ranks 64 --dataset-len 1001 --drop-last; then
  expect drop $once 5000; expect drop $dup zero; expect drop $dropped 200
fi
# even_batches off: ranks 0-40 wait at step 15 (the hang colour in the timeline), no duplicates, nothing dropped.
if shot uneven --ranks 64 --dataset-len 1001 --no-even-batches; then
  expect uneven $dup zero; expect uneven $dropped zero; expect uneven $hang 500
fi
# A long job: 8 ranks x 391 steps, ranks 0-4 wait at step 390, the last step. The hang must be drawn, and drawn
# at the right of the timeline where the last steps are (the left half holds only the two legend swatches, the
# waiting rows' labels and the steps chart's 3-pixel marks at step 390 over ranks 0-4: about 2100 pixels).
if shot long --ranks 8 --dataset-len 50000 --batch-size 16 --shuffle --seed 3 --no-even-batches; then
  between long $hang 400 100000 0.5,0,1,1
  between long $hang 0 $((2 * legend + 2400)) 0,0,0.5,1
  # Nothing is dropped or duplicated, so the strip is all "seen once".
  expect long $dropped zero; expect long $once 20000
fi
# Thousands of ranks: 4096 ranks, ranks 0-1060 wait at step 15 of 16. Their row is drawn with the hang colour
# at its last step.
if shot wide --ranks 4096 --dataset-len 1000001 --batch-size 16 --no-even-batches; then
  between wide $hang 400 100000 0.5,0,1,1
fi
# Exact fractions: batch 4096 over 50000 shuffled ids with drop_last keeps 32768 and drops 17232 (34.5 %),
# spread over every bin. The strip (760 x 40) must be about a third red, not a solid red bar.
if shot fraction --ranks 8 --dataset-len 50000 --batch-size 4096 --shuffle --seed 3 --drop-last; then
  between fraction $dropped 10000 20000
  expect fraction $once 15000
fi
# --scheduler: the lr chart is drawn.
if HEIGHT=2600 shot lr --ranks 4 --dataset-len 1000 --batch-size 8 --scheduler cosine --warmup 10 --total-steps 200; then
  expect lr cfe2f3 5000
fi
# Issue 25: the page opens with its findings, errors first. 8 ranks x 391 steps without even_batches hang at step
# 390 (error[uneven-steps-hang], loader section) and the 10-step schedule ends early (a training warning): the first
# severity badge from the top is the error's, above the warning's.
error_badge=b0003a warning_badge=c45f00
if shot findings --ranks 8 --dataset-len 50000 --batch-size 16 --no-even-batches --scheduler linear --total-steps 10; then
  tops=$("$py" "$here/png_colors.py" "$tmp/findings.png" $error_badge $warning_badge |
    awk -v e=$error_badge -v w=$warning_badge '$1 == e {et = $3} $1 == w {wt = $3} END {print et, wt}')
  read -r error_top warning_top <<< "$tops"
  if [ "${error_top:--1}" -ge 0 ] && [ "${warning_top:--1}" -ge 0 ] && [ "$error_top" -lt "$warning_top" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL findings: the error badge starts at pixel row ${error_top:-?}, the warning badge at ${warning_top:-?}"
    fail=$((fail + 1))
  fi
  # The DOM as Chromium built it: it opens with the verdict, then the findings, the first of them the error.
  "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$tmp/findings.html" 2> /dev/null > "$tmp/findings.dom"
  if "$py" "$here/findings_order.py" "$tmp/findings.dom"; then
    pass=$((pass + 1))
  else
    echo "FAIL findings: the page does not open with the verdict and the error"
    fail=$((fail + 1))
  fi
fi
echo "html screenshots: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
