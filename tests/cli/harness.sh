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
