//! S/370 and ESA/390 guests (MVS 3.8J runs in S/370 mode) get the instructions only when the
//! operator allows it (`archs=all`); otherwise they do not exist there (operation exception).
mod common;
use common::*;

fn s370(options: Option<&str>) -> Outcome {
    let mut cfg = Config {
        archmode: "S/370",
        show: vec![(0x3000, 0x50), (0x7f0, 0x20)],
        ..Config::default()
    };
    if let Some(o) = options {
        cfg.env.push(("HCPUMF_OPTIONS".into(), o.into()));
    }
    run("s370_qctri", &cfg)
}

#[test]
fn s370_guests_get_an_operation_exception_by_default() {
    let out = s370(None);
    assert_eq!(out.u32(0x7fc), 3, "QCTRI, LCCTL and ECCTR: {}", out.log);
    for i in 0..3 {
        assert_eq!(out.u32(0x800 + 4 * i), 0x0001, "operation exception");
    }
}

#[test]
fn s370_guests_use_the_counter_facility_with_archs_all() {
    let out = s370(Some("archs=all"));
    assert_eq!(out.u32(0x7fc), 0, "no program checks: {}", out.log);
    assert_eq!(out.u16(0x3000), 1, "CFVN");
    assert_eq!(out.u16(0x3002) & 0x000F, 0x000F, "B, P, C, E authorized");
    assert_eq!(out.u16(0x300A), 1, "CSVN");
    // ECCTR of the instruction counter right after enabling: cc 0 and a small count.
    assert_eq!((out.u32(0x3044) >> 28) & 3, 0, "ECCTR cc 0");
    assert!(out.u32(0x3040) < 100, "a few instructions counted");
}

fn s370_timing(before: &[&str]) -> Outcome {
    let cfg = Config {
        archmode: "S/370",
        show: vec![(0x3000, 0x20), (0x7f0, 0x20)],
        env: vec![("HCPUMF_OPTIONS".into(), "archs=all".into())],
        before: before.iter().map(|s| s.to_string()).collect(),
        ..Config::default()
    };
    run("s370_timing", &cfg)
}

/// docs/mvs-timing.md: with the counter controls loaded by the operator and problem-state
/// extraction authorized for S/370 (whose CR0 has no bit 15), a problem-state program
/// reads its CPU's counters: the instruction counter grows by the loop's 100,000 BCTs and
/// the few instructions around them, the cycle counter by more than that.
#[test]
fn an_s370_problem_state_program_times_a_loop_with_ecctr() {
    let out = s370_timing(&["hcpumf lcctl counters=b extract=yes"]);
    assert!(out.log.contains("HHCMF023I"), "{}", out.log);
    assert_eq!(out.u32(0x7fc), 0, "no program checks: {}", out.log);
    assert_eq!((out.u32(0x3010) >> 28) & 3, 0, "ECCTR cc 0");
    let instructions = out.u32(0x300C).wrapping_sub(out.u32(0x3004));
    let cycles = out.u32(0x3008).wrapping_sub(out.u32(0x3000));
    // Between the two reads: L, 100,000 BCTs, LA, ECCTR, ST, LA, then the ECCTR itself.
    assert!(
        (100_000..=100_010).contains(&instructions),
        "{instructions} instructions"
    );
    assert!(cycles > instructions, "{cycles} cycles");
}

/// Without the operator's extraction authorization a problem-state ECCTR is a
/// privileged-operation exception (code 0002), as with CR0 bit 15 off in z/Architecture.
#[test]
fn without_the_operators_extraction_authorization_problem_state_ecctr_is_privileged() {
    let out = s370_timing(&["hcpumf lcctl counters=b"]);
    assert_eq!(out.u32(0x7fc), 4, "four ECCTRs: {}", out.log);
    for i in 0..4 {
        assert_eq!(out.u32(0x800 + 4 * i), 0x0002, "privileged operation");
    }
}
