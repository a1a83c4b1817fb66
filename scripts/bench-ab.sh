#!/usr/bin/env bash
# The cost of basic sampling measured inside one Hercules run, where the host's noise
# cancels: scripts/bench/mipsab.s runs mips.s's loop for 6 s in 40 ms phases that alternate
# between sampling enabled but inactive (A) and active (B). The figure is B's loop rate
# against A's (iterations per TOD second of each kind of phase), so a host that slows down
# for a second slows about as many A as B phases. Configurations, interleaved REPS times
# (default 5):
#   ab-none   B phases inactive too: the method's own noise floor (1.0 expected)
#   ab-13k    B phases sample at 13,333 samples/s (z/OS default 800,000/min)
#   ab-max    B phases sample at QSI's maximum rate
# A phases run with the plugin loaded and sampling inactive, which costs the CPU thread
# nothing (`scripts/bench-cost.sh`, idle: the opcode table is untouched), so B/A is the
# end-to-end ratio of issue 11 with the sampler's preemptions, cache misses and the CPU
# thread's own time all in it; time is the guest's TOD clock (wall time, which charges
# preemption of the CPU thread to the phase it happens in). CONFIGS="ab-max" runs only
# those; ENVX="VAR=value" sets Hercules' environment.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench/common.sh
configs=("ab-none 1 0 $int13 1" "ab-13k 1 2 $int13 1" "ab-max 1 2 $intmax 1")
want=" ${CONFIGS:-ab-none ab-13k ab-max} "
sel=(); for c in "${configs[@]}"; do [[ "$want" == *" ${c%% *} "* ]] && sel+=("$c"); done
configs=("${sel[@]}")

# run name plugin mode interval ncpu: prints "B/A-ratio samples phases"
run() {
  local d="$work/$1" line
  GUEST=mipsab run_guest "$@" env ${ENVX:-} >/dev/null
  line() { grep -m1 "^R:000000000000$1" "$d/log" | sed 's/^[^=]*=//' | awk '{print $1 $2, $3 $4}'; }
  set -- $(line 3000) $(line 3010) $(line 3020)
  awk -v ia=$((16#$1)) -v ta=$((16#$2)) -v ib=$((16#$3)) -v tb=$((16#$4)) -v n=$((16#$6)) \
      -v s="$(grep -o 'samples [0-9]*' "$d/log" | awk '{s += $2} END {print s + 0}')" \
      'BEGIN {printf "%.5f %d %d\n", (ib/tb) / (ia/ta), s, n}'
}

declare -A results
for rep in $(seq "$REPS"); do
  for c in "${configs[@]}"; do
    set -- $c
    results[$1]+="$(run "$@");"
  done
done
field() { tr ';' '\n' | grep -v '^$' | awk -v f="$1" '{print $f}'; }
printf '\nSampling cost inside one run (B phases sampling against A phases not; %s runs each):\n' "$REPS"
printf '%-9s %8s %8s %17s %8s %10s %8s\n' config "B/A" median "(spread)" stdev "samples" phases
for c in "${configs[@]}"; do
  set -- $c
  r=${results[$1]}
  echo "$r" | field 1 | sort -n | awk -v name="$1" -v s="$(echo "$r" | field 2 | tail -1)" \
      -v p="$(echo "$r" | field 3 | tail -1)" '
    {v[NR] = $1; sum += $1; sq += $1 * $1}
    END {m = sum / NR; sd = NR > 1 ? sqrt((sq - NR * m * m) / (NR - 1)) : 0
         med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
         printf "%-9s %8.4f %8.4f %17s %8.4f %10d %8d\n", name, m, med,
           sprintf("(%.4f-%.4f)", v[1], v[NR]), sd, s, p}'
done
echo "B/A: loop iterations per TOD second in the phases that sample against those that do not"
echo "(mean over the runs; spread: lowest-highest run; stdev: of one run); samples, phases: the"
echo "last run's samples stored and phases of both kinds."
echo "sampling intervals: 13,333/s = $int13 cycles, max $max_rate/s = $intmax cycles"
