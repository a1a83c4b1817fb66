//! Every counter-facility instruction with its condition codes and program exceptions in a
//! real Hercules run (SA23-2260: QCTRI, LCCTL, ECCTR, SCCTR, STCCTM, LPCTL, EPCTR, SPCTR,
//! ECPGA; the CR0 bit 15 rule; access exceptions through Hercules' DAT).
mod common;
use common::*;

#[test]
fn condition_codes_and_program_exceptions() {
    let out = run("counter_instr", &Config::default());
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    // Program interruptions in order: specification for LCCTL bit 0, ECCTR R2, STCCTM M3 4,
    // STCCTM misaligned, LPCTL bit 0; addressing for QCTRI and LCCTL beyond storage;
    // privileged operation for ECCTR, QCTRI, STCCTM in the problem state without CR0 bit
    // 15; special operation for STCCTM M3 9 with it; privileged for LCCTL.
    // Then specification for SCCTR R2, STCCTM misaligned, EPCTR and SPCTR R2, ECPGA R2,
    // addressing for STCCTM beyond storage, and privileged operation for SCCTR, LPCTL,
    // EPCTR, SPCTR, ECPGA, LPP, QSI and LSCTL in the problem state.
    let expected: Vec<u16> = vec![
        6, 6, 6, 6, 6, 5, 5, // supervisor steps 2-26
        6, 6, 5, 6, 6, 6, // steps 36-42
        2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, // problem state 27-29, 43-50
        0x13, 2, // steps 31, 32
    ];
    assert_eq!(out.program_checks(), expected, "{}", out.log);
    let cc = |n: u64| out.bytes(0x3200 + n, 1)[0];
    for (step, want) in [
        (3, 0),
        (4, 3),
        (5, 0),
        (6, 3),
        (8, 0),
        (9, 0),
        (10, 0),
        (11, 1),
        (12, 2),
        (13, 3),
        (16, 3),
        (17, 0),
        (18, 0),
        (19, 0),
        (20, 3),
        (21, 0),
        (22, 3),
        (30, 0),
        (33, 0),
        (34, 3),
        (35, 3),
        (41, 3),
    ] {
        assert_eq!(cc(step), want, "step {step}");
    }
    // QCTRI at the start: CFVN 1, B P C E and the group authorized, nothing enabled,
    // max CPU address 7, CSVN 1.
    assert_eq!(
        out.bytes(0x3000, 14),
        [0, 1, 0x80, 0x0F, 0, 0, 0, 0, 0, 7, 0, 1, 0, 0]
    );
    // After LCCTL and LPCTL: all enabled and active.
    assert_eq!(out.bytes(0x3042, 6), [0x80, 0x0F, 0x80, 0x0F, 0x80, 0x0F]);
    let instr = out.u64(0x3080);
    assert!(instr > 0 && instr < 100, "instruction count {instr}");
    assert_eq!(out.u64(0x3088), 0x55, "R1 unchanged on cc 3");
    assert_eq!(out.u64(0x3090), 0x1234, "SCCTR then ECCTR");
    assert_eq!(out.u64(0x3098), 77, "SPCTR then EPCTR");
    assert_eq!(
        out.u64(0x30a0),
        0x1234_5678_0000_0000,
        "ECPGA: bits 0-31 kept, group 0"
    );
    // STCCTM basic: cycles and instructions counted, L1 counters zero, nothing beyond.
    assert!(out.u64(0x3100) > 0 && out.u64(0x3108) > 0);
    for k in 2..6 {
        assert_eq!(out.u64(0x3100 + 8 * k), 0, "basic counter {k}");
    }
    assert_eq!(
        out.u64(0x3130),
        0xEEEE_EEEE_EEEE_EEEE,
        "not stored past the set"
    );
    assert_eq!(out.u64(0x3158), 0xEEEE_EEEE_EEEE_EEEE, "cc 1 stored only 3");
}
