#!/usr/bin/env bash
# What the plugin costs the emulated CPUs, measured with perf rather than by wall-clock
# timing, so that the host's noise does not reach it. The bench guest (scripts/bench/mips.s,
# 3 s by the guest's TOD clock; scripts/bench/mips4.s on 4 CPUs) runs under
# `perf record -e cpu-clock` (a sample per PERF_US, default 500 us, of a thread's CPU time;
# perf's own interrupts slow the CPU thread by about 5% at 500 us and 34% at 50 us) in each
# configuration, interleaved REPS times (default 5):
#   baseline      Hercules without the module (1 CPU)
#   idle          module loaded, facilities unused
#   counters      all counter sets active
#   samp-13k      basic sampling at 13,333 samples/s (z/OS default 800,000/min)
#   samp-max      basic sampling at QSI's maximum rate
#   base-4cpu     Hercules without the module, 4 CPUs running the loop
#   samp13k-4cpu  4 CPUs sampling at 13,333/s each at once
#   base-8cpu, samp13k-8cpu   the same with 8 CPUs (Debian's Hercules has at most 8)
# The headline figure is end to end: guest loop iterations per second of the emulated CPUs'
# threads' CPU time as the kernel accounts it (schedstat, read by the guest-done script),
# as a ratio against the baseline with as many CPUs in the same repetition (the mean, and
# the spread over the repetitions). It includes what the plugin makes Hercules' own code
# pay (cache misses after an arming, the trap). Beside it: the same ratio with perf's
# cpu-clock samples as the CPU time (what this script reported before; perf misstates the
# time of threads that are switched thousands of times a second), the
# share of those threads' time spent in Hercules' own code against the baseline's, the
# split of the rest (plugin, kernel, C library), and the sampler thread's CPU time per
# sample. DETAIL=1 lists the top symbols outside Hercules' code; CONFIGS="samp-13k" runs
# only those (and the baselines). Needs linux-perf (installed if missing).
# HCPUMF_HERCULES=hyperion runs it on SDL Hyperion instead of Debian's 3.13
# (scripts/bench/common.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
PERF_US=${PERF_US:-500}
command -v perf >/dev/null || apt-get install -y -qq linux-perf >/dev/null
. scripts/bench/common.sh
select_configs "baseline baseline2 idle counters samp-13k samp-max base-4cpu samp13k-4cpu base-8cpu samp13k-8cpu"

# run name plugin mode interval ncpu: prints
#   "emulation% plugin% kernel% libc% other% iter/cpu-s sampler-us/sample samples/cpu-s" by
#   perf's samples, then "iter/cpu-s samples/cpu-s sampler-us/sample" by the kernel's accounting
run() {
  local name=$1 ncpu=$5 d="$work/$1" r iters samples
  r=$(run_guest "$@" env ${ENVX:-} perf record -q -e cpu-clock -c $((PERF_US * 1000)) \
    -o "$d/perf.data") || exit 1
  iters=${r%% *}
  { grep -o 'samples [0-9]* missed [0-9]* .*ticks [0-9]*[^;]*' "$d/log"
    grep -o 'sampler thread: .*' "$d/log"; } 2>/dev/null | paste -sd ';' > "$d/status" || true
  samples=$(grep -o 'samples [0-9]*' "$d/log" | awk '{s += $2} END {print s + 0}')
  # One line per sample: "comm tid ip dso", the spaces taken out of the thread's name
  # (Hyperion's CPU threads are "Processor CP00", ...).
  perf script -i "$d/perf.data" -F comm,tid,ip,dso 2>/dev/null \
    | awk '{ for (i = 2; i < NF && $i !~ /^[0-9]+$/; i++) {}
             c = $1; for (j = 2; j < i; j++) c = c $j
             $0 = c " " substr($0, index($0, " " $i " ") + 1); print }' > "$d/samples"
  # The CPU threads are the busiest threads of the process other than the sampler.
  awk '$1 != "hcpumf-sampler" {print $2}' "$d/samples" | sort | uniq -c | sort -rn \
    | head -n "$ncpu" | awk '{print $2}' > "$d/cputids"
  # The kernel's accounting (schedstat, at the end of the run): the CPU threads are the
  # busiest threads other than the sampler; "cpu-ns sampler-ns" (0 0 when not reported).
  kern=$(grep -o 'SCHEDSTAT .*' "$d/log" | awk '$3 != "hcpumf-sampler" {print $4}' | sort -rn \
    | head -n "$ncpu" | awk '{s += $1} END {printf "%.0f", s}')
  kern="${kern:-0} $(grep -o 'SCHEDSTAT .*' "$d/log" | awk '$3 == "hcpumf-sampler" {s = $4} END {print s + 0}')"
  awk -v it="$iters" -v ns="$samples" -v kern="$kern" -v per="$PERF_US" '
    FNR == NR { cpu[$1] = 1; next }
    $1 == "hcpumf-sampler" { sampler++; next }
    ($2 in cpu) { n++; d = $NF;
      if (d ~ /libherc\.so/) h++; else if (d ~ /libhcpumf/) p++; else if (d ~ /kernel/) k++;
      else if (d ~ /libc\.so/) c++; else o++ }
    END { split(kern, kt, " "); kc = kt[1] / 1e9; ks = kt[2] / 1e3
          printf "%.3f %.3f %.3f %.3f %.3f %.0f %.3f %.0f %.0f %.0f %.3f\n", 100*h/n, 100*p/n,
          100*k/n, 100*c/n, 100*o/n, it/(n*per/1e6), (ns > 0 ? sampler*per/ns : 0),
          ns/(n*per/1e6), (kc > 0 ? it/kc : 0), (kc > 0 ? ns/kc : 0), (ns > 0 ? ks/ns : 0) }' \
    "$d/cputids" "$d/samples"
}

declare -A results
for rep in $(seq "$REPS"); do
  for c in "${configs[@]}"; do
    set -- $c
    results[$1]+="$(run "$@");"
    [ -s "$work/$1/status" ] && [ "$rep" = "$REPS" ] && echo "$1: $(cat "$work/$1/status")"
  done
done
# Per-repetition ratios of field $2 of config $1 against baseline $3 (the 1-CPU baseline: the
# mean of its two runs in the repetition, which halves what one run's noise does to every
# ratio).
basefield() {
  if [ "$1" = baseline ]; then
    paste -d' ' <(echo "${results[baseline]}" | field "$2") <(echo "${results[baseline2]}" | field "$2") \
      | awk '{printf "%.6f\n", ($1 + $2) / 2}'
  else
    echo "${results[$1]}" | field "$2"
  fi
}
ratios() { paste -d' ' <(echo "${results[$1]}" | field "$2") <(basefield "$3" "$2") \
  | awk '{printf "%.4f\n", $1/$2}'; }
printf '\nEnd to end and share of the CPU threads (mean of %s interleaved runs):\n' "$REPS"
printf '%-13s %8s %8s %15s %14s %9s %9s %8s %8s %8s %11s %10s\n' config "e2e" median "(spread)" \
  iter/cpu-s "e2e perf" share plugin kernel libc "sampler us" "samples/s"
for c in "${configs[@]}"; do
  set -- $c
  base=baseline; [ "$5" = 1 ] || base=base-${5}cpu
  e2e=$(ratios "$1" 9 "$base" | mean)
  spread=$(ratios "$1" 9 "$base" | sort -n | sed -n '1p;$p' | paste -sd '-')
  share=$(ratios "$1" 1 "$base" | mean)
  r=${results[$1]}
  printf '%-13s %8s %8s %15s %14s %9s %9s %7s%% %7s%% %7s%% %11s %10s\n' "$1" "$e2e" \
    "$(ratios "$1" 9 "$base" | median)" "($spread)" \
    "$(echo "$r" | field 9 | mean | cut -d. -f1)" "$(ratios "$1" 6 "$base" | mean)" "$share" \
    "$(echo "$r" | field 2 | mean)" "$(echo "$r" | field 3 | mean)" "$(echo "$r" | field 4 | mean)" \
    "$(echo "$r" | field 11 | mean)" "$(echo "$r" | field 10 | mean | cut -d. -f1)"
done
if [ -n "${DETAIL:-}" ]; then  # where the CPU threads' time outside Hercules went (last run)
  for c in "${configs[@]}"; do
    set -- $c
    d="$work/$1"
    echo "--- $1: top symbols outside Hercules' code, % of the CPU threads"
    for t in $(cat "$d/cputids"); do
      perf script -i "$d/perf.data" --tid "$t" -F ip,sym,dso 2>/dev/null
    done | grep -v libherc | sed "s/^ *[0-9a-f]* //" | sort | uniq -c | sort -rn | head -12 \
      | awk -v n="$(grep -cFf "$d/cputids" "$d/samples")" '{c=$1; $1=""; printf "%7.3f%%%s\n", 100*c/n, $0}'
  done
fi
echo "e2e: guest loop iterations per second of the CPU threads' CPU time (the kernel's accounting,"
echo "/proc/.../schedstat) against the baseline with as many CPUs in the same repetition (the"
echo "1-CPU baseline: the mean of its two runs); mean, median and spread (lowest-highest) over the"
echo "repetitions; e2e perf: the same with perf's cpu-clock samples as the"
echo "CPU time; share: the threads' time in Hercules' own code against the baseline's (perf);"
echo "plugin, kernel, libc: shares of the CPU threads' perf samples; sampler us: the sampler"
echo "thread's CPU time per sample taken; samples/s: samples taken per second of the CPU"
echo "threads' CPU time (the rate the CPUs sample at, whatever share of a core the host gave them)."
echo "sampling intervals: 13,333/s = $int13 cycles, max $max_rate/s = $intmax cycles"
