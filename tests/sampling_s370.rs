//! Sampling in an S/370 guest (MVS 3.8J's architecture) when the operator allows it
//! (`archs=all`): LPP, QSI and LSCTL work as in z/Architecture, and a program that leaves
//! the alert-request bits off polls with QSI instead of taking measurement alerts.
mod common;
use common::*;

#[test]
fn an_s370_guest_samples_without_measurement_alerts() {
    let cfg = Config {
        archmode: "S/370",
        show: vec![(0x3000, 0xa0), (0x7f0, 0x20), (0x11000, 0x1000)],
        env: vec![("HCPUMF_OPTIONS".into(), "archs=all".into())],
        ..Config::default()
    };
    let out = run("s370_sampling", &cfg);
    // No interruption: the external new PSW would have ended the run with code E1.
    assert!(out.reached_disabled_wait(), "{}", out.log);
    assert!(
        !out.said("000000E1"),
        "an external interruption: {}",
        out.log
    );
    assert_eq!(out.u32(0x7fc), 0, "no program checks: {}", out.log);
    // QSI before: basic and diagnostic sampling authorized, nothing enabled, BSDES 32.
    assert_eq!(out.u32(0x3000) & 0x0003_0303, 0x0003_0000, "As and Ad only");
    assert_eq!(out.u16(0x3004), 32);
    // QSI after: basic sampling enabled and active (SA23-2260: a full block with A = 0
    // requests no alert and leaves the function active).
    assert_eq!(out.u32(0x3040) & 0x0000_0202, 0x0000_0202, "Es and Cs");
    // The full block sent TEAR over the table link back to the table's first entry and
    // DEAR to the (still full) block's origin (Sample-Data-Block Update Process).
    assert_eq!(out.u64(0x3058), 0x10000, "TEAR");
    assert_eq!(out.u64(0x3060), 0x11000, "DEAR");
    // Every entry of the full block samples the spin loop (one BCT at 0x103C), but for the
    // first ones, which may fall on the two instructions between LSCTL and the loop (LPP at
    // 0x1034, L at 0x1038): the CPU's cycles are its thread's host CPU time, and a host
    // that charged the thread an interval's time there (seen on a fresh machine: page faults
    // of the plugin's first LPP) puts the first sampling point there.
    for e in 0..126u64 {
        let a = 0x11000 + 32 * e;
        // SA23-2260, Basic-Sampling Data Entry: format 0001, valid, in EC mode no DAT.
        assert_eq!(out.u16(a), 0x0001, "entry {e} format");
        assert_eq!(out.u32(a) & 0x0000_0001, 0, "entry {e} valid (I = 0)");
        let ia = out.u64(a + 8);
        if !(e < 2 && (ia == 0x1034 || ia == 0x1038)) {
            assert_eq!(ia, 0x103C, "entry {e} instruction address");
        }
        // The program parameter, in the guest-program-parameter field with H = 0: the one
        // LPP loaded, or none yet in a sample of the LPP itself.
        let pp = if ia == 0x1034 { 0 } else { 0xC0DE_1234 };
        assert_eq!(out.u64(a + 16), pp, "entry {e} GPP");
    }
    // Trailer: block full (F), no alert request (A = 0), and the samples that found the
    // block still full counted in its overflow count.
    let trailer = 0x11000 + 4096 - 64;
    assert_eq!(out.bytes(trailer, 1)[0] & 0xc0, 0x80, "F = 1, A = 0");
    assert!(out.u64(trailer + 8) > 0, "overflow count");
}
