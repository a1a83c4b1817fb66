#!/usr/bin/env bash
# scripts/hyperion.sh - build SDL Hyperion (Hercules 4.x) from the vendored source tarball
# into a cache directory, once per tarball, and print where it is.
#
#   scripts/hyperion.sh [--force] [--no-deps]
#
# Tarball: $HCPUMF_HYPERION_TARBALL, default ../shared/vendor/sdl-hyperion-*.tar.xz relative
# to the repository root (this script's directory/..); exactly one must match.
# Cache:   ${HCPUMF_CACHE:-$HOME/.cache/hcpumf}/hyperion-<first 16 hex of the tarball's
#          sha256>/ with
#            src/     the unpacked, configured and built source tree (what a module is
#                     compiled against: -DHAVE_CONFIG_H -I src -I src/{crypto,decNumber,
#                     SoftFloat,telnet}/include)
#            prefix/  the `make install` prefix (prefix/bin/hercules, prefix/lib/hercules/)
#            build.log, stamp
# The stamp is written last and holds the tarball's full sha256: a build that was
# interrupted (or failed) has no stamp and is redone from scratch on the next run; a
# different tarball gets a different directory. Concurrent runs wait on a lock.
#
# stdout: shell-style assignments, e.g.
#   HYPERION_SRC=/root/.cache/hcpumf/hyperion-2a9ca99b65d94308/src
#   HYPERION_PREFIX=/root/.cache/hcpumf/hyperion-2a9ca99b65d94308/prefix
#   HYPERION_HERCULES=.../prefix/bin/hercules
#   HYPERION_MODDIR=.../prefix/lib/hercules
#   HYPERION_VERSION=4.9.0.0
# so that a caller can `eval "$(scripts/hyperion.sh)"`. Progress goes to stderr.
#
# Environment: HCPUMF_HYPERION_TARBALL, HCPUMF_CACHE, HCPUMF_HYPERION_JOBS (make -j,
# default nproc; the vendored tree takes about 6.5 min at -j1 on 2 cores).
set -euo pipefail

SECONDS=0
me=hyperion.sh
say() { printf '%s [%4ds] %s\n' "$me" "$SECONDS" "$*" >&2; }
die() { printf '%s [%4ds] error: %s\n' "$me" "$SECONDS" "$*" >&2; exit 1; }

force=0
deps=1
for arg in "$@"; do
    case $arg in
        --force) force=1 ;;
        --no-deps) deps=0 ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) die "unknown argument '$arg' (try --help)" ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# --- the tarball --------------------------------------------------------------------------
if [[ -n ${HCPUMF_HYPERION_TARBALL:-} ]]; then
    tarball=$HCPUMF_HYPERION_TARBALL
    [[ -f $tarball ]] || die "HCPUMF_HYPERION_TARBALL=$tarball: no such file"
else
    shopt -s nullglob
    found=("$root"/../shared/vendor/sdl-hyperion-*.tar.xz)
    shopt -u nullglob
    if (( ${#found[@]} == 0 )); then
        die "no $root/../shared/vendor/sdl-hyperion-*.tar.xz; set HCPUMF_HYPERION_TARBALL to an SDL Hyperion source tarball"
    elif (( ${#found[@]} > 1 )); then
        die "several tarballs match, set HCPUMF_HYPERION_TARBALL to one of: ${found[*]}"
    fi
    tarball=${found[0]}
fi
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

sha=$(sha256sum "$tarball" | cut -d' ' -f1)
sums=$(dirname "$tarball")/SHA256SUMS
if [[ -f $sums ]] && grep -q " [ *]\?$(basename "$tarball")\$" "$sums"; then
    want=$(grep " [ *]\?$(basename "$tarball")\$" "$sums" | cut -d' ' -f1)
    [[ $want == "$sha" ]] || die "$tarball: sha256 $sha does not match $sums ($want)"
fi

cache=${HCPUMF_CACHE:-$HOME/.cache/hcpumf}
dir=$cache/hyperion-${sha:0:16}
src=$dir/src
prefix=$dir/prefix
stamp=$dir/stamp
log=$dir/build.log

report() {
    local version
    version=$(sed -n 's/^version=//p' "$stamp")
    printf 'HYPERION_SRC=%s\n' "$src"
    printf 'HYPERION_PREFIX=%s\n' "$prefix"
    printf 'HYPERION_HERCULES=%s\n' "$prefix/bin/hercules"
    printf 'HYPERION_MODDIR=%s\n' "$prefix/lib/hercules"
    printf 'HYPERION_VERSION=%s\n' "$version"
}

up_to_date() {
    [[ -f $stamp ]] && [[ $(sed -n 's/^sha256=//p' "$stamp") == "$sha" ]] \
        && [[ -x $prefix/bin/hercules ]] && [[ -f $src/config.h ]]
}

mkdir -p "$cache"
exec 9>"$dir.lock"
if ! flock -n 9; then
    say "waiting for another build in $dir (lock $dir.lock)"
    flock 9
fi

if (( ! force )) && up_to_date; then
    say "up to date: $dir ($(basename "$tarball"))"
    report
    exit 0
fi

# --- Debian packages ----------------------------------------------------------------------
# libltdl-dev: configure always selects libtool's lt_dlopen for the module loader
# (configure.ac AC_LIB_LTDL, "use of lt_dlopen forced"), and without ltdl.h/libltdl.so the
# link of `hercules` fails with "undefined reference to lt_dlopen" (it comes in as a
# Recommends of libtool, so an apt-get without --no-install-recommends hides the need).
need=(autoconf automake libtool libltdl-dev m4 cmake flex gawk zlib1g-dev libbz2-dev gcc make
      xz-utils)
if (( deps )); then
    if command -v dpkg-query >/dev/null && command -v apt-get >/dev/null; then
        missing=()
        for p in "${need[@]}"; do
            [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true) == installed ]] \
                || missing+=("$p")
        done
        if (( ${#missing[@]} )); then
            if (( EUID == 0 )); then
                sudo=()
            elif command -v sudo >/dev/null; then
                sudo=(sudo)
            else
                die "need the packages ${missing[*]}: run as root or install sudo"
            fi
            say "installing ${missing[*]}"
            apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
            if ! "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2; then
                "${apt[@]}" update -q >&2
                "${apt[@]}" install -y -q --no-install-recommends "${missing[@]}" >&2
            fi
        fi
    else
        say "not a Debian system: not installing packages (need: ${need[*]})"
    fi
fi

# --- build --------------------------------------------------------------------------------
say "building SDL Hyperion from $(basename "$tarball") (sha256 ${sha:0:16}...) in $dir; log $log"
rm -rf "$src" "$prefix" "$stamp"
mkdir -p "$src"
: >"$log"

# Each step runs in its own session (setsid) so that an interrupted run (Ctrl-C, SIGTERM
# from a caller's timeout) takes configure/make and all their children with it, and
# without the lock's descriptor, so no orphan can hold the lock or write into a tree the
# next run unpacks again.
step_pid=
on_signal() {
    [[ -n $step_pid ]] && kill -TERM -- "-$step_pid" 2>/dev/null
    say "interrupted: $dir has no stamp, the next run builds it again"
    exit 130
}
trap on_signal INT TERM HUP

step() {   # step NAME COMMAND...: run in src/, output to the log, tail of the log on failure
    local name=$1 t0=$SECONDS; shift
    say "$name ..."
    (cd "$src" && exec setsid "$@") 9>&- </dev/null >>"$log" 2>&1 &
    step_pid=$!
    if ! wait "$step_pid"; then
        step_pid=
        tail -n 40 "$log" >&2
        die "$name failed after $((SECONDS - t0)) s (full log: $log); the next run starts again"
    fi
    step_pid=
    say "$name done in $((SECONDS - t0)) s"
}

jobs=${HCPUMF_HYPERION_JOBS:-$(nproc)}
step unpack tar -xJf "$tarball" --strip-components=1 -C "$src"
step configure ./configure --prefix="$prefix"
step "make -j$jobs" make -j"$jobs"
step "make install" make install

hercules=$prefix/bin/hercules
[[ -x $hercules ]] || die "no $hercules after make install (log: $log)"
version=$("$hercules" --version 2>&1 | sed -n 's/.*Hercules version \([^ ]*\).*/\1/p' | head -n1 || true)
[[ -n $version ]] || die "$hercules --version printed no 'Hercules version' line (log: $log)"

tmp=$stamp.tmp
{
    printf 'sha256=%s\n' "$sha"
    printf 'tarball=%s\n' "$tarball"
    printf 'version=%s\n' "$version"
    printf 'built=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf 'seconds=%s\n' "$SECONDS"
} >"$tmp"
mv "$tmp" "$stamp"
say "built Hercules $version in $SECONDS s"
report
