#!/usr/bin/env bash
# Idempotent set-up of a fresh Debian 12 (bookworm) or 13 (trixie) machine for building and
# testing hcpumf: Debian's hercules 3.13 and its source package for the running release (for
# the headers, configured exactly like Debian's build), the s390x assembler, libclang for
# bindgen, and a Rust toolchain (cargo, rustc, rustfmt, clippy) of at least the version
# Cargo.toml declares: an existing one on PATH (rustup's in ~/.cargo/bin included) when it is
# new enough, else Debian's (`cargo`/`rustc` on trixie, the `-web` packages on bookworm, whose
# security suite is added when missing).
#
# `setup.sh rust` stops after the Rust toolchain: what the formats and the report tool need,
# which build without Hercules.
set -euo pipefail
only=${1:-all}
root=$(cd "$(dirname "$0")/.." && pwd)
vendor="$root/vendor"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export PATH="$HOME/.cargo/bin:$PATH"

# The running release (bookworm, trixie, ...): source packages and Rust come from it.
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || codename=$(lsb_release -cs 2>/dev/null || echo bookworm)

# Rust: the minimum version is Cargo.toml's rust-version.
need_rust=$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' "$root/Cargo.toml")
version_ok() { # version_ok HAVE NEED: HAVE >= NEED (major.minor)
  local h=$1 n=$2
  [ "$(printf '%s\n%s\n' "$n" "$h" | sort -V | head -n1)" = "$n" ]
}
rust_ok() {
  command -v cargo >/dev/null && command -v rustc >/dev/null || return 1
  local v
  v=$(rustc --version 2>/dev/null | awk '{print $2}')
  version_ok "${v:-0}" "$need_rust" || return 1
  cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1
}

# regina-rexx: SDL Hyperion's own instruction tests (tests/runtest) check their output with
# a REXX script; scripts/test.sh runs them with the plugin loaded. gpgv and the archive
# keyring: the Linux guests' package indexes are checked against their signatures
# (scripts/linux-guest/debs.py); Debian 13's apt no longer brings gpgv (it uses sqv).
pkgs=(hercules binutils-s390x-linux-gnu libclang-dev clang zlib1g-dev libbz2-dev dpkg-dev build-essential cpio time curl ca-certificates xz-utils python3 regina-rexx gpgv debian-archive-keyring)
rust_pkgs=()
if ! rust_ok; then
  case "$codename" in
    bookworm) rust_pkgs=(cargo-web rustc-web rustfmt-web rust-web-clippy) ;;
    *) rust_pkgs=(cargo rustc rustfmt rust-clippy) ;;
  esac
  echo "setup: no Rust toolchain >= $need_rust with rustfmt and clippy on PATH; installing ${rust_pkgs[*]} from Debian $codename"
fi
[ "$only" = rust ] && pkgs=(build-essential ca-certificates)
missing=()
for p in "${pkgs[@]}" "${rust_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

need_update=""
# Source packages need a deb-src entry for the running release's main.
srclist=/etc/apt/sources.list.d/hcpumf-src.list
if [ "$only" != rust ] && ! grep -rqs "^deb-src .*$codename main" /etc/apt/sources.list /etc/apt/sources.list.d/ \
   && ! grep -rqs '^Types: .*deb-src' /etc/apt/sources.list.d/; then
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename main" | $SUDO tee "$srclist" >/dev/null
  need_update=1
fi
# bookworm's Rust 1.85 (the -web packages) is updated through its security suite, which a
# fresh debootstrap does not list.
if [ "${#rust_pkgs[@]}" -gt 0 ] && [ "$codename" = bookworm ] \
   && ! grep -rqs "bookworm-security" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://security.debian.org/debian-security bookworm-security main" \
    | $SUDO tee /etc/apt/sources.list.d/hcpumf-security.list >/dev/null
  need_update=1
fi
if [ ${#missing[@]} -gt 0 ] || [ -n "$need_update" ] || { [ "$only" != rust ] && [ ! -d "$vendor/hercules-3.13" ]; }; then
  $SUDO apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! rust_ok; then
  echo "setup: hcpumf needs Rust >= $need_rust with cargo fmt and cargo clippy;" \
       "found: $(rustc --version 2>/dev/null || echo 'no rustc')." \
       "Install a newer toolchain (e.g. https://rustup.rs) and run again." >&2
  exit 1
fi

if [ "$only" = rust ]; then
  echo "setup: $(rustc --version)"
  exit 0
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
echo "setup: hercules $installed, source configured in vendor/hercules-$upstream; $(rustc --version)"
