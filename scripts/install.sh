#!/usr/bin/env bash
# Build the plugin and install it where Hercules looks for modules, so that a plain
# `ldmod hcpumf` works in any configuration. Also installs hcpumf-report.
#
#   scripts/install.sh                   Debian's Hercules 3.13: /usr/lib/hercules/hcpumf.so
#   scripts/install.sh --hyperion PREFIX an SDL Hyperion installed in PREFIX (its `make
#                                        install` prefix): PREFIX/lib/hercules/hcpumf.so
#
# For Hyperion the plugin is built against that Hyperion's own configured and built source
# tree: HERCULES_SRC, else PREFIX/../src (the layout scripts/hyperion.sh makes). With
# HERCULES_SRC naming a Hyperion tree and no --hyperion, PREFIX is the tree's configured
# prefix. The Hyperion build goes to target/hyperion (CARGO_TARGET_DIR to change it), so it
# does not replace the 3.13 build in target/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="$HOME/.cargo/bin:$PATH"
die() { echo "install: $*" >&2; exit 1; }

prefix=""
while (( $# )); do
    case $1 in
        --hyperion) [[ $# -ge 2 ]] || die "--hyperion needs the PREFIX of an installed SDL Hyperion"
                    prefix=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (try --help)" ;;
    esac
done

is_hyperion_tree() { [[ -f $1/config.h && -f $1/_archdep_templ.c ]]; }
if [[ -z $prefix && -n ${HERCULES_SRC:-} ]] && is_hyperion_tree "$HERCULES_SRC"; then
    prefix=$(sed -n 's/^prefix = //p' "$HERCULES_SRC/Makefile" 2>/dev/null || true)
    [[ -n $prefix ]] || die "HERCULES_SRC=$HERCULES_SRC is a Hyperion tree without a Makefile prefix: use --hyperion PREFIX"
fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
[[ ${HCPUMF_NO_SETUP:-0} == 1 ]] || bash scripts/setup.sh

if [[ -z $prefix ]]; then
    cargo build --release --workspace
    $SUDO install -m 0644 target/release/libhcpumf.so /usr/lib/hercules/hcpumf.so
    $SUDO install -m 0755 target/release/hcpumf-report /usr/local/bin/hcpumf-report
    echo "install: /usr/lib/hercules/hcpumf.so (ldmod hcpumf), /usr/local/bin/hcpumf-report"
    exit 0
fi

prefix=$(cd "$prefix" 2>/dev/null && pwd) || die "no directory $prefix"
[[ -x $prefix/bin/hercules && -f $prefix/lib/libherc.so ]] \
    || die "$prefix is not an installed SDL Hyperion (no bin/hercules, lib/libherc.so)"
src=${HERCULES_SRC:-$prefix/../src}
is_hyperion_tree "$src" \
    || die "no configured SDL Hyperion source tree at $src: set HERCULES_SRC to the tree $prefix was built from"
src=$(cd "$src" && pwd)
moddir=$prefix/lib/hercules
target=${CARGO_TARGET_DIR:-$root/target/hyperion}
echo "install: building for SDL Hyperion $("$prefix/bin/hercules" --version 2>&1 | sed -n 's/.*Hercules version \([^ ]*\).*/\1/p' | head -n1) (source $src)"
HERCULES_SRC=$src HYPERION_PREFIX=$prefix CARGO_TARGET_DIR=$target cargo build --release --workspace
# Hyperion's module directory belongs to whoever installed it (a user's own prefix needs no
# sudo); hcpumf-report goes beside its hercules.
if [[ -w $moddir ]]; then s=(); else s=($SUDO); fi
"${s[@]}" install -d "$moddir"
"${s[@]}" install -m 0644 "$target/release/libhcpumf.so" "$moddir/hcpumf.so"
"${s[@]}" install -m 0755 "$target/release/hcpumf-report" "$prefix/bin/hcpumf-report"
echo "install: $moddir/hcpumf.so (ldmod hcpumf in $prefix/bin/hercules), $prefix/bin/hcpumf-report"
