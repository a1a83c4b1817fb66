#!/usr/bin/env bash
# Regenerate include/hcpumf.h (the C declarations of the Rust hooks) with cbindgen.
set -euo pipefail
cd "$(dirname "$0")/.."
HCPUMF_UPDATE_HEADER=1 cargo build --lib
echo "include/hcpumf.h updated"
