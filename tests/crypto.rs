//! Crypto-activity counters (SA23-2260, Crypto-Activity Counter Set and Coprocessor-Group
//! Counter Set) count the CPACF functions the guest issues, passed through to Hercules.
mod common;
use common::*;

#[test]
fn kimd_sha256_is_counted() {
    let out = run("crypto", &Config::default());
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    let calls = out.u64(0x3020);
    assert!(calls >= 1);
    assert_eq!(
        out.u64(0x3000),
        calls,
        "SHA function count: one per KIMD executed"
    );
    assert!(out.u64(0x3008) > 0, "SHA cycles");
    assert_eq!(out.u64(0x3010), 0, "no DEA function");
    assert_eq!(
        out.u64(0x3018),
        calls,
        "the coprocessor group counts it too"
    );
}
