# Shared by scripts/bench.sh, bench-ab.sh and bench-cost.sh (sourced from the project root):
# picks the Hercules, builds the plugin and the bench guest, defines the configurations and
# runs one.
#
# Which Hercules, as the tests choose it (tests/common/dialect.rs):
#   HCPUMF_HERCULES=313 (the default)  Debian's Hercules 3.13: `hercules` on PATH, or
#                       HCPUMF_HERCULES_BIN; the plugin HCPUMF_SO, else target/release built
#                       here against vendor/hercules.
#   HCPUMF_HERCULES=hyperion           SDL Hyperion 4.x: HCPUMF_HERCULES_BIN (its
#                       prefix/bin/hercules) and HCPUMF_SO (the plugin built against that
#                       tree); when either is unset, scripts/hyperion.sh builds or finds the
#                       cached Hyperion and the plugin is built here into target/hyperion.
# Everything in which the two differ is in the herc_* settings below and in display().
export PATH="$HOME/.cargo/bin:$PATH"
REPS=${REPS:-5}
herc=${HCPUMF_HERCULES:-313}
bash scripts/setup.sh >/dev/null
case $herc in
  313)
    if [ -n "${HCPUMF_SO:-}" ]; then
      so=$HCPUMF_SO
    else
      cargo build --release --quiet
      so="$PWD/target/release/libhcpumf.so"
    fi
    herc_bin=${HCPUMF_HERCULES_BIN:-hercules}
    herc_name="Hercules 3.13"
    herc_opts=(-d)                              # daemon mode: no panel; stdin is not read
    herc_prelude=()
    herc_comm=$(basename "$herc_bin" | cut -c1-15)   # the process's name (/proc/PID/comm)
    herc_wait="HHCCP011I CPU0000"               # CPU 0's disabled wait (the operator's target)
    herc_loaded=HHCHD101I                       # `ldmod` succeeded
    herc_priv=()
    ;;
  hyperion)
    # The cached build of the vendored Hyperion when no executable, or neither the plugin
    # nor a tree to build it against (HERCULES_SRC, and its HYPERION_PREFIX), is named.
    if [ -z "${HCPUMF_HERCULES_BIN:-}" ] || { [ -z "${HCPUMF_SO:-}" ] && [ -z "${HERCULES_SRC:-}" ]; }; then
      eval "$(scripts/hyperion.sh)"
    fi
    if [ -n "${HCPUMF_SO:-}" ]; then
      so=$HCPUMF_SO
    else
      env HCPUMF_HERCULES=hyperion HERCULES_SRC="${HERCULES_SRC:-$HYPERION_SRC}" \
        ${HYPERION_PREFIX:+HYPERION_PREFIX="$HYPERION_PREFIX"} \
        CARGO_TARGET_DIR=target/hyperion cargo build --release --quiet -p hcpumf
      so="$PWD/target/hyperion/release/libhcpumf.so"
    fi
    herc_bin=${HCPUMF_HERCULES_BIN:-$HYPERION_HERCULES}
    herc_name="SDL Hyperion $("$herc_bin" --version 2>&1 | sed -n 's/.*Hercules version \([^ ]*\).*/\1/p' | head -n1)"
    herc_opts=(-n)                              # no panel (-d is deprecated); stdin is read:
                                                # run_guest holds it open until Hercules is done
    # Messages without time stamps; `sh` (the guest-done script's schedstat) enabled.
    herc_prelude=("LOGOPT NOTIMESTAMP" "SHCMDOPT ENABLE")
    herc_comm=impl_thread                       # Hyperion names its main thread so
    herc_wait="HHC00809I Processor CP00: disabled wait"   # (Hyperion stops the CPU there)
    herc_loaded=HHC01527I
    # As root Hyperion makes every thread SCHED_RR (hthreads.c) and the plugin's sampler
    # goes one priority above them, as in the tests. HCPUMF_HYPERION_THREADS=ordinary runs
    # it without CAP_SYS_NICE: its threads are ordinary as 3.13's are, but the sampler cannot
    # be real-time either (`hcpumf status`: "0 ms real-time") and misses intervals.
    herc_priv=()
    [ "$(id -u)" != 0 ] || [ "${HCPUMF_HYPERION_THREADS:-}" != ordinary ] ||
      herc_priv=(setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice)
    ;;
  *) echo "bench: HCPUMF_HERCULES=$herc: say 313 or hyperion" >&2; exit 2 ;;
esac
echo "bench: $herc_name ($herc_bin), plugin $so" >&2
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# A failed run ends the whole script (run_guest runs in command substitutions): stop().
trap 'exit 1' TERM
stop() { kill -TERM $$; exit 1; }
# Run by the guest-done script (Hercules' `sh` command): every thread of Hercules with the CPU
# time the kernel accounted to it (/proc/.../schedstat: run time, wait time, switches). perf's
# cpu-clock samples misstate the time of threads switched thousands of times a second
# (measured: +10% for 4 CPU threads on 2 cores under a real-time sampler, -30% for the
# sampler itself), so the per-CPU-second figures use the kernel's own accounting.
{ echo "comm=$herc_comm"; cat <<'SH'
p=$PPID
while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != "$comm" ]; do
  p=$(awk '/^PPid/ {print $2}' /proc/$p/status)
done
for t in /proc/$p/task/*; do echo "SCHEDSTAT ${t##*/} $(tr -d ' ' < $t/comm) $(cat $t/schedstat)"; done
SH
} > "$work/schedstat.sh"
for g in mips mips4 mipsab; do
  s390x-linux-gnu-as -march=z13 -I tests/guest -I scripts/bench -o "$work/$g.o" "scripts/bench/$g.s"
  s390x-linux-gnu-ld -Ttext=0 -e 0 -o "$work/$g.elf" "$work/$g.o"
  s390x-linux-gnu-objcopy -O binary -j .text "$work/$g.elf" "$work/$g.bin"
done

speed=4404                      # cycles/us of the 2097 model
max_rate=$(grep -o 'MAX_SAMPLING_RATE: u64 = [0-9_]*' crates/arch/src/model.rs | grep -o '[0-9_]*$' | tr -d _)
int13=$(( speed * 1000000 / 13333 ))
intmax=$(( speed * 1000000 / max_rate ))

# name, plugin loaded (0/1), guest mode (0 nothing, 1 counters, 2 sampling), interval,
# CPUs (1, or 4 or 8: scripts/bench/mips4.s, every CPU running the loop)
configs=("baseline 0 0 0 1" "baseline2 0 0 0 1" "idle 1 0 0 1" "counters 1 1 0 1"
         "samp-13k 1 2 $int13 1" "samp-max 1 2 $intmax 1"
         "base-4cpu 0 0 0 4" "samp13k-4cpu 1 2 $int13 4"
         "base-8cpu 0 0 0 8" "samp13k-8cpu 1 2 $int13 8")

# Keep the configurations named in CONFIGS (e.g. CONFIGS="counters samp-13k"; the 1-CPU
# baselines always run, base-4cpu and base-8cpu when a configuration with as many CPUs
# does) and of those the ones named in $1 (the script's own list).
select_configs() {
  local want=" baseline baseline2 ${CONFIGS:-$1} " sel=() c
  [[ "$want" == *-4cpu* ]] && want+=" base-4cpu "
  [[ "$want" == *-8cpu* ]] && want+=" base-8cpu "
  for c in "${configs[@]}"; do
    [[ " $1 " == *" ${c%% *} "* && "$want" == *" ${c%% *} "* ]] && sel+=("$c")
  done
  configs=("${sel[@]}")
}

# display ADDR LOG: the first 16 bytes of the first storage display (`r`) of ADDR (hex) in
# LOG, as "w1w2 w3w4" (two doublewords in hex). 3.13: `R:0000000000003000:K:06=00000000
# 00000000 ...`; Hyperion: `HHC02290I R:0000000000003000  00000000 00000000 ...`.
display() {
  local a; a=$(printf '%016X' $((16#$1)))
  if [ "$herc" = hyperion ]; then
    grep -m1 "^HHC02290I R:$a " "$2" | sed 's/^HHC02290I R:[0-9A-F]* *//'
  else
    grep -m1 "^R:$a" "$2" | sed 's/^[^=]*=//'
  fi | awk '{print $1 $2, $3 $4}'
}

# run_guest name plugin mode interval ncpu [wrapper...]: one Hercules run of the bench guest
# in $work/name, under the wrapper command if given; prints "iterations tod-units" (summed
# over the CPUs, and the longest). Hercules 3.13 now and then quits before its display line
# reaches the log, or interleaves console output with it: the run is then made again (3
# tries).
run_guest() {
  local name=$1 plugin=$2 mode=$3 interval=$4 ncpu=$5 d="$work/$1" try w it tod guest cpu ok
  shift 5
  mkdir -p "$d"
  guest=mips; [ "$ncpu" = 1 ] || guest=mips4; [ -z "${GUEST:-}" ] || guest=$GUEST
  {
    for w in "${herc_prelude[@]}"; do echo "$w"; done
    # Each CPU of mips4.s samples into 8 MB of its own from 16 MB on.
    echo "ARCHMODE z/Arch"; echo "MAINSIZE $((ncpu > 4 ? 128 : 64))"; echo "NUMCPU $ncpu"
    echo "CPUMODEL 2097"; [ -z "${CNFX:-}" ] || echo "$CNFX"
    echo "000E 1403 $d/print.txt"
    [ "$plugin" = 1 ] && echo "ldmod $so"
  } > "$d/h.cnf"
  { printf 'r 3000.%x\n' $((ncpu > 4 ? ncpu * 0x40 : 0x100))
    # mipsab's phase records (scripts/bench-ab.sh)
    [ "$guest" != mipsab ] ||
      for ((a = 0x8000; a < 0x9400; a += 0x100)); do printf 'r %x.100\n' $a; done
    echo "sh sh $work/schedstat.sh"
    [ "$plugin" = 1 ] && echo "hcpumf status"
    echo "quit"; } > "$d/check.rc"
  {
    echo "loadcore $work/$guest.bin 0"
    printf 'r 3f00=%016x%016x%016x\n' "$mode" "$interval" "$ncpu"
    echo "hao tgt $herc_wait"; echo "hao cmd script $d/check.rc"
    for ((cpu = ncpu - 1; cpu >= 0; cpu--)); do echo "cpu $cpu"; echo "restart"; done
  } > "$d/h.rc"
  # Hyperion reads commands from its stdin and quits when it ends: a pipe that stays open
  # (the check script's `quit` ends Hercules) until Hyperion says it has terminated
  # (HHC01412I), or 65 s: on Debian 13 (glibc 2.41) its exit waits for the thread reading
  # stdin, so a stdin that never ends keeps it alive until the timeout.
  for try in 1 2 3; do
    if [ "$herc" = hyperion ]; then
      : > "$d/log"
      { for ((w = 0; w < 325; w++)); do
          grep -q HHC01412I "$d/log" 2>/dev/null && break; sleep 0.2
        done; } |
      HERCULES_RC="$d/h.rc" timeout -k 5 60 "${herc_priv[@]}" "$@" "$herc_bin" "${herc_opts[@]}" \
        -f "$d/h.cnf" > "$d/log" 2>&1 || true
    else
      HERCULES_RC="$d/h.rc" timeout -k 5 60 "${herc_priv[@]}" "$@" "$herc_bin" "${herc_opts[@]}" \
        -f "$d/h.cnf" > "$d/log" 2>&1 || true
    fi
    if [ "$plugin" = 1 ] && ! grep -q "$herc_loaded.*${so##*/}" "$d/log"; then
      echo "bench: run $name: the plugin was not loaded ($so into $herc_name); log:" >&2
      grep -v HHC01417I "$d/log" | head -40 >&2; stop
    fi
    it=0; tod=0; ok=1
    for ((cpu = 0; cpu < ncpu; cpu++)); do
      w=$(display "$(printf '%X' $((0x3000 + cpu * 0x40)))" "$d/log")
      if [[ "$w" =~ ^[0-9A-Fa-f]{16}\ [0-9A-Fa-f]{16}$ ]]; then
        it=$((it + 16#${w%% *}))
        [ $((16#${w##* })) -gt "$tod" ] && tod=$((16#${w##* }))
      else
        ok=0
      fi
    done
    if [ "$ok" = 1 ]; then
      echo "$it $tod"
      return
    fi
  done
  echo "bench: run $name failed; log:" >&2; tail -30 "$d/log" >&2; stop
}

# Results kept as "fields;fields;...", one run's fields per entry: field N of every run.
field() { tr ';' '\n' | grep -v '^$' | awk -v f="$1" '{print $f}'; }
# The mean and the median of the numbers on standard input.
mean() { awk '{s+=$1; n++} END {printf "%.4f", s/n}'; }
median() { sort -n | awk '{v[NR] = $1} END {printf "%.4f", NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
