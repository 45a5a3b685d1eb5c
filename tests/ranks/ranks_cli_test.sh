#!/usr/bin/env bash
# The command line of real ranks: accel-sim stays free of LibTorch, `accel-sim run` works as torchrun
# runs it (one process per rank, the environment only), and every misuse is one clear line.
set -u
bin=$1
rank_bin=$2
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | head -8; }
expect() {  # name exit pattern command...
  local name=$1 want=$2 pattern=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -eq "$want" ] && grep -q -- "$pattern" <<<"$out"; then ok; else bad "$name: exit $rc (wanted $want), output:" "$out"; fi
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

if ldd "$bin" | grep -q torch; then bad "accel-sim links LibTorch"; else ok; fi
if ldd "$rank_bin" | grep -q libtorch; then ok; else bad "accel-sim-rank does not link LibTorch"; fi

# torchrun's variables, each missing in turn, are named.
vars=(WORLD_SIZE=2 RANK=0 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999)
for i in "${!vars[@]}"; do
  name=${vars[$i]%%=*}
  set_vars=("${vars[@]:0:$i}" "${vars[@]:$((i + 1))}")
  expect "missing $name" 2 "environment variable $name is not set" \
    env -u WORLD_SIZE -u RANK -u LOCAL_RANK -u MASTER_ADDR -u MASTER_PORT "${set_vars[@]}" "$bin" run --dataset-len 10
done

# Issue 31: every integer variable by the one strict rule, WORLD_SIZE within the simulator's limit (65536), and
# MASTER_ADDR checked: each is bad input (exit 2) naming the variable and the rule.
expect "RANK=01" 2 "environment variable RANK must be an integer in \[0, 1\] written in decimal without leading zeros, got '01'" \
  env RANK=01 LOCAL_RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999 "$bin" run --dataset-len 10
expect "WORLD_SIZE=65537" 2 "WORLD_SIZE:\{0,1\} must be an integer in \[1, 65536\], got '65537'" \
  env RANK=0 LOCAL_RANK=0 WORLD_SIZE=65537 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999 "$bin" run --dataset-len 10
out=$(env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1048577 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999 "$rank_bin" --config-json '{}' 2>&1)
if grep -q 1048576 <<<"$out"; then bad "WORLD_SIZE's limit is said as 1048576" "$out"; else ok; fi
expect "MASTER_PORT=0x50" 2 "environment variable MASTER_PORT must be an integer in \[1, 65535\] written with digits only" \
  env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=0x50 "$bin" run --dataset-len 10
expect "MASTER_ADDR=256.1.1.1" 2 "environment variable MASTER_ADDR=256.1.1.1 is not an IPv4 address: part 1 must be an integer in \[0, 255\]" \
  env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=256.1.1.1 MASTER_PORT=29999 "$bin" run --dataset-len 10
expect "MASTER_ADDR=256.1.1.1, rank 1" 2 "MASTER_ADDR=256.1.1.1 is not an IPv4 address" \
  env RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 MASTER_ADDR=256.1.1.1 MASTER_PORT=29999 "$bin" run --dataset-len 10
# A thousand absent ranks are one range, not a thousand numbers on a line.
out=$(env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1025 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$bin" run \
      --dataset-len 2000 --timeout-s 0.1 2>&1)
rc=$?
if [ "$rc" -eq 4 ] && grep -q "ranks 1-1024 have not arrived after" <<<"$out" && [ "$(wc -c <<<"$out")" -lt 400 ]; then ok
else bad "WORLD_SIZE=1025 with rank 0 alone: exit $rc" "$(head -c 600 <<<"$out")"; fi

# accel-sim-rank's own integer flags keep the rule too (010 is not 8).
expect "accel-sim-rank --die-at-step 010" 2 "\-\-die-at-step: must be an integer >= 0 written in decimal without leading zeros, got '010'" \
  env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999 "$rank_bin" --config-json '{}' --die-at-step 010
expect "accel-sim-rank --grad-accum 0x2" 2 "\-\-grad-accum: must be an integer in \[1, 1099511627776\] written with digits only" \
  env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29999 "$rank_bin" --config-json '{}' --grad-accum 0x2

# Issue 31: outputs are checked. An empty --out is refused; a trace or verdict that cannot be written (/dev/full)
# exits 2 naming the path, for `launch` and for `run`.
expect "launch --out ''" 2 "\-\-out: must not be empty (give a FILE)" "$bin" launch --nproc 2 --dataset-len 6 --out ''
expect "run --out ''" 2 "\-\-out: must not be empty (give a FILE)" \
  env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$bin" run --dataset-len 6 --out ''
out=$("$bin" launch --nproc 2 --dataset-len 6 --out /dev/full 2>&1)
rc=$?
# Rank 1's part was done: it acknowledges and exits 0 before rank 0 (and its store) goes.
if [ "$rc" -eq 2 ] && grep -q "^\[rank 0\] .*--out /dev/full: writing the trace failed (No space left on device)" <<<"$out" &&
   ! grep -q "^\[rank 1\].*failed\|^\[launch\] rank 1 exited" <<<"$out"; then ok
else bad "launch --out /dev/full: exit $rc" "$out"; fi
expect "run --out /dev/full" 2 "\-\-out /dev/full: writing the trace failed (No space left on device)" \
  env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$bin" run --dataset-len 6 --out /dev/full
out=$("$bin" launch --nproc 2 --dataset-len 6 2>&1 >/dev/full)
rc=$?
if [ "$rc" -eq 2 ] && grep -q "launch: cannot write to stdout (/dev/full): No space left on device" <<<"$out"; then ok
else bad "launch > /dev/full: exit $rc" "$out"; fi
out=$(env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$bin" run --dataset-len 6 2>&1 >/dev/full)
rc=$?
if [ "$rc" -eq 2 ] && grep -q "writing to stdout failed (No space left on device)" <<<"$out"; then ok
else bad "run > /dev/full: exit $rc" "$out"; fi

# torchrun style: one `accel-sim run` per rank, the environment only.
port=$(free_port)
log0=$(mktemp)
log1=$(mktemp)
trap 'rm -f "$log0" "$log1"' EXIT
RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$bin" run --dataset-len 10 --batch-size 3 \
  --dispatch-batches --put-on-device --timeout-s 20 >"$log1" 2>&1 &
pid1=$!
RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$bin" run --dataset-len 10 --batch-size 3 \
  --dispatch-batches --put-on-device --timeout-s 20 >"$log0" 2>&1
rc0=$?
wait "$pid1"
rc1=$?
if [ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && grep -qE "^identical to the simulator's prediction( \(completed: .*\))?$" "$log0" && grep -q '"ranks"' "$log0"; then ok; else
  bad "torchrun-style run: rank 0 exit $rc0, rank 1 exit $rc1" "$(cat "$log0" "$log1")"; fi

# A rank that never comes is named after the timeout.
expect "absent rank" 4 "rank 1 has not arrived after" env RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 \
  MASTER_PORT="$(free_port)" "$bin" run --dataset-len 10 --timeout-s 2
# Rank 0 never comes: the store cannot be reached.
expect "absent rank 0" 4 "rank 0's TCPStore at 127.0.0.1:.* cannot be reached" env RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 \
  MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$bin" run --dataset-len 10 --timeout-s 2

# Disagreements and configs that cannot run on real ranks.
expect "ranks vs nproc" 2 "--ranks 3 disagrees with the job's 2 ranks" "$bin" launch --nproc 2 --ranks 3 --dataset-len 10
case4=$(dirname "$0")/../../golden/cases/dispatch-iter-n4-b2-l9-nosplit-even-keep.json
expect "config vs world" 2 "the config has num_processes=4 but WORLD_SIZE=2" "$bin" launch --nproc 2 --config "$case4"
randperm=$(ls "$(dirname "$0")"/../../golden/cases/randperm-*.json 2>/dev/null | head -1)
if [ -n "$randperm" ]; then
  expect "non-loader config" 2 "only data-loader configs" "$bin" launch --nproc 1 --config "$randperm"
fi
expect "transport self-check" 0 "^collectives ok (gloo, 3 ranks)" "$bin" launch --nproc 3 --check-collectives
expect "launch: the verdict, prefixed, on stderr" 0 "^\[rank 0\] identical to the simulator's prediction" "$bin" launch --nproc 2 --dataset-len 6 --batch-size 2
# Rank 0's stdout is the trace as it wrote it: a tool reads it (and diffs it with the simulator's).
trace_out=$("$bin" launch --nproc 2 --dataset-len 6 --batch-size 2 2>/dev/null)
rc=$?
if [ "$rc" -eq 0 ] && python3 -c 'import json,sys; t=json.load(sys.stdin); assert t["reference"]["world_size"] == 2' <<<"$trace_out" &&
   { tf=$(mktemp); printf '%s\n' "$trace_out" >"$tf"; "$bin" trace --ranks 2 --dataset-len 6 --batch-size 2 | "$bin" diff - "$tf" >/dev/null; r=$?; rm -f "$tf"; [ "$r" -eq 0 ]; }; then ok; else
  bad "launch's stdout is not a trace: exit $rc" "$trace_out"; fi
# With --out the trace is in the file and the verdict alone on stdout, unprefixed.
trace_file=$(mktemp)
verdict_out=$("$bin" launch --nproc 2 --dataset-len 6 --batch-size 2 --out "$trace_file" 2>/dev/null)
if grep -qE "^identical to the simulator's prediction \(completed: .*\)$" <<<"$verdict_out" && [ "$(wc -l <<<"$verdict_out")" -eq 1 ] &&
   python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$trace_file"; then ok; else
  bad "launch --out: stdout is not the verdict line" "$verdict_out"; fi
rm -f "$trace_file"

# NCCL: without a GPU (or without NCCL in the build) a clear error; with one, a real world-size-1 job.
out=$(env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" \
      "$bin" run --backend nccl --dataset-len 10 --dispatch-batches --put-on-device --timeout-s 10 2>&1)
rc=$?
if { [ "$rc" -eq 2 ] && grep -q "needs a GPU per rank, and none is usable here\|this build has no NCCL" <<<"$out"; } ||
   { [ "$rc" -eq 0 ] && grep -qE "^identical to the simulator's prediction( \(completed: .*\))?$" <<<"$out"; }; then ok; else bad "nccl without a GPU: exit $rc" "$out"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
