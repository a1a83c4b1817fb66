#!/usr/bin/env bash
# The cost of basic sampling measured inside one Hercules run, where the host's noise
# cancels: scripts/bench/mipsab.s runs mips.s's loop for 6 s in 40 ms phases that alternate
# between sampling enabled but inactive (A) and active (B). The figure is B's loop rate
# against A's, so a host that slows down for a second slows about as many A as B phases.
# Two rates, each summed over the phases of a kind:
#   per CPU-second  iterations per cycle of the basic counter set's cycle count, read with
#                   ECCTR at each phase's ends: the host CPU time of the CPU's thread (the
#                   plugin reads the thread's clock exactly for ECCTR). This is issue 11's
#                   measure: guest iterations per CPU-second of the emulated CPU's thread.
#   per TOD second  iterations per unit of the guest's TOD clock (wall time), which also
#                   charges preemption of the CPU thread to the phase it happens in: stricter.
# Configurations, interleaved REPS times (default 5):
#   ab-none   B phases inactive too: the method's own noise floor (1.0 expected)
#   ab-13k    B phases sample at 13,333 samples/s (z/OS default 800,000/min)
#   ab-max    B phases sample at QSI's maximum rate
#   ab-ctr    B phases count with all four counter sets instead (per TOD second only: the
#             A phases have no active set to count their cycles)
#   ab-13k-nc, ab-max-nc (only when named in CONFIGS): the same without the counter set,
#             per TOD second only, to show that counting the cycles changes nothing
# A phases run with the plugin loaded and sampling inactive, which costs the CPU thread
# nothing (`scripts/bench-cost.sh`, idle: the opcode table is untouched), so B/A is the
# end-to-end ratio with the sampler's cache misses and the CPU thread's own time all in it.
# CONFIGS="ab-max" runs only those; ENVX="VAR=value" sets Hercules' environment; CNFX="TIMERINT
# 1000" adds a line to Hercules' configuration; VERBOSE=1 prints each run's figures as it ends.
# HCPUMF_HERCULES=hyperion runs it on SDL Hyperion instead of Debian's 3.13
# (scripts/bench/common.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench/common.sh
# guest mode, the sum of: 2 the B phases sample, 1 the basic counter set counts cycles, 4
# the B phases count with all sets
configs=("ab-none 1 1 $int13 1" "ab-ctr 1 4 $int13 1" "ab-13k 1 3 $int13 1" "ab-max 1 3 $intmax 1"
         "ab-13k-nc 1 2 $int13 1" "ab-max-nc 1 2 $intmax 1")
want=" ${CONFIGS:-ab-none ab-ctr ab-13k ab-max} "
sel=(); for c in "${configs[@]}"; do [[ "$want" == *" ${c%% *} "* ]] && sel+=("$c"); done
configs=("${sel[@]}")

# pair_medians LOG: from the guest's records of its first 160 phases (A even, B odd), the
# median over the pairs (phase 2k, 2k+1) of B's rate against A's, per TOD second and per
# CPU-second ("-" without cycles). A stop of the CPU thread by the host (SDL Hyperion's
# SCHED_RR thread is stopped 50 ms a second by the kernel's real-time throttling) falls in
# one phase of a pair and moves the mean of a 6-s run by percents; it moves this median by
# at most one pair.
pair_medians() {
  local a log=$1
  for ((a = 0x8000; a < 0x9400; a += 0x10)); do
    set -- $(display "$(printf '%X' $a)" "$log")
    [ $# = 2 ] || set -- 0 0
    echo $((16#$1)) $((16#$2))
  done | awk 'BEGIN {n = 0} NR % 2 == 1 {it[n] = $1; tod[n] = $2; next} {cyc[n++] = $1}
    function med(v, k,   i, j, t) {
      for (i = 2; i <= k; i++)
        for (j = i; j > 1 && v[j-1] > v[j]; j--) {t = v[j]; v[j] = v[j-1]; v[j-1] = t}
      return k % 2 ? v[(k+1)/2] : (v[k/2] + v[k/2+1]) / 2 }
    END {
      for (p = 0; 2 * p + 1 < n; p++) {
        a = 2 * p; b = a + 1
        if (it[a] == 0 || it[b] == 0 || tod[a] == 0 || tod[b] == 0) break
        rt[++kt] = (it[b] / tod[b]) / (it[a] / tod[a])
        if (cyc[a] > 0 && cyc[b] > 0) rc[++kc] = (it[b] / cyc[b]) / (it[a] / cyc[a])
      }
      printf "%s %s\n", kt ? sprintf("%.5f", med(rt, kt)) : "-",
        kc == kt && kc ? sprintf("%.5f", med(rc, kc)) : "-"
    }'
}

# run name plugin mode interval ncpu: prints "B/A-per-TOD-second samples phases
# B/A-per-CPU-second median-per-TOD-second median-per-CPU-second" ("-" when the guest did
# not count cycles)
run() {
  local d="$work/$1"
  GUEST=mipsab run_guest "$@" env ${ENVX:-} >/dev/null
  local med; med=$(pair_medians "$d/log")
  set -- $(display 3000 "$d/log") $(display 3010 "$d/log") $(display 3020 "$d/log") \
    $(display 3030 "$d/log")
  awk -v ia=$((16#$1)) -v ta=$((16#$2)) -v ib=$((16#$3)) -v tb=$((16#$4)) -v n=$((16#$6)) \
      -v ca=$((16#$7)) -v cb=$((16#$8)) -v med="$med" \
      -v s="$(grep -o 'samples [0-9]*' "$d/log" | awk '{s += $2} END {print s + 0}')" \
      'BEGIN {c = ca > 0 && cb > 0 ? sprintf("%.5f", (ib/cb) / (ia/ca)) : "-"
              printf "%.5f %d %d %s %s\n", (ib/tb) / (ia/ta), s, n, c, med}'
}

declare -A results
for rep in $(seq "$REPS"); do
  for c in "${configs[@]}"; do
    set -- $c
    r=$(run "$@"); results[$1]+="$r;"
    [ -z "${VERBOSE:-}" ] || echo "$1 $r" >&2
  done
done
# stats: mean, median, spread and stdev of the numbers on standard input ("-": none)
stats() {
  local v; v=$(grep -v '^-$' || true)
  [ -n "$v" ] || { printf '%8s %8s %17s %8s' - - "" -; return; }
  printf '%8s %8s %17s %8s' "$(echo "$v" | mean)" "$(echo "$v" | median)" \
    "($(echo "$v" | sort -n | sed -n '1p;$p' | awk '{printf "%.4f\n", $1}' | paste -sd -))" \
    "$(echo "$v" | awk '{s += $1; q += $1 * $1; n++}
        END {printf "%.4f", (n > 1 ? sqrt((q - s * s / n) / (n - 1)) : 0)}')"
}
printf '\nSampling cost inside one run (B phases sampling against A phases not; %s runs each):\n' "$REPS"
printf '%-10s %-44s %-44s %8s %7s\n' "" "B/A per CPU-second of the CPU thread" "B/A per TOD second" "" ""
printf '%-10s %8s %8s %17s %8s %8s %8s %17s %8s %8s %7s\n' config mean median "(spread)" stdev \
  mean median "(spread)" stdev samples phases
for c in "${configs[@]}"; do
  set -- $c
  r=${results[$1]}
  printf '%-10s %s %s %8d %7d\n' "$1" "$(echo "$r" | field 4 | stats)" "$(echo "$r" | field 1 | stats)" \
    "$(echo "$r" | field 2 | tail -1)" "$(echo "$r" | field 3 | tail -1)"
done
printf '\nThe same, each run the median over its pairs of phases (an A phase and the B phase after it):\n'
printf '%-10s %-44s %-44s\n' "" "median B/A per CPU-second" "median B/A per TOD second"
printf '%-10s %8s %8s %17s %8s %8s %8s %17s %8s\n' config mean median "(spread)" stdev \
  mean median "(spread)" stdev
for c in "${configs[@]}"; do
  set -- $c
  r=${results[$1]}
  printf '%-10s %s %s\n' "$1" "$(echo "$r" | field 6 | stats)" "$(echo "$r" | field 5 | stats)"
done
echo "B/A: loop iterations per CPU-second of the CPU's thread (the cycle count) or per TOD second"
echo "(wall time) in the phases that sample against those that do not; mean over the runs,"
echo "median, spread (lowest-highest run), stdev (of one run); samples, phases: the last run's"
echo "samples stored and phases of both kinds. Medians: of the first 160 phases' 80 pairs in"
echo "each run, which a stop of the CPU thread by the host in one phase of a pair moves little."
echo "sampling intervals: 13,333/s = $int13 cycles, max $max_rate/s = $intmax cycles"
