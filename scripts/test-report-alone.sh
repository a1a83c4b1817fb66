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
# cross linker here, so no binary), when rustup can provide their standard libraries. A
# toolchain from Debian's packages (what scripts/setup.sh installs on a fresh Debian 12 or
# 13) has no rustup and no standard library for them: that skip (`no-rustup`) is named in
# the summary and does not fail the suite; rustup failing to install one (`cross-target`)
# does.
for t in x86_64-pc-windows-gnu x86_64-apple-darwin; do
  if command -v rustup >/dev/null && { rustup target list --installed | grep -qx "$t" \
       || timeout 300 rustup target add "$t" >/dev/null 2>&1; }; then
    cargo check --locked --quiet -p hcpumf-formats -p hcpumf-report --all-targets --target "$t"
    echo "hcpumf-report type-checks for $t"
  else
    if command -v rustup >/dev/null; then
      cat=cross-target why="rustup could not install $t's standard library"
    else
      cat=no-rustup why="the Rust toolchain has no rustup (Debian's packages) to install $t's standard library"
    fi
    echo "SKIPPED: hcpumf-report for $t ($why)"
    # Recorded for scripts/test.sh's summary (tests/common/skip.rs's format): not a pass.
    [ -z "${HCPUMF_TEST_RECORDS:-}" ] || printf 'skip\t%s\ttest-report-alone.sh\ttype-check for %s\t%s\n' \
      "$cat" "$t" "$why" >> "$HCPUMF_TEST_RECORDS"
  fi
done
