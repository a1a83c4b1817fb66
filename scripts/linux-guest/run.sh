#!/usr/bin/env bash
# Boot the Linux guest under Hercules with the plugin (or without: NOPLUGIN=1) and print
# the guest's console output, then (trixie) the results the guest wrote to its disk after a
# line "=== DISK ===". Usage: scripts/linux-guest/run.sh [NUMCPU] [bookworm|trixie]
# (CPUMODEL=tttt: the machine type, default 2097; HOTPLUG=N: the trixie guest's number of
# CPU hotplug cycles, default 10). The Hercules is tests/common/dialect.rs's choice:
# HCPUMF_HERCULES=313 (default: Debian's `hercules`) or hyperion (HCPUMF_HERCULES_BIN, the
# path of SDL Hyperion's hercules). The last line is "run.sh: Hercules exit status N".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
numcpu=${1:-2}
rel=${2:-bookworm}
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# This run's own guest (kernel, initrd, .ins), so that runs at once do not rewrite each
# other's.
ins=$(HCPUMF_GUEST_OUT="$work/guest" bash "$here/build.sh" "$rel" | tail -n1)
if [ -n "${HOTPLUG:-}" ]; then
  # The trixie guest's number of CPU hotplug cycles, on its kernel command line. (Hercules
  # loads only files under the .ins file's own directory.)
  g=$(dirname "$ins")
  { tr -d '\0' < "$g/parm"; printf ' hcpumf.hotplug=%d\0' "$HOTPLUG"; } > "$g/parm-hotplug"
  sed 's|^parm |parm-hotplug |' "$ins" > "$g/linux-hotplug.ins"
  ins=$g/linux-hotplug.ins
fi
so=${HCPUMF_SO:-$root/target/release/libhcpumf.so}
# The two Hercules' differences (tests/common/dialect.rs has them all): Hyperion deprecates
# -d for -n, logs CPU 0's disabled wait as HHC00809I (and stops the CPU), and as root runs
# every thread SCHED_RR unless it lacks CAP_SYS_NICE (the plugin's sampler then goes above
# them; HCPUMF_HYPERION_THREADS=ordinary drops CAP_SYS_NICE). It
# logs no SIGP Stop (only orders above Restart, esa390.h LOG_SIGPORDER), so the hao rule on
# it never fires there; but it reads its stdin as commands and, at its end (/dev/null),
# shuts down by itself once every CPU has stopped (impl.c): when the guest powers off.
herc=(hercules -d)
wait_msg=HHCCP011I
dasdinit=dasdinit
if [ "${HCPUMF_HERCULES:-313}" = hyperion ]; then
  bin=${HCPUMF_HERCULES_BIN:?HCPUMF_HERCULES=hyperion needs HCPUMF_HERCULES_BIN}
  herc=("$bin" -n)
  # HCPUMF_HYPERION_THREADS=ordinary: without CAP_SYS_NICE (see tests/common/mod.rs).
  [ "$(id -u)" != 0 ] || [ "${HCPUMF_HYPERION_THREADS:-}" != ordinary ] ||
    herc=(setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice "${herc[@]}")
  wait_msg=HHC00809I
  [ ! -x "$(dirname "$bin")/dasdinit" ] || dasdinit=$(dirname "$bin")/dasdinit
fi
{
  [ "${HCPUMF_HERCULES:-313}" != hyperion ] || echo "LOGOPT NOTIMESTAMP"
  echo "ARCHMODE z/Arch"; echo "MAINSIZE 1024"; echo "NUMCPU $numcpu"
  echo "CPUMODEL ${CPUMODEL:-2097}"
  echo "OSTAILOR LINUX"
  echo "0009 3215-C /"; echo "000E 1403 $work/print.txt"
  [ "$rel" = bookworm ] || echo "0100 9336 $work/out.fba"
  [ -n "${NOPLUGIN:-}" ] || echo "ldmod $so"
} > "$work/linux.cnf"
# The guest powers itself off after HCPUMF-END: the kernel stops its CPUs with SIGP stop,
# which Hercules logs; the run ends a second later. (A rule's command runs on the automatic
# operator's thread and blocks it, so there is no second, slower rule on HCPUMF-END: a guest
# that never powers off ends at the timeout.)
# The trixie guest takes a CPU offline, which is a SIGP stop too: it ends on its last line.
printf 'pause 1\nquit\n' > "$work/off.rc"
end='SIGP Stop'
[ "$rel" = bookworm ] || { end='^HCPUMF-END'; printf 'pause 3\nquit\n' > "$work/off.rc"; }
cat > "$work/linux.rc" <<RC
hao tgt $end
hao cmd script $work/off.rc
hao tgt $wait_msg
hao cmd quit
ipl $ins
RC
# The results disk: a raw FBA image of 8 MB (16,384 blocks).
[ "$rel" = bookworm ] || "$dasdinit" -r "$work/out.fba" 9336 16384 > /dev/null 2>&1
# The run ends when the guest powers off. A slow host lengthens it rather than failing it:
# Hercules is stopped only when the console has been silent for STALL seconds (default 180:
# the guest prints a line at every step) or after MAXTIME seconds in all (default 1800).
# Hyperion quits at the end of its stdin once every CPU is stopped, which is how a run there
# ends after the guest powers off. Its stdin must not end before the guest has finished: at
# IPL, while the guest switches to z/Architecture (SIGP Set architecture), every CPU can be
# stopped for a moment, and a Hyperion whose stdin was /dev/null quit there. So its stdin is
# a pipe that ends only once the guest said HCPUMF-END (or Hercules is gone).
stdin=/dev/null
if [ "${HCPUMF_HERCULES:-313}" = hyperion ]; then
  stdin=$work/stdin
  mkfifo "$stdin"
fi
HERCULES_RC="$work/linux.rc" timeout -k 5 "${MAXTIME:-1800}" "${herc[@]}" -f "$work/linux.cnf" \
  < "$stdin" > "$work/log" 2>&1 &
pid=$!
feeder=""
if [ "$stdin" != /dev/null ]; then
  # Opening the pipe for writing lets Hercules' open of it for reading complete.
  ( until grep -q 'HCPUMF-END' "$work/log" 2>/dev/null || ! kill -0 "$pid" 2>/dev/null; do
      sleep 1
    done ) > "$stdin" &
  feeder=$!
fi
last=$(date +%s); size=0; stopped=""
while kill -0 "$pid" 2>/dev/null; do
  sleep 2
  now=$(date +%s); cur=$(stat -c %s "$work/log" 2>/dev/null || echo 0)
  if [ "$cur" != "$size" ]; then
    size=$cur; last=$now
  elif [ $((now - last)) -gt "${STALL:-180}" ]; then
    echo "run.sh: no console output for ${STALL:-180} s: stopping Hercules" >> "$work/log"
    stopped=" (stopped by run.sh: no console output for ${STALL:-180} s)"
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill -TERM "$pid" 2>/dev/null || true
    break
  fi
done
status=0
wait "$pid" 2>/dev/null || status=$?
[ -z "$feeder" ] || { kill "$feeder" 2>/dev/null || true; wait "$feeder" 2>/dev/null || true; }
cat "$work/log"
if [ -f "$work/out.fba" ]; then
  echo "=== DISK ==="
  # The guest wrote its results text at the start of the disk, padded with zeros.
  python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); i = d.find(b"HCPUMF-RESULTS"); sys.stdout.write(d[i:].split(b"\0")[0].decode("utf-8", "replace") if i >= 0 else "")' "$work/out.fba"
fi
echo "run.sh: Hercules exit status $status$stopped"
