#!/usr/bin/env bash
# The main job: set up a fresh machine, build the plugin, run the bundled guest workload
# (tests/guest/demo_workload.s: HOTLOOP 50% problem state, WARMLOOP 30% supervisor state,
# COOLLOOP 20% problem state) under Hercules with the plugin, collect counters and samples
# with `hcpumf his begin ... / hcpumf his end` (counters every second too: SMFINTVAL=1), print
# the report and write it as one HTML page, report.html, beside the files.
#   scripts/demo.sh [OUTPUT-DIR]        (default: ./demo-output)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
out=$(realpath -m "${1:-demo-output}")
bash scripts/setup.sh
echo "== building and installing the plugin and the report tool"
bash scripts/install.sh
mkdir -p "$out"
rm -f "$out"/SYSHIS*
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
s390x-linux-gnu-as -march=z13 -I tests/guest -o "$work/w.o" tests/guest/demo_workload.s
s390x-linux-gnu-ld -Ttext=0 -e 0 -o "$work/w.elf" "$work/w.o"
s390x-linux-gnu-objcopy -O binary -j .text "$work/w.elf" "$work/w.bin"
cat > "$work/demo.cnf" <<CNF
ARCHMODE z/Arch
MAINSIZE 64
NUMCPU 1
CPUMODEL 2097
000E 1403 $work/print.txt
ldmod $root/target/release/libhcpumf.so
CNF
cat > "$work/demo.rc" <<RC
loadcore $work/w.bin 0
hcpumf his begin ctrset=(b,p) sampfreq=800000 smfintval=1 map=yes mvs=yes path=$out title='hcpumf demo'
hao tgt HHCCP011I CPU0000
hao cmd script $work/end.rc
restart
RC
printf 'hcpumf his end\nquit\n' > "$work/end.rc"
echo "== running the workload under Hercules with the plugin (1.2 G guest instructions: 3-7 s, by the host)"
HERCULES_RC="$work/demo.rc" timeout -k 5 120 hercules -d -f "$work/demo.cnf" > "$work/hercules.log" 2>&1 || true
grep -E 'HHCMF0(00|4[0-9])' "$work/hercules.log" | sed 's/^/   /'
if ! ls "$out"/SYSHIS*.SMP.* >/dev/null 2>&1; then
  echo "demo: no sample files were written; the Hercules log follows" >&2
  tail -50 "$work/hercules.log" >&2
  exit 1
fi
echo "== report (hcpumf-report $out)"
target/release/hcpumf-report --top 10 --svg "$out/report.svg" --html "$out/report.html" "$out"
echo "== files in $out:"
ls -la "$out"
echo "== the report as a page: $out/report.html (open it in a browser: file://$out/report.html)"
