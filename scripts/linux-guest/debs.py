#!/usr/bin/env python3
"""Choose and download the Debian s390x packages of the Linux guest (called by build.sh).

    debs.py RELEASE DEBS_DIR

RELEASE is bookworm or trixie. The packages are the kernel image that linux-image-s390x
depends on, linux-perf of that same kernel version, busybox-static, s390-tools, and the
libraries (lib*, zlib*) of the Depends closure of linux-perf and s390-tools, which build.sh
then narrows to the ELF NEEDED closure. They are resolved as a Debian system resolves them,
from the s390x indexes of RELEASE, RELEASE-updates and RELEASE-security, each verified
against its suite's InRelease signed with the debian-archive-keyring (gpgv).

A mirror can name builds its pool no longer (or not yet) holds: for each package the highest
version any index names whose file the pool serves is taken; failing that, the latest
earlier point-release build the pool still serves, found by asking for exact file names
(pool directories have no listings). Every package is checked against the SHA-256 of an
index that names it; what was substituted for what, and what could not be checked, goes to
stderr (and into DEBS_DIR/notes). DEBS_DIR/versions lists what was taken: package,
version, where from (a suite, or pool), how checked, and the suite whose index checked it.
Standard library only: python3 is on every Debian; gpgv and the archive keyring are
installed by scripts/setup.sh (Debian 12's apt brings gpgv, Debian 13's does not).
"""
import email.utils
import hashlib
import lzma
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
ARCHIVE = "deb.debian.org/debian"
SECURITY = "security.debian.org/debian-security"
INDEX = "main/binary-s390x/Packages"
# A network operation waits at most this long for the server (connect, and each read).
TIMEOUT = 60
# Transfers that fail (timeout, reset, 5xx) are tried this often, with a pause between.
TRIES = 3
# A mirror caught syncing serves an index that differs from its Release: fetch the indexes
# this many times, INDEX_PAUSE seconds apart, before reading one as served.
INDEX_TRIES = 3
INDEX_PAUSE = 20
# Earlier builds are probed with binNMU suffixes +b1..+bBINNMU (and none): stable rarely
# rebuilds a package more than a few times (libcap2 1:2.75-10+deb13u1+b3 in trixie).
BINNMU = 3
# Point releases probed below the named one: +debNNu(K-1) down to +debNNu1, then the
# release build; K is the named build's, so the probes per package are bounded by
# (K + 1) * (BINNMU + 1) file names in each of the two pools.


# DEBS_DIR/notes keeps what say() said, for build.sh to repeat on each build from the cache.
NOTES = None


def say(msg):
    print(f"build: {msg}", file=sys.stderr, flush=True)
    if NOTES is not None:
        print(f"build: {msg}", file=NOTES, flush=True)


def die(msg):
    say(msg)
    sys.exit(1)


# --- HTTP -------------------------------------------------------------------------------

def _retrying(what, fn):
    """fn() with TRIES tries for transient failures; a 404 (an HTTPError) is an answer."""
    for attempt in range(1, TRIES + 1):
        try:
            return fn()
        except urllib.error.HTTPError as e:
            if e.code < 500 or attempt == TRIES:
                raise
        except (urllib.error.URLError, OSError) as e:
            if attempt == TRIES:
                raise OSError(f"{what}: {e}") from e
        time.sleep(5 * attempt)
    raise AssertionError("unreachable")


def get(url):
    """The body of url, or None if the server answers 404."""
    def once():
        with urllib.request.urlopen(url, timeout=TIMEOUT) as r:
            return r.read()
    try:
        return _retrying(url, once)
    except urllib.error.HTTPError as e:
        if e.code in (404, 410):
            return None
        raise


_served = {}


def served(url):
    """Whether the server has url (HEAD): the pool has no directory listings, but it
    answers for an exact file name."""
    if url not in _served:
        def once():
            req = urllib.request.Request(url, method="HEAD")
            with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
                return r.status == 200
        try:
            _served[url] = _retrying(url, once)
        except urllib.error.HTTPError as e:
            if e.code not in (404, 410):
                raise
            _served[url] = False
    return _served[url]


def download(url, dest, size=None, sha256=None):
    """url into dest through dest.part, checked against size and sha256 when known. A
    transfer is bounded: TIMEOUT per read, and no more than size bytes (or 1 GB)."""
    limit = size if size is not None else 1 << 30
    def once():
        h = hashlib.sha256()
        n = 0
        with urllib.request.urlopen(url, timeout=TIMEOUT) as r, open(dest + ".part", "wb") as f:
            while True:
                chunk = r.read(1 << 20)
                if not chunk:
                    break
                n += len(chunk)
                if n > limit:
                    raise OSError(f"{url}: more than {limit} bytes")
                h.update(chunk)
                f.write(chunk)
        return n, h.hexdigest()
    n, digest = _retrying(url, once)
    if (size is not None and n != size) or (sha256 is not None and digest != sha256):
        os.unlink(dest + ".part")
        die(f"{os.path.basename(dest)} from {url}: {n} bytes, SHA-256 {digest}; "
            f"the index says {size} bytes, SHA-256 {sha256}")
    os.replace(dest + ".part", dest)


# --- Debian versions (dpkg's order) -------------------------------------------------------

def _order(c):
    if c == "~":
        return -1
    if c == "" or c.isdigit():
        return 0
    if c.isalpha():
        return ord(c)
    return ord(c) + 256


def _verrevcmp(a, b):
    i = j = 0
    at = lambda s, k: s[k] if k < len(s) else ""
    while i < len(a) or j < len(b):
        while (at(a, i) and not at(a, i).isdigit()) or (at(b, j) and not at(b, j).isdigit()):
            ac, bc = _order(at(a, i)), _order(at(b, j))
            if ac != bc:
                return ac - bc
            i += 1
            j += 1
        while at(a, i) == "0":
            i += 1
        while at(b, j) == "0":
            j += 1
        first = 0
        while at(a, i).isdigit() and at(b, j).isdigit():
            if not first:
                first = ord(a[i]) - ord(b[j])
            i += 1
            j += 1
        if at(a, i).isdigit():
            return 1
        if at(b, j).isdigit():
            return -1
        if first:
            return first
    return 0


def _split(v):
    epoch, _, rest = v.partition(":") if ":" in v else ("0", "", v)
    up, _, rev = rest.rpartition("-") if "-" in rest else (rest, "", "")
    return int(epoch or 0), up, rev


def vcmp(a, b):
    ea, ua, ra = _split(a)
    eb, ub, rb = _split(b)
    return (ea > eb) - (ea < eb) or _verrevcmp(ua, ub) or _verrevcmp(ra, rb)


class V:
    """A version that sorts as dpkg sorts."""
    def __init__(self, v):
        self.v = v
    def __lt__(self, o):
        return vcmp(self.v, o.v) < 0
    def __eq__(self, o):
        return vcmp(self.v, o.v) == 0


def noepoch(v):
    return v.split(":", 1)[1] if ":" in v else v


# --- Signed indexes -----------------------------------------------------------------------

class Suite:
    def __init__(self, name, host):
        self.name, self.host = name, host
        self.base = f"http://{host}"
        self.packages = {}  # name -> [paragraph]
        self.signed = False  # the index matched its signed Release
        self.want = {}  # index path -> (sha256, size) from the signed Release


def release(suite):
    """The signed text of suite's InRelease (or Release + Release.gpg), verified by gpgv
    against the Debian archive keyring; None if the suite has no s390x index."""
    dists = f"{suite.base}/dists/{suite.name}"
    text = None
    inrel = get(f"{dists}/InRelease")
    if inrel is not None:
        text = gpgv(inrel, None)
    if text is None:
        rel, sig = get(f"{dists}/Release"), get(f"{dists}/Release.gpg")
        if rel is None or sig is None:
            die(f"{suite.name}: no InRelease or Release at {dists}")
        text = gpgv(rel, sig)
    if text is None:
        die(f"{suite.name}: its Release is not signed by a key of {KEYRING}")
    fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", text, re.M))
    # A validly signed Release of another suite (an old one, say) must not stand in.
    if fields.get("Codename") != suite.name:
        die(f"{suite.name}: the signed Release is for {fields.get('Codename')}")
    m = re.search(r"^SHA256:\n((?: .*\n?)*)", text, re.M)
    for line in (m.group(1) if m else "").splitlines():
        sha, size, path = line.split()
        suite.want[path] = (sha, int(size))
    # apt refuses a Release past its Valid-Until (a mirror that stopped syncing); here the
    # build goes on with what the mirror has, and says so.
    until = fields.get("Valid-Until")
    if until and email.utils.parsedate_to_datetime(until).timestamp() < time.time():
        say(f"{suite.name}: its Release expired on {until} (the mirror is stale): used anyway")
    suite.by_hash = fields.get("Acquire-By-Hash") == "yes"
    suite.version = fields.get("Version", "?")
    if not any(p.startswith(INDEX) for p in suite.want):
        say(f"{suite.name} has no s390x index (Architectures: {fields.get('Architectures')}): "
            "not used")
        return None
    return text


def gpgv(data, sig):
    """The signed content of data (a clearsigned InRelease, or a Release with detached sig)
    if a key of the keyring signed it, else None. Only what gpgv prints is trusted: text
    around a clearsigned message is not signed."""
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "r")
        with open(f, "wb") as o:
            o.write(data)
        args = ["gpgv", "--keyring", KEYRING, "--output", os.path.join(d, "out")]
        if sig is not None:
            with open(f + ".gpg", "wb") as o:
                o.write(sig)
            args += [f + ".gpg", f]
        else:
            args += [f]
        p = subprocess.run(args, capture_output=True)
        if p.returncode != 0:
            return None
        if sig is not None:
            return data.decode()
        with open(os.path.join(d, "out"), "rb") as o:
            return o.read().decode()


def fetch_index(suite):
    """The suite's s390x Packages if it matches the signed Release, else None."""
    dists = f"{suite.base}/dists/{suite.name}"
    for path in (INDEX + ".xz", INDEX):
        if path not in suite.want:
            continue
        sha, size = suite.want[path]
        urls = [f"{dists}/{path}"]
        if suite.by_hash:
            urls.insert(0, f"{dists}/{os.path.dirname(path)}/by-hash/SHA256/{sha}")
        for url in urls:
            body = get(url)
            if body is not None and len(body) == size and hashlib.sha256(body).hexdigest() == sha:
                return lzma.decompress(body) if path.endswith(".xz") else body
    return None


def parse(index):
    """Packages paragraphs: name -> [paragraph (the fields used here)]."""
    keep = {"Package", "Version", "Depends", "Provides", "Filename", "Size", "SHA256"}
    out = {}
    for block in index.decode("utf-8", "replace").split("\n\n"):
        p = {}
        for line in block.split("\n"):
            if line and not line[0].isspace() and ":" in line:
                k, _, v = line.partition(":")
                if k in keep:
                    p[k] = v.strip()
        if "Package" in p and "Filename" in p:
            out.setdefault(p["Package"], []).append(p)
    return out


def load(rel):
    suites = [Suite(rel, ARCHIVE), Suite(f"{rel}-updates", ARCHIVE),
              Suite(f"{rel}-security", SECURITY)]
    used = [s for s in suites if release(s) is not None]
    todo = list(used)
    for attempt in range(1, INDEX_TRIES + 1):
        for s in list(todo):
            body = fetch_index(s)
            if body is not None:
                s.packages, s.signed = parse(body), True
                todo.remove(s)
        if not todo or attempt == INDEX_TRIES:
            break
        time.sleep(INDEX_PAUSE)
    for s in todo:
        # Seen for days on end (deb.debian.org, security.debian.org): the s390x Packages.xz
        # differs from what the signed Release names, and no by-hash copy of the named one
        # exists. Read the index as served over HTTPS, and check packages against it.
        url = f"https://{s.host}/dists/{s.name}/{INDEX}.xz"
        body = get(url)
        if body is None:
            die(f"{s.name}: {url}: 404")
        sha, size = s.want.get(INDEX + ".xz", ("?", "?"))
        say(f"{s.name}: its s390x Packages.xz ({len(body)} bytes, SHA-256 "
            f"{hashlib.sha256(body).hexdigest()[:16]}...) does not match its signed Release "
            f"({size} bytes, {sha[:16]}...) after {INDEX_TRIES} tries: using the index as "
            "served over HTTPS, unsigned, and checking the packages it names against it")
        s.packages = parse(lzma.decompress(body))
    return used


# --- Choosing builds ----------------------------------------------------------------------

class Build:
    """One build of a package: where its file is, and the index paragraph (and its suite)
    that its file is checked against, if any."""
    def __init__(self, name, version, suite, url, para=None, by=None, sums=None):
        self.name, self.version, self.suite, self.url, self.para = name, version, suite, url, para
        self.by, self.sums = by, sums

    @property
    def check(self):
        if self.by is None:
            return "not-checked"
        return "signed-index" if self.by.signed else "unsigned-index"

    @property
    def where(self):
        if self.suite is None:
            return "pool, named by no index: not checked"
        if not self.by.signed:
            return f"{self.suite.name}, unsigned index as served over HTTPS"
        if self.by is not self.suite:
            return f"{self.suite.name}, checked against {self.by.name}'s signed index"
        return self.suite.name


class Resolver:
    def __init__(self, suites):
        self.suites = suites
        self.tried = {}  # name -> ["version (suite, 404)", ...] in the order tried
        self.providers = {}
        for s in suites:
            for name, paras in s.packages.items():
                for p in paras:
                    for prov in dep_names(p.get("Provides", "")):
                        self.providers.setdefault(prov, set()).add(name)

    def named(self, name):
        """Every (version, suite, paragraph) naming name, highest version first; among equal
        versions, suites in the order release, -updates, -security."""
        out = [(p["Version"], s, p) for s in self.suites for p in s.packages.get(name, [])]
        return sorted(out, key=lambda t: V(t[0]), reverse=True)

    def try_named(self, name, version=None):
        for v, s, p in self.named(name):
            if version is not None and v != version:
                continue
            if served(f"http://{s.host}/{p['Filename']}"):
                # A build (name, version, architecture) is one file in the whole archive:
                # any signed index that names it checks it, whichever pool serves it.
                by, sums = next(((s2, p2) for v2, s2, p2 in self.named(name)
                                 if v2 == v and s2.signed), (s, p))
                # What no signed index checks comes over HTTPS.
                scheme = "http" if by.signed else "https"
                return Build(name, v, s, f"{scheme}://{s.host}/{p['Filename']}", p, by, sums)
            self.tried.setdefault(name, []).append(f"{v} ({s.name}, 404)")
        return None

    def probe(self, name, versions):
        """The first of versions (highest first) that a pool serves, as a file name in the
        directory of the package's newest named build, in the archive's pool and then the
        security archive's (pool/updates/...)."""
        named = self.named(name)
        if not named:
            return None
        fn = named[0][2]["Filename"]
        d = os.path.dirname(fn).replace("pool/updates/", "pool/", 1)
        stem = os.path.basename(fn).split("_")[0]
        arch = os.path.basename(fn).rsplit("_", 1)[1]
        known = {v for v, _, _ in named}
        for v in versions:
            if v in known:
                continue
            f = f"{stem}_{noepoch(v)}_{arch}"
            for url in (f"https://{ARCHIVE}/{d}/{f}",
                        f"https://{SECURITY}/{d.replace('pool/', 'pool/updates/', 1)}/{f}"):
                if served(url):
                    return Build(name, v, None, url)
        return None

    def pick(self, name):
        """The highest named build the pool serves, else the latest earlier point-release
        build it still serves."""
        b = self.try_named(name)
        if b is None:
            named = self.named(name)
            if not named:
                die(f"{name}: no index names it")
            b = self.probe(name, earlier(named[0][0]))
        if b is None:
            die(f"{name}: no build the pool serves ({', '.join(self.tried.get(name, []))}, "
                "and no earlier point-release build)")
        return b

    def kernel(self):
        """The highest kernel image any index names (the one linux-image-s390x depends on in
        the index that names the newest) whose file is served together with linux-perf of
        the same version; else the next highest image, and so on: the security suite keeps
        the images of earlier point releases. (The DASD modules are in the image package,
        so they match it.)"""
        images = set()
        for s in self.suites:
            images |= {n for n in s.packages if re.fullmatch(r"linux-image-[0-9].*-s390x", n)}
        cands = sorted({(v, n) for n in images for v, _, _ in self.named(n)},
                       key=lambda t: (V(t[0]), t[1]), reverse=True)
        self.skipped = []  # the kernels passed over, and why
        for v, n in cands:
            img = self.try_named(n, v)
            if img is None:
                self.skipped += [f"{n} {t}" for t in self.tried[n] if t.startswith(f"{v} ")]
                continue
            perf = self.try_named("linux-perf", v) or self.probe("linux-perf", [v])
            if perf is not None:
                return img, perf
            self.skipped.append(f"{n} {v} ({img.where}; no linux-perf {v} served)")
        die("no kernel image with its linux-perf served: " + ", ".join(self.skipped))

    def closure(self, roots):
        """The packages reachable from roots through Depends (every alternative, and every
        provider of a virtual package), as `apt-cache depends --recurse --no-pre-depends`
        lists them. Libraries (lib*, zlib*) are chosen as they are reached, and their chosen
        build's Depends followed; other packages follow their highest named build."""
        chosen, seen, stack = {}, set(), list(roots)
        for b in roots:
            chosen[b.name] = b
            seen.add(b.name)
        while stack:
            b = stack.pop()
            para = b.para or (self.named(b.name)[0][2] if self.named(b.name) else {})
            for dep in dep_names(para.get("Depends", "")):
                for n in [dep] + sorted(self.providers.get(dep, ())):
                    if n in seen or not self.named(n):
                        continue
                    seen.add(n)
                    if re.match(r"(lib|zlib)", n):
                        nb = chosen[n] = self.pick(n)
                    else:
                        v, s, p = self.named(n)[0]
                        nb = Build(n, v, s, None, p)
                    stack.append(nb)
        return [b for n, b in sorted(chosen.items()) if b not in roots]


def dep_names(field):
    """Package names in a Depends/Provides field: every alternative, without version,
    architecture qualifier or restriction."""
    out = []
    for group in field.split(","):
        for alt in group.split("|"):
            alt = alt.strip()
            if alt:
                out.append(re.split(r"[\s(\[<]", alt, 1)[0].split(":")[0])
    return out


def earlier(version):
    """Candidate earlier point-release builds of version, highest first: for V+debNNuK, the
    binNMUs below its own, then V+debNNu(K-1)..u1 with binNMUs +bBINNMU..+b1 and none, then
    the release build V likewise (not for V~debNNuK, a backport whose release build is
    another version); for V+bM (no point release), V+b(M-1)..V."""
    m = re.fullmatch(r"(.*?)(?:([+~])deb(\d+)u(\d+))?(?:\+b(\d+))?", version)
    base, sep, deb, k, b = m.groups()
    out = []
    if b:
        out += [f"{version.rsplit('+b', 1)[0]}+b{i}" for i in range(int(b) - 1, 0, -1)]
        out.append(version.rsplit("+b", 1)[0])
    bins = lambda v: [f"{v}+b{i}" for i in range(BINNMU, 0, -1)] + [v]
    if k:
        for u in range(int(k) - 1, 0, -1):
            out += bins(f"{base}{sep}deb{deb}u{u}")
        if sep == "+":
            out += bins(base)
    return [v for v in out if vcmp(v, version) < 0]


# --- Main ---------------------------------------------------------------------------------

def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("bookworm", "trixie"):
        sys.exit("usage: debs.py bookworm|trixie DEBS_DIR")
    rel, debs = sys.argv[1], sys.argv[2]
    os.makedirs(debs, exist_ok=True)
    global NOTES
    NOTES = open(os.path.join(debs, "notes"), "w")
    suites = load(rel)
    if not suites or suites[0].name != rel:
        die(f"{rel}: no s390x index")
    r = Resolver(suites)
    image, perf = r.kernel()
    roots = [image, perf, r.pick("busybox-static"), r.pick("s390-tools")]
    builds = roots + r.closure([perf, roots[3]])

    # Say what was substituted for what: every higher build some index names that was not
    # taken, and why.
    for b in builds:
        named = r.named(b.name)
        if named and (named[0][0], named[0][1]) != (b.version, b.suite):
            why = r.tried.get(b.name) or [
                f"{v} ({s.name}, not taken: the kernel is {image.version})"
                for v, s, _ in named if vcmp(v, b.version) > 0]
            say(f"{b.name} {', '.join(why)} -> {b.version} ({b.where})")
    if r.skipped:
        say(f"kernel: {', '.join(r.skipped)} -> {image.name} {image.version} ({image.where})")

    keep = set()
    for b in builds:
        f = os.path.basename(b.url)
        keep.add(f)
        p = b.sums
        checked = p is not None
        size, sha = (int(p["Size"]), p["SHA256"]) if checked else (None, None)
        dest = os.path.join(debs, f)
        if checked and os.path.exists(dest) and os.path.getsize(dest) == size and \
                hashlib.sha256(open(dest, "rb").read()).hexdigest() == sha:
            continue
        download(b.url, dest, size, sha)
    # Builds of an earlier resolution would be unpacked along with these.
    for f in os.listdir(debs):
        if f.endswith(".deb") and f not in keep:
            os.unlink(os.path.join(debs, f))

    unsigned = sorted(b.name for b in builds if b.check == "unsigned-index")
    unchecked = sorted(b.name for b in builds if b.check == "not-checked")
    signed = len(builds) - len(unsigned) - len(unchecked)
    say(f"{rel}: {len(builds)} packages from " + ", ".join(
        f"{s.name} ({'signed' if s.signed else 'unsigned'}, Version {s.version})"
        for s in suites) + f"; {signed} checked against a signed index")
    if unsigned:
        say(f"checked only against an index that does not match its signed Release: "
            f"{' '.join(unsigned)}")
    if unchecked:
        say(f"not checked (named by no index): {' '.join(unchecked)}")
    with open(os.path.join(debs, "versions"), "w") as o:
        for b in builds:
            o.write(f"{b.name} {b.version} {b.suite.name if b.suite else 'pool'} {b.check}"
                    f"{' ' + b.by.name if b.by else ''}\n")


if __name__ == "__main__":
    main()
