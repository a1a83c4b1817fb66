//! Basic sampling end to end in guest storage (SA23-2260: LSCTL, QSI, LPP, the
//! sample-data-block update process and the program-request alert 1407).
mod common;
use common::*;

#[test]
fn samples_trailers_and_program_request_alerts() {
    let cfg = Config {
        show: vec![
            (0x3000, 0x100),
            (0x3bf0, 0x90),
            // The first three entries: the test looks for the loop among them.
            (0x20000, 0x60),
            (0x20fc0, 0x40),
            (0x21fc0, 0x40),
        ],
        ..Config::default()
    };
    let out = run("samp_basic", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    // QSI before: As = Ad = 1, nothing enabled, BSDES 32, CPU speed 4404.
    assert_eq!(out.u32(0x3000), 0x0003_0000);
    assert_eq!(out.u16(0x3004), 32);
    assert_eq!(out.u32(0x302c), 4404);
    assert_eq!((out.u32(0x3080) >> 28) & 3, 0, "LSCTL cc 0");
    // QSI while sampling: Es = Cs = 1, TEAR in the table, DEAR in an SDB.
    assert_eq!(out.u32(0x3040), 0x0003_0202);
    let tear = out.u64(0x3058);
    assert!((0x10000..0x10020).contains(&tear), "TEAR {tear:#x}");
    // After the all-zero LSCTL: disabled, TEAR/DEAR zero.
    assert_eq!(out.u32(0x30c0), 0x0003_0000);
    assert_eq!(out.u64(0x30d8), 0);
    assert_eq!(out.u64(0x30e0), 0);
    // The first sample: format 0001, CL and H 0 (a z10-compatible model, from before the CL
    // field; CL 1 from the z15 on: hcpumf_arch::sampling::entry's tests). The first of the
    // loop (`first_sample_of_loop`) has HPP = the LPP value.
    let lp = out.u64(0x3088);
    assert_eq!(out.u16(0x20000), 0x0001, "format");
    assert_eq!(
        out.bytes(0x20004, 1)[0] & 0xE0,
        0,
        "CL=0, H=0: a z10-compatible model stores zeros there"
    );
    let first = out.first_sample_of_loop(0x20000, lp);
    assert_eq!(out.u64(first + 16), 0, "GPP");
    assert_eq!(out.u64(first + 24), 0x8000_0000_0000_00AB, "HPP");
    // Full blocks: F, A (the guest's), T = 0: a z10 stores the timestamp in the STCK
    // format (docs/decisions.md, "Trailer timestamps"); BSDES/DSDES; the timestamp in
    // bytes 16-23, bytes 24-31 reserved (zeros as the guest left them).
    let t = out.bytes(0x20fc0, 8);
    assert_eq!(t[0], 0xC0, "F, A, T = 0");
    assert_eq!(&t[4..8], &[0, 32, 0, 64]);
    assert_ne!(out.u64(0x20fd0), 0, "STCK timestamp");
    assert_eq!(out.u64(0x20fd8), 0, "bytes 24-31");
    // Program-request alerts were presented as external interruptions 1407.
    let ext = out.external_interruptions();
    assert!(!ext.is_empty(), "no measurement alert:\n{}", out.log);
    for (code, param) in &ext {
        assert_eq!(*code, 0x1407);
        assert_eq!(*param & 0x2000_0000, 0x2000_0000, "PRA");
    }
}
