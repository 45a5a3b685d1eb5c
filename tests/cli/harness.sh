# Sourced by the CLI test scripts: run a command as a user would and count what held. Each script prints
# "<name>: N passed, M failed" at the end and exits non-zero when anything failed.
pass=0
fail=0
check() {  # name expected_exit command...
  local name=$1 want=$2
  shift 2
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -eq "$want" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name: exit $rc, wanted $want"; echo "$out" | head -5; fi
}
check_output() {  # name pattern command...
  local name=$1 pattern=$2
  shift 2
  local out
  out=$("$@" 2>&1)
  if echo "$out" | grep -q -- "$pattern"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name: output lacks '$pattern'"; echo "$out" | head -5; fi
}
check_lacks() {  # name pattern command...: the output must not say it
  local name=$1 pattern=$2
  shift 2
  local out
  out=$("$@" 2>&1)
  if echo "$out" | grep -q -- "$pattern"; then fail=$((fail + 1)); echo "FAIL $name: output has '$pattern'"; else pass=$((pass + 1)); fi
}
json_field() {  # name expected python-expression command...: the expression over the command's JSON output `j`
  local name=$1 want=$2 expr=$3
  shift 3
  local got
  got=$("$@" 2>/dev/null | python3 -c "import json,sys; j=json.load(sys.stdin); print($expr)" 2>&1)
  if [ "$got" = "$want" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name: got '$got', wanted '$want'"; fi
}
exits() {  # name expected_exit pattern command...: the exit code and a line of the output
  local name=$1 want=$2 pattern=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -eq "$want" ] && echo "$out" | grep -q -- "$pattern"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc (wanted $want), output: $(echo "$out" | head -3)"
  fi
}
