#!/usr/bin/env bash
# Build the Linux guest of tests/linux_guest.rs from Debian's s390x packages of a release
# (bookworm: Linux 6.1, the default; trixie: Linux 6.12): kernel, busybox, perf, s390-tools
# and the shared libraries perf and lscpumf need (the ELF NEEDED closure), into a gzip'd
# cpio initramfs and an .ins file for `ipl`. The trixie guest also gets the FBA DASD driver
# modules, to write its results to a disk. debs.py chooses the packages from the release's
# suites (RELEASE, -updates, -security) as a Debian system would, verified against their
# signed Release files, and copes with a mirror whose pool lacks builds its index names
# (what it substituted, and what it could not check, it says on stderr). Nothing of the
# host's apt is used or changed. Everything is cached in $HCPUMF_CACHE (default
# ~/.cache/hcpumf/linux, linux-trixie for trixie); the packages taken are listed in
# `versions` next to the .ins file. Prints the .ins path, last, on stdout.
#   scripts/linux-guest/build.sh [bookworm|trixie]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rel=${1:-bookworm}
case "$rel" in bookworm|trixie) ;; *) echo "usage: $0 [bookworm|trixie]" >&2; exit 2 ;; esac
cache=${HCPUMF_CACHE:-$HOME/.cache/hcpumf/linux}
[ "$rel" = bookworm ] || cache="$cache-$rel"
mkdir -p "$cache/debs"
# One build at a time per cache (two checkouts, or two tests, on one machine): the packages
# and their unpacked tree are shared, the guest built from them is not ($HCPUMF_GUEST_OUT).
exec 9>"$cache/.lock"
flock 9
# debs.py chooses the packages from the release's signed indexes and the mirror's pool as
# they are today, and writes debs/versions and debs/notes; a cache without them is from the
# apt-based version of this script and is chosen again. The unpacked tree (and that
# script's apt state) must not outlive the packages it came from.
if [ ! -f "$cache/debs/.complete" ] || [ ! -f "$cache/debs/versions" ] ||
   [ ! -f "$cache/debs/notes" ]; then
  rm -f "$cache/debs/.complete"
  rm -rf "$cache/x" "$cache/apt" "$cache/index"
  python3 "$here/debs.py" "$rel" "$cache/debs"
  touch "$cache/debs/.complete"
else
  # What the mirror made debs.py substitute, and what it could not check, holds for every
  # guest built from these packages.
  sed "s/^build: /build: (cached $(date -r "$cache/debs/versions" +%F)) /" "$cache/debs/notes" >&2
fi
# The kernel that boots: perf and the DASD modules must be of this same version.
krel=$(sed -n 's/^linux-image-\([0-9][^ ]*\) .*/\1/p' "$cache/debs/versions")
case "$krel" in
  "" | *$'\n'*) echo "build: not one kernel image in $cache/debs/versions: $krel" >&2; exit 1 ;;
esac
x="$cache/x"
if [ ! -f "$x/.complete" ]; then
  rm -rf "$x"; mkdir -p "$x"
  for d in "$cache"/debs/*.deb; do dpkg-deb -x "$d" "$x"; done
  touch "$x/.complete"
fi
out=${HCPUMF_GUEST_OUT:-$cache/guest}
rm -rf "$out"; mkdir -p "$out/root"/{bin,usr/bin,lib/s390x-linux-gnu,proc,sys,tmp,dev}
r="$out/root"
# Merged /usr (trixie) moved busybox to /usr/bin.
bb=$x/bin/busybox
[ -f "$bb" ] || bb=$x/usr/bin/busybox
cp "$bb" "$r/bin/busybox"
cp "$x/usr/bin/perf" "$x/usr/bin/lscpumf" "$x/usr/sbin/chcpumf" "$r/usr/bin/"
# The shared-library closure of perf, lscpumf and chcpumf.
python3 - "$x" "$r" <<'PY'
import os, re, shutil, subprocess, sys
x, r = sys.argv[1], sys.argv[2]
import glob
dirs = ["lib/s390x-linux-gnu", "usr/lib/s390x-linux-gnu", "lib", "usr/lib"] + [
    os.path.relpath(d, x) for d in glob.glob(os.path.join(x, "usr/lib/s390x-linux-gnu/perl/5.*/CORE"))]
def needed(p):
    out = subprocess.run(["s390x-linux-gnu-readelf", "-d", p], capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\).*\[(.*)\]", out)
seen, stack = set(), [os.path.join(x, p) for p in ("usr/bin/perf", "usr/bin/lscpumf", "usr/sbin/chcpumf")]
while stack:
    for so in needed(stack.pop()):
        if so in seen:
            continue
        seen.add(so)
        src = next((os.path.join(x, d, so) for d in dirs if os.path.exists(os.path.join(x, d, so))), None)
        if src is None:
            sys.exit(f"build: {so} not found in the downloaded packages")
        shutil.copy(os.path.realpath(src), os.path.join(r, "lib/s390x-linux-gnu", so))
        stack.append(os.path.realpath(src))
PY
ln -sf s390x-linux-gnu/ld64.so.1 "$r/lib/ld64.so.1"
# The workload, assembled here.
s390x-linux-gnu-as -o "$out/work.o" "$here/work.s"
s390x-linux-gnu-ld -static -o "$r/work" "$out/work.o"
s390x-linux-gnu-as -march=z10 -o "$out/sha.o" "$here/sha.s"
s390x-linux-gnu-ld -static -o "$r/sha" "$out/sha.o"
if [ "$rel" = bookworm ]; then
  cp "$here/init" "$r/init"
else
  cp "$here/init-$rel" "$r/init"
  # The FBA DASD driver (the results disk), uncompressed for busybox's insmod.
  mkdir -p "$r/lib/modules"
  for m in dasd_mod dasd_fba_mod; do
    f=$(find "$x/lib/modules/$krel" "$x/usr/lib/modules/$krel" -name "$m.ko*" 2>/dev/null |
        head -n1 || true)
    [ -n "$f" ] || { echo "build: $m not in the kernel package of $krel" >&2; exit 1; }
    case "$f" in
      *.xz) xz -dc "$f" > "$r/lib/modules/$m.ko" ;;
      *.zst) zstd -qdc "$f" > "$r/lib/modules/$m.ko" ;;
      *) cp "$f" "$r/lib/modules/$m.ko" ;;
    esac
    # The kernel refuses a module built for another kernel; say so here, not in the guest.
    magic=$(grep -ao 'vermagic=[^ ]*' "$r/lib/modules/$m.ko" | head -n1 || true)
    [ "$magic" = "vermagic=$krel" ] ||
      { echo "build: $m is for ${magic#vermagic=}, the kernel is $krel" >&2; exit 1; }
  done
fi
chmod +x "$r/init"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initrd.gz"
cp "$x/boot/vmlinuz-$krel" "$out/vmlinuz"
cp "$cache/debs/versions" "$out/versions"
printf 'conmode=3215 condev=0x0009 console=ttyS0 quiet rdinit=/init\0' > "$out/parm"
size=$(stat -c %s "$out/initrd.gz")
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('>QQ', 0x04000000, $size))" > "$out/initrd.pos"
# File names in an .ins file are relative to the .ins file.
cat > "$out/linux.ins" <<INS
* hcpumf Linux guest
vmlinuz 0x00000000
initrd.gz 0x04000000
parm 0x00010480
initrd.pos 0x00010408
INS
echo "$out/linux.ins"
