#!/usr/bin/env bash
# Build the Linux guest of tests/linux_guest.rs from Debian's s390x packages of a release
# (bookworm: Linux 6.1, the default; trixie: Linux 6.12): kernel, busybox, perf, s390-tools
# and the shared libraries perf and lscpumf need (the ELF NEEDED closure), into a gzip'd
# cpio initramfs and an .ins file for `ipl`. The trixie guest also gets the FBA DASD driver
# modules, to write its results to a disk. Downloads go through a private apt configuration
# (the host's architectures are untouched) and are cached in $HCPUMF_CACHE (default
# ~/.cache/hcpumf/linux, linux-trixie for trixie). Prints the .ins path.
#   scripts/linux-guest/build.sh [bookworm|trixie]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rel=${1:-bookworm}
cache=${HCPUMF_CACHE:-$HOME/.cache/hcpumf/linux}
[ "$rel" = bookworm ] || cache="$cache-$rel"
mkdir -p "$cache"/apt/{lists/partial,archives/partial,etc} "$cache/debs"
cat > "$cache/apt/etc/apt.conf" <<CONF
APT::Architecture "s390x";
APT::Architectures { "s390x"; };
Dir::State "$cache/apt";
Dir::State::Lists "$cache/apt/lists";
Dir::State::status "$cache/apt/status";
Dir::Cache "$cache/apt";
Dir::Cache::archives "$cache/apt/archives";
Dir::Etc::SourceList "$cache/apt/etc/sources.list";
Dir::Etc::SourceParts "$cache/apt/etc";
Dir::Etc::Preferences "$cache/apt/etc/preferences";
Dir::Etc::PreferencesParts "$cache/apt/etc";
CONF
echo "deb [arch=s390x signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $rel main" \
  > "$cache/apt/etc/sources.list"
touch "$cache/apt/status"
export APT_CONFIG="$cache/apt/etc/apt.conf"
if [ ! -f "$cache/debs/.complete" ]; then
  # A mirror caught syncing serves an index of the wrong size: try again.
  indexed=signed
  for try in 1 2 3 4; do
    apt-get update -qq -o APT::Sandbox::User=root >/dev/null 2>&1 && break
    if [ "$try" = 4 ]; then indexed=unsigned; else sleep 20; fi
  done
  if [ "$indexed" = unsigned ]; then
    # Seen for days on end: the mirror's s390x Packages differs from what its signed Release
    # names. Read that index as a local unsigned repository, then fetch each package from
    # the mirror over HTTPS and check it against the index's SHA256.
    echo "build: the mirror's $rel s390x index does not match its signed Release;" \
         "using the index as served, over HTTPS, and checking every package against it" >&2
    idx="$cache/index/dists/$rel/main/binary-s390x"
    mkdir -p "$idx"
    curl -fsS --retry 3 -o "$idx/Packages.xz" \
      "https://deb.debian.org/debian/dists/$rel/main/binary-s390x/Packages.xz"
    xz -df "$idx/Packages.xz"
    echo "deb [arch=s390x trusted=yes] file:$cache/index $rel main" > "$cache/apt/etc/sources.list"
    apt-get update -qq -o APT::Sandbox::User=root -o Acquire::AllowInsecureRepositories=1 \
      >/dev/null 2>&1 || { echo "build: apt-get update failed for $rel" >&2; exit 1; }
  fi
  kernel=$(apt-cache depends linux-image-s390x | sed -n 's/.*Depends: \(linux-image-[0-9].*-s390x\)$/\1/p' | head -n1)
  libs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
         --no-replaces --no-enhances --no-pre-depends linux-perf s390-tools \
         | grep -E '^(lib|zlib)' | sort -u)
  if [ "$indexed" = signed ]; then
    (cd "$cache/debs" && apt-get download -qq -o APT::Sandbox::User=root \
        "$kernel" busybox-static linux-perf s390-tools $libs >/dev/null)
  else
    apt-get download --print-uris -qq "$kernel" busybox-static linux-perf s390-tools $libs |
      while read -r uri name _size sum; do
        path=${uri#\'file:$cache/index/}; path=${path%\'}
        curl -fsS --retry 3 -o "$cache/debs/$name" "https://deb.debian.org/debian/$path"
        echo "${sum#SHA256:}  $cache/debs/$name" | sha256sum -c --quiet - ||
          { echo "build: $name does not match the index" >&2; rm -f "$cache/debs/$name"; exit 1; }
      done
  fi
  touch "$cache/debs/.complete"
fi
x="$cache/x"
if [ ! -f "$x/.complete" ]; then
  rm -rf "$x"; mkdir -p "$x"
  for d in "$cache"/debs/*.deb; do dpkg-deb -x "$d" "$x"; done
  touch "$x/.complete"
fi
out="$cache/guest"
rm -rf "$out"; mkdir -p "$out/root"/{bin,usr/bin,lib/s390x-linux-gnu,proc,sys,tmp,dev}
r="$out/root"
# Merged /usr (trixie) moved busybox to /usr/bin.
cp "$(ls "$x/bin/busybox" "$x/usr/bin/busybox" 2>/dev/null | head -n1)" "$r/bin/busybox"
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
    f=$(find "$x/lib/modules" "$x/usr/lib/modules" -name "$m.ko*" 2>/dev/null | head -n1 || true)
    [ -n "$f" ] || { echo "build: $m not in the kernel package" >&2; exit 1; }
    case "$f" in
      *.xz) xz -dc "$f" > "$r/lib/modules/$m.ko" ;;
      *.zst) zstd -qdc "$f" > "$r/lib/modules/$m.ko" ;;
      *) cp "$f" "$r/lib/modules/$m.ko" ;;
    esac
  done
fi
chmod +x "$r/init"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initrd.gz"
cp "$x"/boot/vmlinuz-* "$out/vmlinuz"
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
