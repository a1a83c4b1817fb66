#!/usr/bin/env bash
# hcpumf-formats and hcpumf-report on their own, as on a machine with no Hercules: neither
# the plugin nor a Hercules source tree is in their build (checked with `cargo tree`), their
# tests pass with HERCULES_SRC pointing nowhere, and `cargo install` of the report tool works.
# scripts/test.sh runs this before the set-up installs Hercules.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export HERCULES_SRC=/nonexistent/hercules
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

deps=$(cargo tree --locked -p hcpumf-report -e normal,build --prefix none --format '{p}')
if grep -Eq '^(hcpumf|hcpumf-arch|cc|bindgen|cbindgen) ' <<<"$deps"; then
  echo "test-report-alone: hcpumf-report depends on the plugin's build:" >&2
  grep -E '^(hcpumf|hcpumf-arch|cc|bindgen|cbindgen) ' <<<"$deps" >&2
  exit 1
fi
echo "hcpumf-report builds from: $(grep -c . <<<"$deps") crates, none of them the plugin, cc or bindgen"
cargo test --locked --release -p hcpumf-formats -p hcpumf-report --lib --bins --test report_cli
cargo install --locked --quiet --path crates/report --root "$tmp"
"$tmp/bin/hcpumf-report" --version

# Windows and macOS: type-check the report and everything it uses for those targets (no
# cross linker here, so no binary), when rustup can provide their standard libraries.
for t in x86_64-pc-windows-gnu x86_64-apple-darwin; do
  if command -v rustup >/dev/null && { rustup target list --installed | grep -qx "$t" \
       || timeout 300 rustup target add "$t" >/dev/null 2>&1; }; then
    cargo check --locked --quiet -p hcpumf-formats -p hcpumf-report --all-targets --target "$t"
    echo "hcpumf-report type-checks for $t"
  else
    why="rustup could not install $t's standard library"
    echo "SKIPPED: hcpumf-report for $t ($why)"
    # Recorded for scripts/test.sh's summary (tests/common/skip.rs's format): not a pass.
    [ -z "${HCPUMF_TEST_RECORDS:-}" ] || printf 'skip\tcross-target\ttest-report-alone.sh\ttype-check for %s\t%s\n' \
      "$t" "$why" >> "$HCPUMF_TEST_RECORDS"
  fi
done
