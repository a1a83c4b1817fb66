#!/usr/bin/env bash
# The plugin's cost to the emulated CPU's host thread, measured with perf rather than by
# timing, so the host's noise does not reach it. The bench guest (scripts/bench/mips.s, 3 s
# by the guest's TOD clock) runs under `perf record -e cpu-clock -c 50000` (a sample per
# 50 us of a thread's CPU time) in each configuration, interleaved REPS times (default 3):
#   baseline   Hercules without the module
#   idle       module loaded, facilities unused
#   counters   all counter sets active
#   samp-13k   basic sampling at 13,333 samples/s (z/OS default 800,000/min)
#   samp-max   basic sampling at QSI's maximum rate
# The CPU thread's samples are split by where they fell: Hercules' own code (libherc: the
# emulation), the plugin, the kernel, the C library. The figure is the emulation's share of
# the CPU thread as a ratio against the baseline's in the same run (the mean over the
# repetitions): the share of the thread's time left to emulate the guest. Work the plugin
# causes inside Hercules' code (cache misses after the sampler armed the opcode table) is
# not in it; scripts/bench.sh measures end to end. DETAIL=1 lists the top symbols outside
# Hercules' code; CONFIGS="samp-13k" runs only those (and the baseline). Needs linux-perf.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}
command -v perf >/dev/null || apt-get install -y -qq linux-perf >/dev/null
. scripts/bench/common.sh
select_configs "baseline idle counters samp-13k samp-max"

run() { # name plugin mode interval: prints "emulation% plugin% kernel% libc% other% iter/cpu-s"
  local name=$1 d="$work/$1" r iters tid
  r=$(run_guest "$@" env ${ENVX:-} perf record -q -e cpu-clock -c 50000 -o "$d/perf.data")
  iters=${r%% *}
  { grep -o 'samples [0-9]* missed [0-9]* .*ticks [0-9]*' "$d/log"
    grep -o 'sampler thread: .*' "$d/log"; } 2>/dev/null | paste -sd ';' > "$d/status" || true
  # The CPU thread is the busiest thread of the process.
  perf script -i "$d/perf.data" -F tid,ip,dso 2>/dev/null > "$d/samples"
  tid=$(awk '{print $1}' "$d/samples" | sort | uniq -c | sort -rn | awk 'NR==1 {print $2}')
  awk -v t="$tid" -v it="$iters" '$1==t {n++; d=$NF;
      if (d ~ /libherc\.so/) h++; else if (d ~ /libhcpumf/) p++; else if (d ~ /kernel/) k++;
      else if (d ~ /libc\.so/) c++; else o++}
    END {printf "%.3f %.3f %.3f %.3f %.3f %.0f\n", 100*h/n, 100*p/n, 100*k/n, 100*c/n, 100*o/n,
         it/(n*0.00005)}' "$d/samples"
}

declare -A results
for rep in $(seq "$REPS"); do
  for c in "${configs[@]}"; do
    set -- $c
    results[$1]+="$(run "$@");"
    [ -s "$work/$1/status" ] && [ "$rep" = "$REPS" ] && echo "$1: $(cat "$work/$1/status")"
  done
done
mean() { tr ';' '\n' | grep -v '^$' | awk -v f="$1" '{s+=$f; n++} END {printf "%.3f", s/n}'; }
base=$(echo "${results[baseline]}" | mean 1)
printf '\nShare of the CPU thread (mean of %s runs, perf cpu-clock):\n' "$REPS"
printf '%-10s %10s %8s %8s %8s %8s %8s %14s\n' config emulation plugin kernel libc other ratio iter/cpu-s
for c in "${configs[@]}"; do
  set -- $c
  r=${results[$1]}
  e=$(echo "$r" | mean 1)
  printf '%-10s %9s%% %7s%% %7s%% %7s%% %7s%% %8s %14s\n' "$1" "$e" "$(echo "$r" | mean 2)" \
    "$(echo "$r" | mean 3)" "$(echo "$r" | mean 4)" "$(echo "$r" | mean 5)" \
    "$(awk -v a="$e" -v b="$base" 'BEGIN {printf "%.4f", a/b}')" "$(echo "$r" | mean 6 | cut -d. -f1)"
done
if [ -n "${DETAIL:-}" ]; then  # where the CPU thread's time outside Hercules went (last run)
  for c in "${configs[@]}"; do
    set -- $c
    d="$work/$1"
    tid=$(awk '{print $1}' "$d/samples" | sort | uniq -c | sort -rn | awk 'NR==1 {print $2}')
    echo "--- $1: top symbols outside Hercules' code, % of the CPU thread"
    perf script -i "$d/perf.data" --tid "$tid" -F ip,sym,dso 2>/dev/null | grep -v libherc | sed "s/^ *[0-9a-f]* //" \
      | sort | uniq -c | sort -rn | head -12 \
      | awk -v n="$(wc -l < "$d/samples")" '{c=$1; $1=""; printf "%7.3f%%%s\n", 100*c/n, $0}'
  done
fi
echo "ratio: the emulation's share against the baseline's; iter/cpu-s: guest loop iterations per"
echo "second of the CPU thread's time (host speed varies on shared machines: compare within a run)."
echo "sampling intervals: 13,333/s = $int13 cycles, max $max_rate/s = $intmax cycles"
