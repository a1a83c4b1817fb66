#!/usr/bin/env bash
# The floor under the sampler's cost per sample: what one timed wake-up of a thread costs in
# its own CPU time on this host, at the intervals of 13,333 and 20,000 samples/s (and at 1 ms
# for comparison). Any design that wakes a thread once per sample pays at least this per
# sample; bench-cost.sh reports the sampler's real figure. REPS runs each (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/wake" scripts/bench/wake.c
for rep in $(seq "${REPS:-3}"); do
  for p in 75000 50000 1000000; do
    n=$((3000000000 / p))
    "$work/wake" "$p" "$n"
  done
done
