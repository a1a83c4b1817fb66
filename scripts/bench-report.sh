#!/usr/bin/env bash
# Speed of hcpumf-report on a 1 GB .SMP file: samples per second on one core and the peak
# memory (independent of the file size: the reader streams fixed-size buffers).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
MB=${MB:-1024}
cargo build --release --quiet --bin hcpumf-report
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
f="$work/SYSHIS20260101.000000.000.SMP.0"
target/release/hcpumf-report --generate-bench "$f" "$MB"
samples=$(( MB * 256 * 126 ))
start=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v target/release/hcpumf-report --top 5 "$f" > "$work/out" 2> "$work/time"
  rss=$(grep 'Maximum resident' "$work/time" | awk '{print $NF}')
else
  target/release/hcpumf-report --top 5 "$f" > "$work/out"
  rss="?"
fi
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')
head -12 "$work/out"
awk -v n="$samples" -v s="$secs" -v r="$rss" -v mb="$MB" 'BEGIN {
  printf "bench-report: %d MB, %d samples in %.2f s = %.1f million samples/s, max RSS %s KB\n", mb, n, s, n / s / 1e6, r }'
