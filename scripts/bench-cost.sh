#!/usr/bin/env bash
# The plugin's share of the emulated CPU's host thread, measured with perf (not by timing,
# so the host's noise does not reach it): the bench guest (scripts/bench/mips.s) runs under
# `perf record -e cpu-clock` with basic sampling at RATE samples/s (default 13,333, the z/OS
# default), and the CPU thread's samples are split by where they fell: Hercules' own code,
# the plugin, the kernel (system calls, wake-ups), the rest. Needs Debian's linux-perf.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
RATE=${RATE:-13333}
bash scripts/setup.sh >/dev/null
command -v perf >/dev/null || apt-get install -y -qq linux-perf >/dev/null
cargo build --release --quiet
so="$PWD/target/release/libhcpumf.so"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
s390x-linux-gnu-as -march=z13 -I tests/guest -o "$work/mips.o" scripts/bench/mips.s
s390x-linux-gnu-ld -Ttext=0 -e 0 -o "$work/mips.elf" "$work/mips.o"
s390x-linux-gnu-objcopy -O binary -j .text "$work/mips.elf" "$work/mips.bin"
interval=$(( 4404 * 1000000 / RATE ))
{
  echo "ARCHMODE z/Arch"; echo "MAINSIZE 64"; echo "NUMCPU 1"; echo "CPUMODEL 2097"
  echo "000E 1403 $work/print.txt"; echo "ldmod $so"
} > "$work/h.cnf"
printf 'hcpumf status\nquit\n' > "$work/check.rc"
{
  echo "loadcore $work/mips.bin 0"
  printf 'r 3f00=%016x%016x\n' 2 "$interval"
  echo "hao tgt HHCCP011I CPU0000"; echo "hao cmd script $work/check.rc"; echo "restart"
} > "$work/h.rc"
HERCULES_RC="$work/h.rc" timeout -k 5 60 perf record -q -e cpu-clock -F 20000 \
  -o "$work/perf.data" hercules -d -f "$work/h.cnf" > "$work/log" 2>&1 || true
grep -o 'samples [0-9]* missed [0-9]* .*ticks [0-9]*' "$work/log" || { tail -20 "$work/log"; exit 1; }
# The CPU thread is the busiest thread of the process.
tid=$(perf script -i "$work/perf.data" -F tid 2>/dev/null | sort | uniq -c | sort -rn | awk 'NR==1 {print $2}')
echo "CPU thread $tid at $RATE samples/s; where its time went:"
perf script -i "$work/perf.data" -F tid,ip,sym,dso -G 2>/dev/null \
  | awk -v t="$tid" '$1==t {n++; d=$NF; c[d]++} END {for (k in c) printf "%7.2f%% %s\n", 100*c[k]/n, k}' \
  | sort -rn
