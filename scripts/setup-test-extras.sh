#!/usr/bin/env bash
# What only the test suite needs beyond the build: headless Chromium (the HTML report's screenshot test)
# and the reference environment with the real Accelerate (the `reference` test). Either failing leaves
# its test Skipped, never passed; a second run is a no-op.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing chromium (HTML screenshot test)" >&2
  install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }
  install || { apt-get update -qq && install; } ||
    echo "setup: warning: chromium could not be installed; html_screenshot will be Skipped" >&2
fi
golden/setup-reference >/dev/null ||
  echo "setup: warning: the reference environment could not be set up; the reference test will be Skipped" >&2
exit 0
