#!/usr/bin/env bash
# Idempotent set-up of a fresh Debian bookworm machine for building and testing hcpumf:
# Debian's hercules 3.13, its source (for the headers, configured exactly like Debian's build),
# the s390x assembler, and libclang for bindgen.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
vendor="$root/vendor"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

pkgs=(hercules binutils-s390x-linux-gnu libclang-dev clang zlib1g-dev libbz2-dev dpkg-dev build-essential cpio time)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Source packages need a deb-src entry for bookworm main.
srclist=/etc/apt/sources.list.d/hcpumf-src.list
if ! grep -rqs '^deb-src .*bookworm main' /etc/apt/sources.list /etc/apt/sources.list.d/ \
   && ! grep -rqs '^Types: .*deb-src' /etc/apt/sources.list.d/; then
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" | $SUDO tee "$srclist" >/dev/null
  need_update=1
fi
if [ ${#missing[@]} -gt 0 ] || [ -n "${need_update:-}" ] || [ ! -d "$vendor/hercules-3.13" ]; then
  $SUDO apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

installed=$(dpkg-query -W -f='${Version}' hercules)
upstream=${installed%%-*}
mkdir -p "$vendor"
if [ ! -f "$vendor/hercules-$upstream/config.h" ]; then
  (cd "$vendor" && apt-get source --download-only "hercules=$installed" >/dev/null 2>&1 || \
   apt-get source --download-only hercules >/dev/null 2>&1 || true)
  tarball=$(ls "$vendor"/hercules_"$upstream".orig.tar.* 2>/dev/null | head -n1 || true)
  if [ -z "$tarball" ]; then
    echo "setup: could not download the source of hercules $installed (apt-get source)" >&2
    exit 1
  fi
  rm -rf "$vendor/hercules-$upstream"
  tar -C "$vendor" -xf "$tarball"
  (cd "$vendor/hercules-$upstream" && ./configure >/dev/null 2>&1) || {
    echo "setup: ./configure of hercules $upstream failed" >&2; exit 1; }
fi
srcver=$(sed -n 's/^#define VERSION "\(.*\)"/\1/p' "$vendor/hercules-$upstream/config.h")
if [ "$srcver" != "$upstream" ]; then
  echo "setup: installed hercules is $installed but the configured source is $srcver: they must match" >&2
  exit 1
fi
ln -sfn "hercules-$upstream" "$vendor/hercules"
echo "setup: hercules $installed, source configured in vendor/hercules-$upstream"
