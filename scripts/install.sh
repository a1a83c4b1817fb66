#!/usr/bin/env bash
# Build the plugin and install it where Hercules looks for modules, so that a plain
# `ldmod hcpumf` works in any configuration. Also installs hcpumf-report.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh
cargo build --release --workspace
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO install -m 0644 target/release/libhcpumf.so /usr/lib/hercules/hcpumf.so
$SUDO install -m 0755 target/release/hcpumf-report /usr/local/bin/hcpumf-report
echo "install: /usr/lib/hercules/hcpumf.so (ldmod hcpumf), /usr/local/bin/hcpumf-report"
