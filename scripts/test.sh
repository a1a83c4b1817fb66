#!/usr/bin/env bash
# The project's whole test suite, runnable on a fresh Debian 12 or 13 machine:
# the formats and the report tool with no Hercules anywhere, set-up (packages, Hercules
# source), formatting and lint, the unit tests, and the scripted Hercules runs with
# assembler guests against the plugin, and the report's HTML page in headless Chromium
# (scripts/setup-browser.sh installs it; HCPUMF_BROWSER_TESTS=0: not).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

# The report tool and the formats must build and pass their tests on a machine that has no
# Hercules (an analyst's laptop): run them first, from a copy of the workspace without the
# plugin's Hercules source, with HERCULES_SRC pointing nowhere. Only a Rust toolchain is
# needed here; setup.sh installs one when there is none.
bash scripts/setup.sh rust
echo "== hcpumf-formats and hcpumf-report without Hercules"
bash scripts/test-report-alone.sh

bash scripts/setup.sh
bash scripts/setup-browser.sh
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --release -- -D warnings
echo "== build and install (plugin and report tool; ldmod hcpumf works afterwards)"
bash scripts/install.sh
export HCPUMF_SO="$PWD/target/release/libhcpumf.so"
echo "== tests (unit + scripted Hercules runs)"
cargo test --workspace --release --no-fail-fast -- --test-threads=2
