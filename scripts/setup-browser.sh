#!/usr/bin/env bash
# Debian's Chromium for the browser test of hcpumf-report's HTML page (tests/report_html.rs,
# which renders the page headless, and records a skip when no browser is installed).
# Idempotent; scripts/test.sh runs it before the tests unless HCPUMF_BROWSER_TESTS=0.
set -euo pipefail
if [ "${HCPUMF_BROWSER_TESTS:-1}" = 0 ]; then
  echo "setup-browser: HCPUMF_BROWSER_TESTS=0, no browser installed (the page's browser test will record an allowed skip)"
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
if ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed"; then
  echo "setup-browser: installing chromium"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi
echo "setup-browser: $(chromium --version 2>/dev/null | head -1)"
