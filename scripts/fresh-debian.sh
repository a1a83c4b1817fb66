#!/usr/bin/env bash
# Try the README's two commands as a new user would, on fresh Debian systems: for each
# release (default: bookworm trixie) build a minimal chroot with debootstrap (no Rust, no
# Hercules), put a clean clone of this repository's HEAD in it, and run `scripts/demo.sh`
# then `scripts/test.sh` inside, timing each. Not part of CI (it takes the better part of an
# hour on 2 cores and downloads a few hundred MB); run it as root:
#   scripts/fresh-debian.sh [RELEASE...]      KEEP=1 keeps the chroots in $WORK
# Logs and times go to $WORK/RELEASE.{demo,test}.log and are summed up at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "fresh-debian: run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(bookworm trixie)
WORK=${WORK:-/var/tmp/hcpumf-fresh}
mkdir -p "$WORK"
command -v debootstrap >/dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }

mounted=()
cleanup() {
  local m
  for ((i=${#mounted[@]}-1; i>=0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  mounted=()
}
trap cleanup EXIT
mnt() { mount "$@"; mounted+=("${!#}"); }

summary=()
for rel in "${releases[@]}"; do
  ch="$WORK/$rel"
  if [ ! -x "$ch/usr/bin/apt-get" ]; then
    echo "== $rel: debootstrap into $ch"
    rm -rf "$ch"
    debootstrap --variant=minbase --include=ca-certificates,procps,xz-utils "$rel" "$ch" \
      http://deb.debian.org/debian > "$WORK/$rel.debootstrap.log" 2>&1
  fi
  cp /etc/resolv.conf "$ch/etc/resolv.conf"
  # A network whose TLS goes through a proxy with its own certificate authority (as the
  # development machine's does) needs that authority in the chroot too.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$ch/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$ch/usr/local/share/ca-certificates/"
    chroot "$ch" update-ca-certificates >/dev/null 2>&1 || true
  fi
  mnt -t proc proc "$ch/proc"
  mnt -t sysfs sys "$ch/sys"
  mnt --bind /dev "$ch/dev"
  mnt -t devpts devpts "$ch/dev/pts"
  mnt -t tmpfs tmpfs "$ch/dev/shm"
  rm -rf "$ch/root/hcpumf" "$ch/root/.cache/hcpumf"
  git clone -q "file://$root" "$ch/root/hcpumf"
  # The material beside the project (../shared/vendor: SDL Hyperion's source tarball), as
  # the project has it; without it scripts/hyperion.sh fetches Hyperion with git.
  rm -rf "$ch/root/shared"
  if compgen -G "$root/../shared/vendor/sdl-hyperion-*.tar.xz" >/dev/null; then
    mkdir -p "$ch/root/shared/vendor"
    cp "$root"/../shared/vendor/sdl-hyperion-*.tar.xz "$ch/root/shared/vendor/"
  fi
  for step in demo test; do
    echo "== $rel: scripts/$step.sh"
    start=$(date +%s)
    if chroot "$ch" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
         bash -c "cd /root/hcpumf && bash scripts/$step.sh" > "$WORK/$rel.$step.log" 2>&1; then
      result=ok
    else
      result="FAILED (see $WORK/$rel.$step.log)"
    fi
    secs=$(( $(date +%s) - start ))
    summary+=("$rel: scripts/$step.sh $result in ${secs} s")
    echo "   ${summary[-1]}"
    tail -3 "$WORK/$rel.$step.log" | sed 's/^/   | /'
  done
  grep -h "setup: hercules" "$WORK/$rel.demo.log" | head -1 | sed "s/^/   $rel: /" || true
  cleanup
  [ -n "${KEEP:-}" ] || rm -rf "$ch"
done
printf '\n== summary\n'
printf '%s\n' "${summary[@]}"
