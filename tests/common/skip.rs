//! Skips and retries, recorded where `scripts/test.sh` counts them: cargo test has no skip
//! status, so a test that cannot show its claim here calls [`skip`] and returns, and the
//! summary counts it as skipped, not passed.
//!
//! One line per record, appended to `$HCPUMF_TEST_RECORDS` (scripts/test.sh sets it), else
//! to `hcpumf-test-records.tsv` in the cargo target directory of the test binary:
//!
//! ```text
//! skip<TAB>CATEGORY<TAB>BINARY<TAB>TEST<TAB>REASON
//! retry<TAB>retry<TAB>BINARY<TAB>TEST<TAB>REASON
//! ```
//!
//! BINARY is the test executable's file name (`facilities-0f3e1ec75a84e46a`, as cargo's
//! "Running" line names it), TEST the test's name (the name libtest gives its thread).
//! CATEGORY is what the skip policy allows or not (`scripts/test.sh`, `HCPUMF_ALLOW_SKIP`):
//!
//! * `hercules`: the test is about one Hercules and this is the other (allowed);
//! * `download`: the Linux guests' packages could not be downloaded or the guest not built;
//! * `browser`: no Chromium (allowed with `HCPUMF_BROWSER_TESTS=0`);
//! * `root`: needs root (a tmpfs mount);
//! * `kernel`: the host kernel lacks what the test reads (schedstat, for `src/host/meter.rs`
//!   and `src/host/remote.rs`).
//!
//! `crates/report/tests/report_html.rs` includes this file with `#[path]`; the plugin's unit
//! test in `src/host/meter.rs` writes the same line by hand.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;

/// Where the records go.
pub fn records_file() -> PathBuf {
    if let Some(p) = std::env::var_os("HCPUMF_TEST_RECORDS") {
        return PathBuf::from(p);
    }
    // target/<profile>/deps/<binary>
    let exe = std::env::current_exe().expect("test executable");
    exe.ancestors()
        .nth(3)
        .map(|t| t.join("hcpumf-test-records.tsv"))
        .unwrap_or_else(|| PathBuf::from("hcpumf-test-records.tsv"))
}

fn record(kind: &str, category: &str, reason: &str) {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|e| e.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    let line = format!(
        "{kind}\t{}\t{exe}\t{}\t{}\n",
        clean(category),
        clean(test),
        clean(reason)
    );
    let file = records_file();
    // One write of one short line to a file opened for appending: lines of tests that run
    // at once do not mix.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        panic!("cannot record a {kind} in {}: {e}", file.display());
    }
}

/// This test cannot show its claim here: record why (it is counted as skipped, not passed)
/// and say so. The caller returns right after.
pub fn skip(category: &str, reason: &str) {
    record("skip", category, reason);
    eprintln!("SKIPPED ({category}): {reason}");
}

/// A run was repeated: record why (the summary lists every retry).
pub fn note_retry(reason: &str) {
    record("retry", "retry", reason);
    eprintln!("RETRY: {reason}");
}
