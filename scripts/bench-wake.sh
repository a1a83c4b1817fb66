#!/usr/bin/env bash
# The floor under the sampler's cost per sample: what one timed wake-up of a thread costs in
# its own CPU time on this host, at the intervals of 13,333 and 20,000 samples/s (and at 1 ms
# for comparison). Any design that wakes a thread once per sample pays at least this per
# sample; bench-cost.sh reports the sampler's real figure. REPS runs each (default 3).
# Then the floor with the cores full (scripts/bench/wake-busy.c): BUSY threads (default twice
# the host's cores, as 4 guest CPUs on 2 cores) spin, and a thread that wakes at 13,333/s and
# does nothing (ordinary, then real-time), or a timer signal to each spinning thread, costs
# their work per CPU-second what the output says: the least any sampler that wakes once per
# interval can cost them (the real-time figure; "sleeps/s" says how often the waker really
# slept, which an ordinary one put off by the busy threads does far less than it should).
# As root, "rr" makes the busy threads SCHED_RR and the waker SCHED_FIFO above them, as SDL
# Hyperion's CPU threads and the plugin's sampler are when they fill the cores.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/wake" scripts/bench/wake.c
cc -O2 -o "$work/wake-busy" scripts/bench/wake-busy.c -lpthread
for rep in $(seq "${REPS:-3}"); do
  for p in 75000 50000 1000000; do
    n=$((3000000000 / p))
    "$work/wake" "$p" "$n"
  done
done
busy=${BUSY:-$((2 * $(nproc)))}
for rep in $(seq "${REPS:-3}"); do
  "$work/wake-busy" "$busy" 75000 3
done
