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
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
REPS=${REPS:-5}
bash scripts/setup.sh >/dev/null
cargo build --release --quiet
so="$PWD/target/release/libhcpumf.so"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
s390x-linux-gnu-as -march=z13 -I tests/guest -o "$work/mips.o" scripts/bench/mips.s
s390x-linux-gnu-ld -Ttext=0 -e 0 -o "$work/mips.elf" "$work/mips.o"
s390x-linux-gnu-objcopy -O binary -j .text "$work/mips.elf" "$work/mips.bin"

speed=4404                      # cycles/us of the 2097 model
max_rate=$(grep -o 'MAX_SAMPLING_RATE: u64 = [0-9_]*' src/model.rs | grep -o '[0-9_]*$' | tr -d _)
int13=$(( speed * 1000000 / 13333 ))
intmax=$(( speed * 1000000 / max_rate ))

run() { # name plugin(0/1) mode interval
  local name=$1 plugin=$2 mode=$3 interval=$4 d="$work/$1"
  mkdir -p "$d"
  {
    echo "ARCHMODE z/Arch"; echo "MAINSIZE 64"; echo "NUMCPU 1"; echo "CPUMODEL 2097"
    echo "000E 1403 $d/print.txt"
    [ "$plugin" = 1 ] && echo "ldmod $so"
  } > "$d/h.cnf"
  printf 'r 3000.20\nquit\n' > "$d/check.rc"
  {
    echo "loadcore $work/mips.bin 0"
    printf 'r 3f00=%016x%016x\n' "$mode" "$interval"
    echo "hao tgt HHCCP011I CPU0000"; echo "hao cmd script $d/check.rc"; echo "restart"
  } > "$d/h.rc"
  HERCULES_RC="$d/h.rc" timeout -k 5 60 hercules -d -f "$d/h.cnf" > "$d/log" 2>&1 || true
  local line
  line=$(grep -m1 '^R:0000000000003000' "$d/log" || true)
  if [ -z "$line" ]; then
    # Hercules 3.13 now and then quits before its display line reaches the log: run again.
    tries=$((${tries:-0} + 1))
    if [ "$tries" -lt 3 ]; then run "$@"; return; fi
    echo "bench: run $name failed; log:" >&2; tail -30 "$d/log" >&2; exit 1
  fi
  tries=0
  local w
  w=$(echo "$line" | sed 's/^[^=]*=//' | awk '{print $1 $2, $3 $4}')
  if ! [[ "$w" =~ ^[0-9A-Fa-f]{16}\ [0-9A-Fa-f]{16}$ ]]; then
    # (Hercules' console output could interleave with the display line.)
    echo "bench: run $name: unreadable result line '$line'; running again" >&2
    run "$@"
    return
  fi
  local iters=$((16#${w%% *})) tod=$((16#${w##* }))
  # iterations per second (TOD: 4096 units per microsecond)
  echo $(( iters * 4096 * 1000000 / tod ))
}

declare -A results
configs=("baseline 0 0 0" "baseline2 0 0 0" "idle 1 0 0" "counters 1 1 0" "samp-13k 1 2 $int13" "samp-max 1 2 $intmax")
if [ -n "${CONFIGS:-}" ]; then  # e.g. CONFIGS="baseline counters"; baseline is always run
  sel=(); for c in "${configs[@]}"; do [[ " baseline $CONFIGS " == *" ${c%% *} "* ]] && sel+=("$c"); done
  configs=("${sel[@]}")
fi
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
