#!/usr/bin/env bash
# Overhead of the plugin as a ratio against plain Hercules, measured in the same run:
# the same guest workload (scripts/bench/mips.s, 3 s by the guest's TOD clock) under
#   baseline   Hercules without the module (and baseline2, the same again: the noise floor)
#   idle       module loaded, facilities unused
#   counters   all counter sets active
#   samp-13k   basic sampling at 13,333 samples/s (z/OS default 800,000/min)
#   samp-max   basic sampling at QSI's maximum rate
# CONFIGS="idle counters" runs only those (and the baseline). Each configuration runs REPS
# times (default 5), interleaved; the best run of each is
# reported (best-of-N: background noise on a shared host only ever slows a run down).
# HCPUMF_HERCULES=hyperion runs it on SDL Hyperion instead of Debian's 3.13
# (scripts/bench/common.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench/common.sh
select_configs "baseline baseline2 idle counters samp-13k samp-max"

run() { # name plugin mode interval: loop iterations per second by the guest's TOD clock
  local r
  r=$(run_guest "$@") || exit 1
  # (TOD: 4096 units per microsecond)
  echo $(( ${r%% *} * 4096 * 1000000 / ${r##* } ))
}

declare -A results
for rep in $(seq "$REPS"); do
  for c in "${configs[@]}"; do
    set -- $c
    results[$1]+="$(run "$@") "
  done
done
best() { tr ' ' '\n' | grep -v '^$' | sort -n | tail -n1; }
base=$(echo "${results[baseline]}" | best)
printf '%-10s %14s %8s   (loop iterations/s of a %s-instruction loop, best of %s)\n' config rate ratio 7 "$REPS"
for c in "${configs[@]}"; do
  set -- $c
  m=$(echo "${results[$1]}" | best)
  printf '%-10s %14s %8s\n' "$1" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.4f", a/b}')"
done
echo "sampling intervals: 13,333/s = $int13 cycles, max $max_rate/s = $intmax cycles"
