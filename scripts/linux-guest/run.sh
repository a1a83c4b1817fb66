#!/usr/bin/env bash
# Boot the Linux guest under Hercules with the plugin (or without: NOPLUGIN=1) and print
# the guest's console output. Usage: scripts/linux-guest/run.sh [NUMCPU]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
numcpu=${1:-2}
ins=$(bash "$here/build.sh" | tail -n1)
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
so=${HCPUMF_SO:-$root/target/release/libhcpumf.so}
{
  echo "ARCHMODE z/Arch"; echo "MAINSIZE 1024"; echo "NUMCPU $numcpu"; echo "CPUMODEL 2097"
  echo "OSTAILOR LINUX"
  echo "0009 3215-C /"; echo "000E 1403 $work/print.txt"
  [ -n "${NOPLUGIN:-}" ] || echo "ldmod $so"
} > "$work/linux.cnf"
cat > "$work/linux.rc" <<RC
hao tgt HCPUMF-END
hao cmd quit
hao tgt HHCCP011I
hao cmd quit
ipl $ins
RC
HERCULES_RC="$work/linux.rc" timeout -k 5 ${TIMEOUT:-400} hercules -d -f "$work/linux.cnf" > "$work/log" 2>&1 || true
cat "$work/log"
