#!/usr/bin/env bash
# The HTML report as a person sees it: rendered by headless Chromium, screenshotted, and the
# screenshot's pixels checked for the chart colours each config must show. Exit 77 (ctest: Skipped)
# when Chromium is not installed (apt-get install chromium).
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
shot() {  # name flags... -> $tmp/name.png
  local name=$1
  shift
  "$bin" "$@" --html "$tmp/$name.html" > /dev/null || { echo "FAIL $name: accel-sim exited $?"; fail=$((fail + 1)); return 1; }
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=900,1500 \
    --screenshot="$tmp/$name.png" "file://$tmp/$name.html" > /dev/null 2>&1
  [ -s "$tmp/$name.png" ] || { echo "FAIL $name: no screenshot"; fail=$((fail + 1)); return 1; }
}
legend=144  # each legend swatch is 12x12 pixels
expect() {  # name colour min|zero (zero: nothing but the legend swatch)
  local name=$1 colour=$2 want=$3 n
  n=$("$py" "$here/png_colors.py" "$tmp/$name.png" "$colour" | awk -v c="$colour" '$1 == c {print $2}')
  if { [ "$want" = zero ] && [ "$n" -le "$legend" ]; } || { [ "$want" != zero ] && [ "$n" -ge $((want + legend)) ]; }; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: colour #$colour has $n pixels, wanted $want"
    fail=$((fail + 1))
  fi
}
seen=4c9a4c dup=e8912d bad=d43c3c active=3b6fb6
# even_batches on: 23 duplicated ids at the start of the strip, every rank in lock-step.
if shot even --ranks 64 --dataset-len 1001; then
  expect even $seen 5000; expect even $dup 200; expect even $active 5000; expect even $bad 1
fi
# drop_last: the last 41 ids dropped, nothing duplicated.
if shot drop --ranks 64 --dataset-len 1001 --drop-last; then
  expect drop $seen 5000; expect drop $dup zero; expect drop $bad 200
fi
# even_batches off: ranks 0-40 wait at step 15 (red in the timeline), no duplicates.
if shot uneven --ranks 64 --dataset-len 1001 --no-even-batches; then
  expect uneven $dup zero; expect uneven $bad 500
fi
echo "html screenshots: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
