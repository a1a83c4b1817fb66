#!/usr/bin/env bash
# The project's whole test suite, runnable on a fresh Debian 12 or 13 machine: the formats
# and the report tool with no Hercules anywhere, set-up (packages, Hercules source),
# formatting and lint, the unit tests, the scripted Hercules runs with assembler guests and
# the Linux guests against the plugin on Debian's Hercules 3.13, the report's HTML page in
# headless Chromium (scripts/setup-browser.sh installs it; HCPUMF_BROWSER_TESTS=0: not), and
# then the scripted runs again on SDL Hyperion (built once and cached by
# scripts/hyperion.sh) with the plugin built against it, and Hyperion's own instruction
# tests with the plugin loaded (HCPUMF_HYPERION=0: not, a skip that fails the suite unless
# allowed).
#
# It ends with the time of each step, `N passed, N failed, N skipped` and every skipped test
# with its reason (scripts/test-summary.py; docs/testing.md, "Skips"). A skip fails the
# suite unless its category is allowed: `hercules` (a test about the other Hercules) always,
# others when HCPUMF_ALLOW_SKIP lists them (e.g. HCPUMF_ALLOW_SKIP=download on a machine with
# no network; HCPUMF_BROWSER_TESTS=0 allows `browser`). Logs: target/test-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
# The 3.13 part runs Debian's hercules whatever the caller's environment says.
unset HCPUMF_HERCULES HCPUMF_HERCULES_BIN
logs=$root/target/test-logs
rm -rf "$logs"
mkdir -p "$logs"
steps=$logs/steps.tsv
: > "$steps"
scripts_records=$logs/scripts.records
: > "$scripts_records"
summary=(--steps "$steps" --records scripts "$scripts_records")
SECONDS=0

# step NAME COMMAND...: run it, time it, record `ok` or `exit N` for the summary. A failed
# step does not end the suite by itself: what comes after it decides (`|| finish`).
step() {
  local name=$1
  shift
  local t0=$SECONDS rc=0
  echo "== $name"
  "$@" || rc=$?
  local st=ok
  [ "$rc" = 0 ] || st="exit $rc"
  printf '%s\t%s\t%s\n' "$name" "$st" $((SECONDS - t0)) >> "$steps"
  echo "== $name: $st in $((SECONDS - t0)) s"
  return "$rc"
}

finish() {
  local rc=0
  python3 scripts/test-summary.py "${summary[@]}" || rc=$?
  echo "scripts/test.sh: $((SECONDS / 60)) min $((SECONDS % 60)) s in all"
  exit "$rc"
}

# cargo_tests LABEL RECORDS [VAR=VALUE...] -- CARGO-TEST-ARGS...: cargo test in that
# environment, its output and its skip records kept for the summary.
cargo_tests() {
  local label=$1 records=$2
  shift 2
  local envs=()
  while [ "$1" != -- ]; do
    envs+=("$1")
    shift
  done
  shift
  : > "$records"
  summary+=(--cargo "$label" "$logs/$label.out" "$records")
  env "${envs[@]}" HCPUMF_TEST_RECORDS="$records" cargo test "$@" 2>&1 | tee "$logs/$label.out"
}

skip_step() { # skip_step CATEGORY NAME REASON: a step that did not run, recorded as a skip
  printf 'skip\t%s\ttest.sh\t%s\t%s\n' "$1" "$2" "$3" >> "$scripts_records"
  echo "== $2: SKIPPED ($1): $3"
}

# The report tool and the formats must build and pass their tests on a machine that has no
# Hercules (an analyst's laptop): run them first, from a copy of the workspace without the
# plugin's Hercules source, with HERCULES_SRC pointing nowhere. Only a Rust toolchain is
# needed here; setup.sh installs one when there is none.
step "set-up: Rust" bash scripts/setup.sh rust || finish
step "hcpumf-formats and hcpumf-report without Hercules" \
  env HCPUMF_TEST_RECORDS="$scripts_records" bash scripts/test-report-alone.sh || true

step "set-up: packages, Hercules 3.13 source" bash scripts/setup.sh || finish
step "set-up: Chromium" bash scripts/setup-browser.sh || true
if [ "${HCPUMF_BROWSER_TESTS:-1}" = 0 ]; then
  # The browser test was switched off on purpose: its skip is allowed.
  export HCPUMF_ALLOW_SKIP="${HCPUMF_ALLOW_SKIP:-} browser"
fi
step "cargo fmt --check" cargo fmt --all -- --check || true
step "cargo clippy" cargo clippy --workspace --all-targets --release -- -D warnings || true
# (Installed so that `ldmod hcpumf` works afterwards.)
step "build and install the plugin and the report tool" bash scripts/install.sh || finish

# Hercules 3.13: every test of the workspace, the Linux guests and the browser included.
# Two Hercules runs go at once.
export HCPUMF_SO="$root/target/release/libhcpumf.so"
# (HCPUMF_HERCULES unset: 3.13 for the tests, and for build.rs as install.sh built it.)
step "tests 3.13" cargo_tests "tests 3.13" "$logs/313.records" -- \
  --workspace --release --no-fail-fast -- --test-threads=2 || true

# SDL Hyperion: the plugin's tests (unit tests and every scripted run, the Linux guests
# included) with the plugin built against Hyperion's tree in its own target directory, then
# Hyperion's own instruction tests with that plugin loaded.
hyperion_env() {
  local script=scripts/hyperion.sh
  if [ ! -f "$script" ]; then
    # Until scripts/hyperion.sh is in the tree: a copy elsewhere (HCPUMF_HYPERION_SH), or a
    # built tree named by HYPERION_SRC and HYPERION_HERCULES.
    script=${HCPUMF_HYPERION_SH:-}
    export HCPUMF_HYPERION_TARBALL=${HCPUMF_HYPERION_TARBALL:-$(ls "$root"/../shared/vendor/sdl-hyperion-*.tar.xz 2>/dev/null | head -n1)}
  fi
  if [ -n "$script" ]; then
    local out
    out=$(bash "$script") || return 1
    set -a
    eval "$out"
    set +a
  fi
  [ -n "${HYPERION_SRC:-}" ] && [ -x "${HYPERION_HERCULES:-}" ] || {
    echo "test.sh: no SDL Hyperion: scripts/hyperion.sh is missing and HCPUMF_HYPERION_SH," \
      "HYPERION_SRC/HYPERION_HERCULES name none" >&2
    return 1
  }
  echo "SDL Hyperion: $HYPERION_HERCULES, source $HYPERION_SRC"
}

hyperion_runtest() {
  local dir=$logs/hyperion-runtest so=$1
  local priv=()
  # As root Hyperion makes its threads SCHED_RR; HCPUMF_HYPERION_THREADS=ordinary drops
  # CAP_SYS_NICE so that they stay ordinary, as everywhere else in the suite.
  [ "$(id -u)" != 0 ] || [ "${HCPUMF_HYPERION_THREADS:-}" != ordinary ] ||
    priv=(setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice)
  mkdir -p "$dir"
  local rc=0
  # runtest writes allTests.* into the current directory; -l loads the plugin into the
  # Hercules that runs every test, before the configuration.
  (cd "$dir" && "${priv[@]}" "$HYPERION_SRC/tests/runtest" -d "$HYPERION_SRC/tests" \
    -h "$HYPERION_SRC" -p "$HYPERION_SRC/.libs" -l "$so" > runtest.log 2>&1) || rc=$?
  summary+=(--runtest "Hyperion's own tests" "$dir/runtest.log")
  tail -n 3 "$dir/runtest.log"
  # Loaded with -l, before the configuration, the module gets no HHC01527I: its own banner
  # says it is in, and no HDL message that it was refused.
  if ! grep -q "HHCMF000I" "$dir/allTests.out" 2>/dev/null \
     || grep -E "HHC01509I|HHC01510I|HHC01516E|HHC01518E" "$dir/allTests.out"; then
    echo "test.sh: the plugin was not loaded into Hyperion's tests ($dir/allTests.out)" >&2
    return 1
  fi
  if grep -E "HHCMF999E|panicked|HHCMF09[0-9]E" "$dir/allTests.out"; then
    echo "test.sh: the plugin failed during Hyperion's tests ($dir/allTests.out)" >&2
    return 1
  fi
  return "$rc"
}

if [ "${HCPUMF_HYPERION:-1}" = 0 ]; then
  skip_step hyperion "SDL Hyperion: every test" "HCPUMF_HYPERION=0"
elif step "SDL Hyperion: build or find it (scripts/hyperion.sh)" hyperion_env \
  && step "SDL Hyperion: build the plugin for it (target/hyperion)" \
       env HCPUMF_HERCULES=hyperion CARGO_TARGET_DIR=target/hyperion HERCULES_SRC="$HYPERION_SRC" \
       cargo build --release -p hcpumf; then
  hso=$root/target/hyperion/release/libhcpumf.so
  step "tests hyperion" cargo_tests "tests hyperion" "$logs/hyperion.records" \
    HCPUMF_HERCULES=hyperion HCPUMF_HERCULES_BIN="$HYPERION_HERCULES" HCPUMF_SO="$hso" \
    HCPUMF_REPORT="$root/target/release/hcpumf-report" CARGO_TARGET_DIR=target/hyperion \
    HERCULES_SRC="$HYPERION_SRC" -- --release -p hcpumf --no-fail-fast -- --test-threads=2 || true
  step "SDL Hyperion: its own instruction tests, the plugin loaded" hyperion_runtest "$hso" || true
fi
finish
