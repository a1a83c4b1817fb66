#!/usr/bin/env bash
# scripts/hyperion.sh - build SDL Hyperion (Hercules 4.x) from the vendored source tarball,
# or else from GitHub, into a cache directory, once per source, and print where it is.
#
#   scripts/hyperion.sh [--force] [--no-deps]
#
# Source: the tarball $HCPUMF_HYPERION_TARBALL, default ../shared/vendor/sdl-hyperion-*.tar.xz
# relative to the repository root (this script's directory/..); when set, or when exactly one
# matches, that is built, as always. When none matches (a clone without ../shared, e.g. on a
# CI machine), the same Hyperion is fetched with git instead: tag Release_4.9 = commit
# 2d2c4054e442b491314ec9c6e51806cdc4277c70 of https://github.com/SDL-Hercules-390/hyperion,
# whose `git archive`, trimmed as ../shared/vendor/README.md says, is file for file the
# vendored tarball (its four external packages, crypto, decNumber, SoftFloat and telnet,
# come in it prebuilt for x86_64 Linux). On another CPU those four are cloned from
# SDL-Hercules-390/<name> at pinned commits and built with cmake into the tree, where
# Hyperion's configure looks for them (src/<name>/{include,lib[/<cpu>]}).
# HCPUMF_HYPERION_SOURCE=git takes the git way even when a tarball is there (=tarball: never).
#
# Cache:   ${HCPUMF_CACHE:-$HOME/.cache/hcpumf}/hyperion-<first 16 hex of the tarball's
#          sha256>/, or for the git way hyperion-git-<first 16 hex of the sha256 of what was
#          fetched: the commits, and whether the external packages were built>/, with
#            src/     the unpacked, configured and built source tree (what a module is
#                     compiled against: -DHAVE_CONFIG_H -I src -I src/{crypto,decNumber,
#                     SoftFloat,telnet}/include)
#            prefix/  the `make install` prefix (prefix/bin/hercules, prefix/lib/hercules/)
#            build.log, stamp
# The stamp is written last and holds that full sha256: a build that was interrupted (or
# failed) has no stamp and is redone from scratch on the next run; another source gets
# another directory. Concurrent runs wait on a lock.
#
# stdout: shell-style assignments, e.g.
#   HYPERION_SRC=/root/.cache/hcpumf/hyperion-2a9ca99b65d94308/src
#   HYPERION_PREFIX=/root/.cache/hcpumf/hyperion-2a9ca99b65d94308/prefix
#   HYPERION_HERCULES=.../prefix/bin/hercules
#   HYPERION_MODDIR=.../prefix/lib/hercules
#   HYPERION_VERSION=4.9.0.0-SDL
# so that a caller can `eval "$(scripts/hyperion.sh)"`. Progress goes to stderr.
#
# Environment: HCPUMF_HYPERION_TARBALL, HCPUMF_HYPERION_SOURCE (auto, tarball or git),
# HCPUMF_HYPERION_GIT_BASE (where the git way clones hyperion, crypto, decNumber, SoftFloat
# and telnet from, default https://github.com/SDL-Hercules-390), HCPUMF_HYPERION_EXTPKGS
# (auto: prebuilt on x86_64, else built; prebuilt; build), HCPUMF_CACHE,
# HCPUMF_HYPERION_JOBS (make -j, default nproc; the vendored tree takes about 6.5 min at
# -j1 on 2 cores).
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

# The git way: the commit the vendored tarball was made from, and the external packages'
# commits (each repository's newest when Release_4.9 was tagged) for a CPU they do not come
# prebuilt for.
git_base=${HCPUMF_HYPERION_GIT_BASE:-https://github.com/SDL-Hercules-390}
git_base=${git_base%/}
hyperion_tag=Release_4.9
hyperion_commit=2d2c4054e442b491314ec9c6e51806cdc4277c70
extpkgs=(crypto decNumber SoftFloat telnet)
declare -A extpkg_commit=(
    [crypto]=9ac58405c2b91fb7cd230aed474dc7059f0fcad9
    [decNumber]=995184583107625015bb450228a5f3fb781d9502
    [SoftFloat]=e053494d988ec0648c92f683abce52597bfae745
    [telnet]=384b2542dfc9af67ca078e2bc13487a8fc234a3f
)

# --- the source: the tarball, or else git -------------------------------------------------
source_kind=${HCPUMF_HYPERION_SOURCE:-auto}
case $source_kind in auto|tarball|git) ;; *)
    die "HCPUMF_HYPERION_SOURCE=$source_kind: auto, tarball or git" ;;
esac
tarball=
if [[ $source_kind == git ]]; then
    :
elif [[ -n ${HCPUMF_HYPERION_TARBALL:-} ]]; then
    tarball=$HCPUMF_HYPERION_TARBALL
    [[ -f $tarball ]] || die "HCPUMF_HYPERION_TARBALL=$tarball: no such file"
else
    shopt -s nullglob
    found=("$root"/../shared/vendor/sdl-hyperion-*.tar.xz)
    shopt -u nullglob
    if (( ${#found[@]} == 0 )); then
        [[ $source_kind == auto ]] \
            || die "no $root/../shared/vendor/sdl-hyperion-*.tar.xz; set HCPUMF_HYPERION_TARBALL to an SDL Hyperion source tarball"
        say "no $(cd "$root/.." && pwd)/shared/vendor/sdl-hyperion-*.tar.xz: taking Hyperion $hyperion_tag from $git_base/hyperion"
        source_kind=git
    elif (( ${#found[@]} > 1 )); then
        die "several tarballs match, set HCPUMF_HYPERION_TARBALL to one of: ${found[*]}"
    else
        tarball=${found[0]}
    fi
fi

cache=${HCPUMF_CACHE:-$HOME/.cache/hcpumf}
if [[ -n $tarball ]]; then
    source_kind=tarball
    tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

    sha=$(sha256sum "$tarball" | cut -d' ' -f1)
    sums=$(dirname "$tarball")/SHA256SUMS
    if [[ -f $sums ]] && grep -q " [ *]\?$(basename "$tarball")\$" "$sums"; then
        want=$(grep " [ *]\?$(basename "$tarball")\$" "$sums" | cut -d' ' -f1)
        [[ $want == "$sha" ]] || die "$tarball: sha256 $sha does not match $sums ($want)"
    fi
    dir=$cache/hyperion-${sha:0:16}
    what=$(basename "$tarball")
else
    # The external packages: prebuilt (the x86_64 libraries in Hyperion's own tree, as in
    # the tarball), or built here for this CPU.
    mode=${HCPUMF_HYPERION_EXTPKGS:-auto}
    case $mode in
        auto) if [[ $(uname -m) == x86_64 ]]; then mode=prebuilt; else mode=build; fi ;;
        prebuilt|build) ;;
        *) die "HCPUMF_HYPERION_EXTPKGS=$mode: auto, prebuilt or build" ;;
    esac
    # What Hyperion's configure calls the CPU (its lib/ subdirectory for the packages, none
    # on x86) and the packages' bitness (their library names: libcrypto64.a).
    cpu=$(uname -m)
    case $cpu in
        i*86|x86*) cpu_subdir= ;;
        aarch64*|arm64) cpu_subdir=aarch64 ;;
        arm*) cpu_subdir=arm ;;
        e2k*) cpu_subdir=e2k ;;
        mips*) cpu_subdir=mips ;;
        ppc*|powerpc*) cpu_subdir=ppc ;;
        riscv64*) cpu_subdir=riscv64 ;;
        sparc*) cpu_subdir=sparc ;;
        s390x*) cpu_subdir=s390x ;;
        xscale*) cpu_subdir=xscale ;;
        *) cpu_subdir=unknown ;;
    esac
    bits=$(getconf LONG_BIT 2>/dev/null || echo 64)
    key="git hyperion $hyperion_commit, trimmed as the vendored tarball"$'\n'
    if [[ $mode == prebuilt ]]; then
        key+="extpkgs prebuilt"
    else
        key+="extpkgs built for $cpu/$bits:"
        for p in "${extpkgs[@]}"; do key+=" $p=${extpkg_commit[$p]}"; done
    fi
    sha=$(printf '%s\n' "$key" | sha256sum | cut -d' ' -f1)
    dir=$cache/hyperion-git-${sha:0:16}
    what="$hyperion_tag (${hyperion_commit:0:8}) from git, external packages ${mode/%build/built here}"
fi
src=$dir/src
prefix=$dir/prefix
stamp=$dir/stamp
log=$dir/build.log
work=$dir/work

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
    say "up to date: $dir ($what)"
    report
    exit 0
fi

# --- Debian packages ----------------------------------------------------------------------
# libltdl-dev: configure always selects libtool's lt_dlopen for the module loader
# (configure.ac AC_LIB_LTDL, "use of lt_dlopen forced"), and without ltdl.h/libltdl.so the
# link of `hercules` fails with "undefined reference to lt_dlopen" (it comes in as a
# Recommends of libtool, so an apt-get without --no-install-recommends hides the need).
# git and ca-certificates (for https) only for the git way; cmake builds the external
# packages there.
need=(autoconf automake libtool libltdl-dev m4 cmake flex gawk zlib1g-dev libbz2-dev gcc make
      xz-utils)
[[ $source_kind == git ]] && need+=(git ca-certificates)
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
say "building SDL Hyperion from $what (key ${sha:0:16}...) in $dir; log $log"
rm -rf "$src" "$prefix" "$stamp" "$work"
mkdir -p "$src"
: >"$log"

# Each step runs in its own session (setsid) so that an interrupted run (Ctrl-C, SIGTERM
# from a caller's timeout) takes configure/make and all their children with it, and
# without the lock's descriptor, so no orphan can hold the lock or write into a tree the
# next run unpacks again.
step_pid=
step_hint=
on_signal() {
    [[ -n $step_pid ]] && kill -TERM -- "-$step_pid" 2>/dev/null
    say "interrupted: $dir has no stamp, the next run builds it again"
    exit 130
}
trap on_signal INT TERM HUP

step_in() {   # step_in DIR NAME COMMAND...: run in DIR, output to the log, its tail on failure
    local in=$1 name=$2 t0=$SECONDS; shift 2
    say "$name ..."
    (cd "$in" && exec setsid "$@") 9>&- </dev/null >>"$log" 2>&1 &
    step_pid=$!
    if ! wait "$step_pid"; then
        step_pid=
        tail -n 40 "$log" >&2
        die "$name failed after $((SECONDS - t0)) s (full log: $log); the next run starts again${step_hint:+; $step_hint}"
    fi
    step_pid=
    say "$name done in $((SECONDS - t0)) s"
}
step() { step_in "$src" "$@"; }   # step NAME COMMAND...: in src/

# fetch_commit DIR URL COMMIT [TAG]: COMMIT into a new repository DIR, as little of the
# history as the server allows: the tag, else the commit by its id (GitHub serves both
# shallow), else every branch and tag; each way tried twice (a flaky network). Runs in a
# step, as `bash -c`, so it is written out with `declare -f`.
fetch_commit() {
    local dir=$1 url=$2 commit=$3 tag=${4:-} try
    export GIT_TERMINAL_PROMPT=0
    git init -q "$dir"
    for try in 1 2; do
        if [[ -n $tag ]] \
            && git -C "$dir" fetch --no-tags --depth 1 "$url" "refs/tags/$tag" \
            && [[ $(git -C "$dir" rev-parse -q --verify 'FETCH_HEAD^{commit}') == "$commit" ]]; then
            return 0
        fi
        if git -C "$dir" fetch --no-tags --depth 1 "$url" "$commit" \
            && git -C "$dir" cat-file -e "$commit^{commit}"; then
            return 0
        fi
        if git -C "$dir" fetch --no-tags "$url" '+refs/heads/*:refs/remotes/origin/*' \
                '+refs/tags/*:refs/tags/*' \
            && git -C "$dir" cat-file -e "$commit^{commit}"; then
            return 0
        fi
        echo "fetch_commit: no commit $commit from $url (try $try)"
        (( try == 2 )) || sleep 5
    done
    return 1
}
fetch_step() {   # fetch_step NAME DIR URL COMMIT [TAG]
    local name=$1; shift
    step_hint="no network to $git_base? Put the vendored tarball at $(cd "$root/.." && pwd)/shared/vendor/ or name it in HCPUMF_HYPERION_TARBALL"
    step_in "$dir" "$name" bash -c "$(declare -f fetch_commit); fetch_commit \"\$@\"" fetch_commit "$@"
    step_hint=
}

jobs=${HCPUMF_HYPERION_JOBS:-$(nproc)}
if [[ $source_kind == tarball ]]; then
    step unpack tar -xJf "$tarball" --strip-components=1 -C "$src"
else
    mkdir -p "$work"
    fetch_step "git fetch $git_base/hyperion $hyperion_tag" "$work/hyperion" \
        "$git_base/hyperion" "$hyperion_commit" "$hyperion_tag"
    # As the vendored tarball was made (../shared/vendor/README.md): `git archive`, less
    # what a Linux build does not use. No .git in src/, so that Hyperion's _dynamic_version
    # says 4.9.0.0-SDL there as for the tarball, at make and at the plugin's build alike.
    # shellcheck disable=SC2016 # the script's own $1..$3
    step "unpack ${hyperion_commit:0:8}" bash -c 'set -euo pipefail
        git -C "$1" archive --format=tar "$2" | tar -x -C "$3"
        rm -rf "$3/msvc.makefile.includes"
        find "$3" -type f \( -name "*.pdf" -o -name "*.lib" -o -name "*.dll" -o -name "*.exe" \
            -o -name "*.pdb" -o -name "lib*32*.a" \) -delete' \
        unpack "$work/hyperion" "$hyperion_commit" "$src"
    if [[ $mode == build ]]; then
        # Each package's own way (its BUILDING, and the LIB_INSTALL_DIR its `build` script
        # passes for a CPU other than x86): cmake in a directory named <name><bits>.Release,
        # installed into src/<name>, where configure looks by default.
        for p in "${extpkgs[@]}"; do
            fetch_step "git fetch $git_base/$p" "$work/$p" "$git_base/$p" "${extpkg_commit[$p]}"
            step_in "$work/$p" "checkout $p" git -c advice.detachedHead=false checkout -q \
                "${extpkg_commit[$p]}"
            b=$work/$p$bits.Release
            mkdir -p "$b"
            libdir=()
            [[ -n $cpu_subdir ]] && libdir=(-D "LIB_INSTALL_DIR=lib/$cpu_subdir")
            step_in "$b" "cmake $p" cmake -D "INSTALL_PREFIX=$src/$p" "${libdir[@]}" "$work/$p"
            step_in "$b" "make $p" make -j"$jobs"
            step_in "$b" "make install $p" make install
            f=$src/$p/lib${cpu_subdir:+/$cpu_subdir}/lib$p$bits.a
            [[ -f $f ]] || die "no $f after building $p (log: $log)"
        done
    fi
fi
step configure ./configure --prefix="$prefix"
step "make -j$jobs" make -j"$jobs"
step "make install" make install

hercules=$prefix/bin/hercules
[[ -x $hercules ]] || die "no $hercules after make install (log: $log)"
version=$("$hercules" --version 2>&1 | sed -n 's/.*Hercules version \([^ ]*\).*/\1/p' | head -n1 || true)
[[ -n $version ]] || die "$hercules --version printed no 'Hercules version' line (log: $log)"
rm -rf "$work"

tmp=$stamp.tmp
{
    printf 'sha256=%s\n' "$sha"
    if [[ $source_kind == tarball ]]; then
        printf 'tarball=%s\n' "$tarball"
    else
        printf 'git=%s/hyperion %s %s\n' "$git_base" "$hyperion_tag" "$hyperion_commit"
        if [[ $mode == build ]]; then
            printf 'extpkgs=built for %s/%s:' "$(uname -m)" "$bits"
            for p in "${extpkgs[@]}"; do printf ' %s=%s' "$p" "${extpkg_commit[$p]}"; done
            printf '\n'
        else
            printf 'extpkgs=prebuilt\n'
        fi
    fi
    printf 'version=%s\n' "$version"
    printf 'built=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf 'seconds=%s\n' "$SECONDS"
} >"$tmp"
mv "$tmp" "$stamp"
say "built Hercules $version in $SECONDS s"
report
