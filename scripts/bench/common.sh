# Shared by scripts/bench.sh and scripts/bench-cost.sh (sourced from the project root):
# builds the plugin and the bench guest, defines the configurations and runs one.
export PATH="$HOME/.cargo/bin:$PATH"
REPS=${REPS:-5}
bash scripts/setup.sh >/dev/null
cargo build --release --quiet
so="$PWD/target/release/libhcpumf.so"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# Run by the guest-done script (Hercules' `sh` command): every thread of Hercules with the CPU
# time the kernel accounted to it (/proc/.../schedstat: run time, wait time, switches). perf's
# cpu-clock samples misstate the time of threads switched thousands of times a second
# (measured: +10% for 4 CPU threads on 2 cores under a real-time sampler, -30% for the
# sampler itself), so the per-CPU-second figures use the kernel's own accounting.
cat > "$work/schedstat.sh" <<'SH'
p=$PPID
while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != hercules ]; do
  p=$(awk '/^PPid/ {print $2}' /proc/$p/status)
done
for t in /proc/$p/task/*; do echo "SCHEDSTAT ${t##*/} $(tr -d ' ' < $t/comm) $(cat $t/schedstat)"; done
SH
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
    # Each CPU of mips4.s samples into 8 MB of its own from 16 MB on.
    echo "ARCHMODE z/Arch"; echo "MAINSIZE $((ncpu > 4 ? 128 : 64))"; echo "NUMCPU $ncpu"
    echo "CPUMODEL 2097"; [ -z "${CNFX:-}" ] || echo "$CNFX"
    echo "000E 1403 $d/print.txt"
    [ "$plugin" = 1 ] && echo "ldmod $so"
  } > "$d/h.cnf"
  { printf 'r 3000.%x\n' $((ncpu > 4 ? ncpu * 0x40 : 0x100)); echo "sh sh $work/schedstat.sh"
    [ "$plugin" = 1 ] && echo "hcpumf status"
    echo "quit"; } > "$d/check.rc"
  {
    echo "loadcore $work/$guest.bin 0"
    printf 'r 3f00=%016x%016x%016x\n' "$mode" "$interval" "$ncpu"
    echo "hao tgt HHCCP011I CPU0000"; echo "hao cmd script $d/check.rc"
    for ((cpu = ncpu - 1; cpu >= 0; cpu--)); do echo "cpu $cpu"; echo "restart"; done
  } > "$d/h.rc"
  for try in 1 2 3; do
    HERCULES_RC="$d/h.rc" timeout -k 5 60 "$@" hercules -d -f "$d/h.cnf" > "$d/log" 2>&1 || true
    it=0; tod=0; ok=1
    for ((cpu = 0; cpu < ncpu; cpu++)); do
      w=$(grep -m1 "^R:$(printf '%016X' $((0x3000 + cpu * 0x40)))" "$d/log" \
          | sed 's/^[^=]*=//' | awk '{print $1 $2, $3 $4}')
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
  echo "bench: run $name failed; log:" >&2; tail -30 "$d/log" >&2; exit 1
}

# Results kept as "fields;fields;...", one run's fields per entry: field N of every run.
field() { tr ';' '\n' | grep -v '^$' | awk -v f="$1" '{print $f}'; }
# The mean and the median of the numbers on standard input.
mean() { awk '{s+=$1; n++} END {printf "%.4f", s/n}'; }
median() { sort -n | awk '{v[NR] = $1} END {printf "%.4f", NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
