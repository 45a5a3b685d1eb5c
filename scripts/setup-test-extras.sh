#!/usr/bin/env bash
# What only the test suite needs beyond the build: headless Chromium (the HTML report's screenshot test), Debian's
# python3-venv/-dev/-pytest (the Python package test) and the reference environment with the real Accelerate (the
# `reference` test, and the Python package test's Accelerate). Any of them failing leaves its test Skipped, never
# passed; a second run is a no-op.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing chromium (HTML screenshot test)" >&2
  install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }
  install || { apt-get update -qq && install; } ||
    echo "setup: warning: chromium could not be installed; html_screenshot will be Skipped" >&2
fi
# The Python package's test (label python): venv + headers for Debian's python3, and pytest; python3-torch comes
# with the reference environment below.
py_missing=()
for p in python3-venv python3-dev python3-pytest; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || py_missing+=("$p")
done
if [ ${#py_missing[@]} -gt 0 ]; then
  echo "setup: installing ${py_missing[*]} (Python package test)" >&2
  install_py() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${py_missing[@]}" >/dev/null; }
  install_py || { apt-get update -qq && install_py; } ||
    echo "setup: warning: ${py_missing[*]} could not be installed; python_package will be Skipped" >&2
fi
golden/setup-reference >/dev/null ||
  echo "setup: warning: the reference environment could not be set up; the reference test will be Skipped" >&2
exit 0
