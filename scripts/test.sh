#!/usr/bin/env bash
# The project's whole test suite, runnable on a fresh Debian bookworm machine:
# set-up (packages, Hercules source), formatting and lint, the unit tests, and the scripted
# Hercules runs with assembler guests against the plugin, and the report's HTML page in
# headless Chromium (scripts/setup-browser.sh installs it; HCPUMF_BROWSER_TESTS=0: not).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/setup.sh
bash scripts/setup-browser.sh
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets --release -- -D warnings
echo "== build and install (plugin and report tool; ldmod hcpumf works afterwards)"
bash scripts/install.sh
export HCPUMF_SO="$PWD/target/release/libhcpumf.so"
echo "== tests (unit + scripted Hercules runs)"
cargo test --release --no-fail-fast -- --test-threads=2
