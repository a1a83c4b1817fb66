#!/usr/bin/env bash
# Speed of hcpumf-report on a 1 GB .SMP file: samples per second on one core and the peak
# memory (independent of the file size: the reader streams fixed-size buffers).
#   MB=N      size of the file (default 1024)
#   HTML=1    also write the HTML page (--html): flame graph, timeline, ...
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
MB=${MB:-1024}
cargo build --release --quiet -p hcpumf-report
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
f="$work/SYSHIS20260101.000000.000.SMP.0"
target/release/hcpumf-report --generate-bench "$f" "$MB"
# The file written out first: the run measures the reader, not the write-back.
sync
samples=$(( MB * 256 * 126 ))
args=(--top 5)
[ "${HTML:-0}" = 1 ] && args+=(--html "$work/report.html")
start=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v target/release/hcpumf-report "${args[@]}" "$f" > "$work/out" 2> "$work/time"
  rss=$(grep 'Maximum resident' "$work/time" | awk '{print $NF}')
else
  target/release/hcpumf-report "${args[@]}" "$f" > "$work/out"
  rss="?"
fi
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')
head -12 "$work/out"
awk -v n="$samples" -v s="$secs" -v r="$rss" -v mb="$MB" 'BEGIN {
  printf "bench-report: %d MB, %d samples in %.2f s = %.1f million samples/s, max RSS %s KB\n", mb, n, s, n / s / 1e6, r }'
[ "${HTML:-0}" = 1 ] && echo "bench-report: with --html ($(du -k "$work/report.html" | cut -f1) KB page)"
true
