#!/usr/bin/env python3
"""The end of scripts/test.sh: how long each step took, then every test counted once as
passed, failed or skipped, the skipped ones listed with their reasons, and the exit status.

cargo test has no skip status: a test that cannot show its claim calls common::skip (tests/
common/skip.rs), which appends a record to a file, and returns; cargo says "ok". Here such a
test counts as skipped, not passed. A skip fails the suite unless its category is allowed:
`hercules` (a test about the other Hercules) always, the others only when listed in
HCPUMF_ALLOW_SKIP (comma- or space-separated categories, or `all`).

  test-summary.py --steps FILE [--cargo LABEL OUTPUT RECORDS]... [--runtest LABEL LOG]...
                  [--records LABEL RECORDS]...

--cargo: the output of one `cargo test` run (stdout and stderr) and its records file; its
LABEL is also the name of its step, whose failure the failed tests explain.
--runtest: the output of SDL Hyperion's tests/runtest (its own instruction tests).
--records: records of skips outside cargo test (scripts).
--steps: lines `NAME<TAB>STATUS<TAB>SECONDS` (STATUS `ok` or anything else: failed).
Exit status 0 only when every step is ok, no test failed and every skip is allowed.
"""
import os
import re
import sys

ALWAYS_ALLOWED = {"hercules", "no-rustup"}


def allowed_categories():
    raw = os.environ.get("HCPUMF_ALLOW_SKIP", "")
    return ALWAYS_ALLOWED | {c for c in re.split(r"[,\s]+", raw) if c}


def read_records(path):
    """(kind, category, binary, test, reason) per line."""
    out = []
    if not path or not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t", 4)
            if len(parts) == 5:
                out.append(tuple(parts))
    return out


RUNNING = re.compile(r"^\s+Running (?:unittests )?\S+ \((.+)\)\s*$")
DOCTESTS = re.compile(r"^\s+Doc-tests (\S+)\s*$")
RESULT_LINE = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored.*)$")
TEST_RESULT = re.compile(r"^test result: ")


def parse_cargo(path):
    """[(binary, test, status)] and the binaries that never finished."""
    tests, unfinished = [], []
    binary, finished = None, True
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = RUNNING.match(line) or DOCTESTS.match(line)
            if m:
                if binary is not None and not finished:
                    unfinished.append(binary)
                target = m.group(1)
                binary = os.path.basename(target) if RUNNING.match(line) else "doctest:" + target
                finished = False
                continue
            m = RESULT_LINE.match(line)
            if m and binary is not None:
                name = m.group(1)
                if name.endswith(" - should panic"):
                    name = name[: -len(" - should panic")]
                tests.append((binary, name, m.group(2)))
                continue
            if TEST_RESULT.match(line):
                finished = True
    if binary is not None and not finished:
        unfinished.append(binary)
    return tests, unfinished


def short(binary):
    """facilities-0f3e1ec75a84e46a -> facilities"""
    return re.sub(r"-[0-9a-f]{16}$", "", binary)


def main(argv):
    steps_file = None
    cargo, runtests, records_only = [], [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--steps":
            steps_file = argv[i + 1]
            i += 2
        elif a == "--cargo":
            cargo.append(tuple(argv[i + 1 : i + 4]))
            i += 4
        elif a == "--runtest":
            runtests.append(tuple(argv[i + 1 : i + 3]))
            i += 3
        elif a == "--records":
            records_only.append(tuple(argv[i + 1 : i + 3]))
            i += 3
        else:
            sys.exit(f"test-summary.py: unknown argument {a}")
    allow = allowed_categories()
    passed, failed, skipped, retries, parts = [], [], [], [], []

    bad_steps = []
    if steps_file and os.path.exists(steps_file):
        print("== steps")
        with open(steps_file, encoding="utf-8") as f:
            for line in f:
                name, status, secs = (line.rstrip("\n").split("\t") + ["", ""])[:3]
                print(f"  {name:<52} {status:<14} {int(secs or 0) // 60:3d} min {int(secs or 0) % 60:02d} s")
                if status != "ok":
                    bad_steps.append(f"{name}: {status}")

    for label, output, records in cargo:
        recs = read_records(records)
        skips = {(r[2], r[3]): r for r in recs if r[0] == "skip"}
        retries += [(label, r) for r in recs if r[0] == "retry"]
        n = [0, 0, 0]
        if not os.path.exists(output):
            failed.append((label, "(cargo test)", "no output: it did not run"))
            parts.append((label, n))
            continue
        tests, unfinished = parse_cargo(output)
        seen = set()
        for binary, name, status in tests:
            seen.add((binary, name))
            full = f"{short(binary)}::{name}"
            if status == "FAILED":
                failed.append((label, full, ""))
                n[1] += 1
            elif status.startswith("ignored"):
                skipped.append((label, full, "ignored", status, False))
                n[2] += 1
            elif (binary, name) in skips:
                r = skips[(binary, name)]
                skipped.append((label, full, r[1], r[4], r[1] in allow or "all" in allow))
                n[2] += 1
            else:
                passed.append((label, full))
                n[0] += 1
        for binary in unfinished:
            failed.append((label, f"{short(binary)} (all its tests)", "the test binary did not finish"))
            n[1] += 1
        for key, r in skips.items():
            if key not in seen:
                # A skip of a test cargo never reported (it crashed first): not a pass either.
                skipped.append((label, f"{short(r[2])}::{r[3]}", r[1], r[4], r[1] in allow or "all" in allow))
                n[2] += 1
        parts.append((label, n))

    for label, log in runtests:
        n = [0, 0, 0]
        if not os.path.exists(log):
            failed.append((label, "(runtest)", "no output: it did not run"))
            n[1] += 1
        else:
            text = open(log, encoding="utf-8", errors="replace").read().splitlines()
            did = [l for l in text if l.startswith("Did ")]
            pending_skip = None
            for l in text:
                m = re.match(r'^Test "(.*)":(.*)$', l)
                if m:
                    if "All pass." in m.group(2):
                        passed.append((label, m.group(1)))
                        n[0] += 1
                    else:
                        failed.append((label, m.group(1), m.group(2).strip()))
                        n[1] += 1
                elif l.startswith("SKIPPING: Testcase "):
                    pending_skip = l[len("SKIPPING: Testcase ") :]
                elif l.startswith("REASON:") and pending_skip:
                    reason = l[len("REASON:") :].strip()
                    # Hyperion's own test of a feature its build lacks: not about the plugin.
                    skipped.append((label, pending_skip, "hercules", f"runtest: {reason}", True))
                    n[2] += 1
                    pending_skip = None
            if not did or "All OK." not in did[-1]:
                failed.append((label, "(runtest)", did[-1] if did else "no 'Did N tests' line"))
                n[1] += 1
        parts.append((label, n))

    for label, records in records_only:
        n = [0, 0, 0]
        for r in read_records(records):
            if r[0] == "skip":
                skipped.append((label, f"{r[2]}: {r[3]}", r[1], r[4], r[1] in allow or "all" in allow))
                n[2] += 1
        if n[2]:
            parts.append((label, n))

    print("== tests")
    for label, n in parts:
        print(f"  {label:<22} {n[0]} passed, {n[1]} failed, {n[2]} skipped")
    if retries:
        print(f"RETRIED ({len(retries)} runs):")
        for label, r in retries:
            print(f"  [{label}] {short(r[2])}::{r[3]}: {r[4]}")
    if skipped:
        print(f"SKIPPED ({len(skipped)}):")
        for label, name, cat, reason, ok in skipped:
            verdict = "allowed" if ok else "fails CI"
            print(f"  [{label}] {name} ({cat}, {verdict}): {reason}")
    if failed:
        print(f"FAILED ({len(failed)}):")
        for label, name, why in failed:
            print(f"  [{label}] {name}{': ' + why if why else ''}")
    # A cargo test step's failure is explained by the failed tests it ran; with none, the
    # step itself failed (it did not build, or it ended otherwise).
    explained = {label for label, n in parts if n[1] > 0}
    bad_steps = [s for s in bad_steps if s.split(":")[0] not in explained]
    for s in bad_steps:
        print(f"FAILED STEP: {s}")
    disallowed = [s for s in skipped if not s[4]]
    if disallowed:
        cats = sorted({s[2] for s in disallowed})
        print(f"{len(disallowed)} skip(s) not allowed (HCPUMF_ALLOW_SKIP may list: {', '.join(cats)})")
    print(f"{len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 1 if failed or bad_steps or disallowed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
