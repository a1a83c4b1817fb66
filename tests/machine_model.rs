//! The model follows the configuration's CPUMODEL wherever `ldmod hcpumf` stands: among the
//! system statements (where people put it, before Hercules has built the CPU ID) as well as
//! after the devices; a model set explicitly keeps precedence. What the guest sees (QCTRI's
//! version numbers, QSI's CPU speed, STIDP's machine type), the banner and `hcpumf status`
//! all show the model in force.
mod common;
use common::*;

/// (CFVN, CSVN, CPU speed, STIDP machine type, log) of a run of `model_query`.
fn query(cfg: &Config) -> (u16, u16, u32, u16, String) {
    let out = run("model_query", cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert!(out.program_checks().is_empty(), "{}", out.log);
    (
        out.u16(0x3000),
        out.u16(0x300A),
        out.u32(0x306C),
        out.u16(0x3084),
        out.log,
    )
}

fn z14(ldmod_first: bool) -> Config {
    Config {
        cpumodel: "3906",
        ldmod_first,
        after: vec!["hcpumf status".into()],
        ..Config::default()
    }
}

#[test]
fn ldmod_among_the_system_statements_follows_cpumodel() {
    let (cfvn, csvn, speed, mtype, log) = query(&z14(true));
    assert_eq!(mtype, 0x3906, "STIDP");
    assert_eq!(
        (cfvn, csvn, speed),
        (1, 5, 5208),
        "a z14 (CFVN 1, CSVN 5 as \"CPU MF Formulas\" lists it, 5208 cycles/us)"
    );
    assert!(
        log.contains("HHCMF000I")
            && log.contains("settled when Hercules has read the configuration"),
        "{log}"
    );
    let settled = log
        .lines()
        .find(|l| l.contains("HHCMF002I hcpumf model in force"))
        .unwrap_or_else(|| panic!("no HHCMF002I:\n{log}"));
    assert!(
        settled.contains("machine type 3906, CFVN 1 CSVN 5, CPU speed 5208"),
        "{settled}"
    );
    let status = log
        .lines()
        .find(|l| l.contains("HHCMF020I"))
        .expect("status");
    assert!(status.contains("machine type 3906"), "{status}");
}

#[test]
fn ldmod_after_the_devices_follows_cpumodel() {
    let (cfvn, csvn, speed, mtype, log) = query(&z14(false));
    assert_eq!(mtype, 0x3906);
    assert_eq!((cfvn, csvn, speed), (1, 5, 5208));
    let banner = log
        .lines()
        .find(|l| l.contains("HHCMF000I"))
        .expect("banner");
    assert!(
        banner.contains("machine type 3906, CFVN 1 CSVN 5"),
        "{banner}"
    );
    assert!(
        !log.contains("HHCMF002I hcpumf model"),
        "nothing was pending: {log}"
    );
}

#[test]
fn an_explicit_model_keeps_precedence() {
    for first in [true, false] {
        let cfg = Config {
            env: vec![("HCPUMF_OPTIONS".into(), "model=8561".into())],
            ..z14(first)
        };
        let (cfvn, csvn, speed, mtype, log) = query(&cfg);
        assert_eq!(mtype, 0x3906, "STIDP is Hercules'");
        assert_eq!(
            (cfvn, csvn, speed),
            (3, 6, 5200),
            "z15 by model=8561 ({first}): {log}"
        );
        let status = log
            .lines()
            .find(|l| l.contains("HHCMF020I"))
            .expect("status");
        assert!(status.contains("machine type 8561"), "{status}");
    }
}
