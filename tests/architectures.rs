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
