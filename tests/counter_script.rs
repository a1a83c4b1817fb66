//! The counter facility's instructions as a table of cases in one guest run
//! (tests/guest/ctr_script.s): for QCTRI, LCCTL, ECCTR, SCCTR, STCCTM, LPCTL, EPCTR, SPCTR
//! and ECPGA every condition code and program exception SA23-2260 lists ("Instructions"),
//! the CR0 bit 15 rule for ECCTR and STCCTM in the problem state, access exceptions through
//! Hercules' own storage access (addressing, key-controlled protection), and the state
//! machine of Figures 2-1 and 2-2 (all-or-nothing LCCTL/LPCTL, counters cleared when a set
//! is disabled, counting only while active, authorization by external means).
//!
//! The expectations live next to the instructions: each `CASE n, "cc N" | "pic 0xNN",
//! "rule"` line of the guest is parsed here and checked against the record the guest
//! stored; the values the cases leave behind are checked below.
mod common;
use common::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Cc(u8),
    Pic(u16),
}

struct Case {
    n: u64,
    expect: Expect,
    rule: String,
}

/// The `CASE` lines of the guest source `tests/guest/<name>.s`.
fn cases(name: &str) -> Vec<Case> {
    let src = std::fs::read_to_string(root().join(format!("tests/guest/{name}.s")))
        .expect("guest source");
    let mut v = Vec::new();
    for line in src.lines() {
        let Some(rest) = line.trim_start().strip_prefix("CASE ") else {
            continue;
        };
        let (n, rest) = rest.split_once(',').expect("CASE n, ...");
        let quoted: Vec<&str> = rest.split('"').collect();
        let (expect, rule) = (quoted[1], quoted[3]);
        let expect = if let Some(cc) = expect.strip_prefix("cc ") {
            Expect::Cc(cc.parse().expect("cc"))
        } else if let Some(pic) = expect.strip_prefix("pic 0x") {
            Expect::Pic(u16::from_str_radix(pic, 16).expect("pic"))
        } else {
            panic!("bad expectation in: {line}")
        };
        v.push(Case {
            n: n.trim().parse().expect("case number"),
            expect,
            rule: rule.to_string(),
        });
    }
    v
}

/// Run script `name` under `cfg` (model, options, operator commands, CPUs, storage to
/// show besides the defaults) and check every case against its CASE line.
fn run_script(name: &str, mut cfg: Config) -> Outcome {
    let cases = cases(name);
    for (i, c) in cases.iter().enumerate() {
        assert_eq!(c.n, i as u64 + 1, "cases are numbered 1, 2, ... in order");
    }
    cfg.config.push("DIAG8CMD ENABLE".into());
    cfg.show.push((0x4000, 4 * (cases.len() as u64 + 1)));
    cfg.timeout = 40;
    let out = run(name, &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(
        out.u32(0x33f0) as usize,
        cases.len(),
        "the script ran to its end\n{}",
        out.log
    );
    let mut wrong = Vec::new();
    for c in &cases {
        let rec = out.bytes(0x4000 + 4 * c.n, 4);
        let (cc, pic) = (rec[0], u16::from_be_bytes([rec[2], rec[3]]));
        let got = if pic != 0 {
            Expect::Pic(pic)
        } else {
            Expect::Cc(cc)
        };
        if got != c.expect {
            wrong.push(format!(
                "case {}: {} -- expected {:?}, got {:?}",
                c.n, c.rule, c.expect, got
            ));
        }
    }
    assert!(wrong.is_empty(), "{name}:\n{}\n", wrong.join("\n"));
    out
}

/// The harness's default storage displays and `extra`.
fn show(extra: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut v = Config::default().show;
    v.extend_from_slice(extra);
    v
}

const EE: u64 = 0xEEEE_EEEE_EEEE_EEEE;

#[test]
fn counter_instructions_case_by_case() {
    let out = run_script(
        "ctr_script",
        Config {
            show: show(&[(0x4400, 0x300), (0x3ff_ffe0, 0x20), (0x5000, 0x40)]),
            ..Config::default()
        },
    );

    // QCTRI (Figure 2-27): CFVN 1, B P C E and the coprocessor group authorized, nothing
    // enabled or active, maximum CPU address 7, CSVN 1, maximum group address 0; the
    // reserved bytes are set to zeros (the area was preset to 0xEE).
    let q = out.bytes(0x3000, 64);
    assert_eq!(q[..14], [0, 1, 0x80, 0x0F, 0, 0, 0, 0, 0, 7, 0, 1, 0, 0]);
    assert!(q[14..].iter().all(|&b| b == 0), "reserved: zeros {q:02x?}");
    // No alignment: the same block stored at 0x3041, nothing around it.
    assert_eq!(out.bytes(0x3041, 64), q);
    assert_eq!(out.bytes(0x3040, 1), [0xEE]);
    assert_eq!(out.bytes(0x3081, 1), [0xEE]);
    // Access exceptions: nothing stored.
    assert!(out.bytes(0x3ff_ffe0, 0x20).iter().all(|&b| b == 0));
    assert!(out.bytes(0x5000, 0x40).iter().all(|&b| b == 0));
    // The specification and access cases changed no control.
    assert_eq!(out.u16(0x30c4), 0, "enable controls");
    assert_eq!(out.u16(0x30c6), 0, "activation controls");

    assert_eq!(out.u64(0x3180), 0x55, "ECCTR cc 3 leaves R1 unchanged");
    assert_eq!(out.u64(0x3188), 0x1234, "SCCTR then ECCTR");
    assert_eq!(
        out.u64(0x3190),
        out.u64(0x3198),
        "an inactive set does not count"
    );
    let counted = out.u64(0x31a8).wrapping_sub(out.u64(0x31a0));
    // About 10,006 instructions; Hercules' instruction count moves in steps of up to 12 and
    // SA23-2260 promises measurement data "only substantially accurate".
    assert!(
        (9_900..10_100).contains(&counted),
        "an active set counts the 10000 loops: {counted}"
    );
    let set = out.u64(0x31b8);
    assert!(
        (1_000_000..1_000_100).contains(&set),
        "SCCTR of an active counter: it counts on from the value set: {set}"
    );
    assert_eq!(
        out.u64(0x31b0),
        0,
        "counters cleared when the set is disabled"
    );

    // All-or-nothing: the refused LCCTL left counter 128 and the controls as they were
    // (P unauthorized by external means, its enable control gone with its authorization).
    assert_eq!(out.u64(0x31e8), 0x4321);
    assert_eq!(out.u16(0x3102), 0x800B, "authorization B C E and the group");
    assert_eq!(out.u16(0x3104), 0x000B, "enabled B C E");
    assert_eq!(out.u16(0x3106), 0x0000, "nothing activated");
    // With the groups unauthorized for the CPU it observes them unauthorized (QCTRI
    // programming note 2): neither authorized nor enabled nor active although the global
    // controls say active.
    assert_eq!(out.u16(0x3142), 0x000F);
    assert_eq!(out.u16(0x3144), 0x000B);
    assert_eq!(out.u16(0x3146), 0x000B);

    assert_eq!(out.u64(0x31c0), 77, "SPCTR then EPCTR");
    // Not cleared by the unauthorization (SA23-2260, Coprocessor-Group Counter Set), nor
    // by the unauthorized CPU's LPCTL of zeros (same state: cc 0, no state change).
    assert_eq!(out.u64(0x31d0), 77, "group counters kept");
    assert_eq!(out.u64(0x31c8), 0, "group counters cleared when disabled");
    assert_eq!(
        out.u64(0x31d8),
        0x1234_5678_0000_0000,
        "ECPGA: bits 0-31 kept, 32-39 and 56-63 zero, group 0 in 40-55"
    );
    assert_eq!(out.u64(0x31e0), 0x66, "ECPGA cc 3 leaves R1 unchanged");

    // A pending loss-of-CPU-counter-data request is cleared when no CPU counter set is
    // enabled; a counter-authorization-change request is not (SA23-2260, Measurement Alert).
    assert_eq!(
        out.u64(0x3310),
        1,
        "the authorization change of the enabled problem-state set stayed pending"
    );
    assert_eq!(out.u64(0x3318), 0, "loss of counter data cleared");
    assert_eq!(out.u64(0x3320), 1, "authorization change presented");
    assert_eq!(
        out.external_interruptions(),
        vec![(0x1407, 0x0000_0080), (0x1407, 0x0000_0080)]
    );

    // STCCTM stores (areas preset to 0xEE).
    let ee = EE;
    assert_eq!(out.u64(0x4410), 0x22, "basic counter 2");
    assert_eq!(out.u64(0x4418), 0x33);
    assert_eq!(out.u64(0x4420), 0x44);
    assert_eq!(out.u64(0x4428), 0x55);
    assert_eq!(
        out.u64(0x4430),
        ee,
        "cc 2: only the 6 counters of the set stored"
    );
    assert_eq!(out.u64(0x4460), 0x44, "cc 1: 5 stored");
    assert_eq!(out.u64(0x4468), ee, "cc 1: not the sixth");
    assert_eq!(out.u64(0x4480), 0x1234, "extended counter 128");
    for k in 1..24 {
        assert_eq!(out.u64(0x4480 + 8 * k), 0, "extended counter {}", 128 + k);
    }
    for k in 0..16 {
        assert_eq!(out.u64(0x4580 + 8 * k), 0, "crypto counter {}", 64 + k);
    }
    assert_eq!(out.u64(0x4600), ee, "crypto: 16 stored of 17 requested");
    assert_eq!(
        out.u64(0x4650),
        ee,
        "problem-state: 6 stored of 65535 requested"
    );
    assert_ne!(out.u64(0x4660), ee, "problem state with CR0 bit 15: stored");
    assert_eq!(out.u64(0x4670), 0x22, "basic counter 2");
    for k in 0..12 {
        assert_eq!(
            out.u64(0x46a0 + 8 * k),
            ee,
            "cc 3 / exceptions: nothing stored"
        );
    }
}

/// CFVN 3 / CSVN 6 (z15): 2 problem-state counters, 20 crypto, 160 extended; LCCTL bits
/// 42/58 ignored, 43/59 specification.
#[test]
fn counter_version_rules_z15() {
    let out = run_script(
        "ctr_script_z15",
        Config {
            cpumodel: "8561",
            show: show(&[(0x4400, 0x700)]),
            ..Config::default()
        },
    );
    let q = out.bytes(0x3000, 16);
    assert_eq!(
        q[..4],
        [0, 3, 0x80, 0x0F],
        "CFVN 3; B P C E and the group authorized"
    );
    assert_eq!(q[10..12], [0, 6], "CSVN 6");
    assert_ne!(out.u64(0x4408), EE, "problem-state: 2 stored");
    assert_eq!(out.u64(0x4410), EE, "problem-state: only 2 stored");
    assert_ne!(out.u64(0x44d8), EE, "crypto: 20 stored");
    assert_eq!(out.u64(0x44e0), EE, "crypto: only 20 stored");
    assert_eq!(out.u64(0x4500 + 8 * 159), 0x287, "extended counter 287");
    assert_eq!(out.u64(0x4a00), EE, "extended: only 160 stored");
}

/// CSVN 4 (a z13: "CPU MF Formulas", SMF113_2_CTRVN2 4 = z13/z13s): LCCTL bits 42, 43, 58
/// and 59 ignored; extended counters up to 255. (A z14 is CSVN 5 there, where bits 43 and
/// 59 must be zero.)
#[test]
fn counter_version_rules_csvn4_z13() {
    let out = run_script(
        "ctr_script_z13",
        Config {
            cpumodel: "2964",
            ..Config::default()
        },
    );
    let q = out.bytes(0x3000, 16);
    assert_eq!(
        q[..8],
        [0, 1, 0x80, 0x0F, 0, 0x0F, 0, 0],
        "enabled B P C E only"
    );
    assert_eq!(q[10..12], [0, 4], "CSVN 4");
}

/// No coprocessor groups installed: LPCTL, EPCTR and SPCTR set cc 3; QCTRI shows no group
/// authorization.
#[test]
fn no_coprocessor_groups() {
    let out = run_script(
        "ctr_script_nocg",
        Config {
            env: vec![("HCPUMF_OPTIONS".into(), "cgroups=0".into())],
            ..Config::default()
        },
    );
    assert_eq!(
        out.u16(0x3002),
        0x000F,
        "no A_g without groups\n{}",
        out.log
    );
}

/// Every set unauthorized by the operator before the guest starts: only the same-state
/// (all zeros) LCCTL/LPCTL succeed, no counter is available.
#[test]
fn unauthorized_sets() {
    let out = run_script(
        "ctr_script_unauth",
        Config {
            before: vec!["hcpumf auth counters=none".into()],
            show: show(&[(0x4400, 0x40)]),
            ..Config::default()
        },
    );
    assert_eq!(
        out.bytes(0x3002, 6),
        [0; 6],
        "A, E, C all zero\n{}",
        out.log
    );
    assert_eq!(out.u64(0x4400), EE, "nothing stored");
}

/// The coprocessor groups are global, their authorization per CPU: CPU 1 reads what CPU 0
/// set; unauthorized, it observes the unauthorized state and cannot change the global
/// controls (its LPCTL of zeros is the same state: cc 0, no change).
#[test]
fn coprocessor_groups_across_cpus() {
    let out = run_script(
        "ctr_script_mp",
        Config {
            numcpu: 2,
            start_all: true,
            ..Config::default()
        },
    );
    assert_eq!(out.u64(0x3180), 99, "CPU 1 extracts CPU 0's counter");
    assert_eq!(out.u64(0x3188), 99, "still enabled and unchanged");
    // CPU 1 unauthorized: no A_g, and the groups shown neither enabled nor active.
    assert_eq!(out.bytes(0x3002, 6), [0, 0x0F, 0, 0, 0, 0], "{}", out.log);
    // CPU 0: authorized, the global controls enabled and active.
    assert_eq!(out.bytes(0x3042, 6), [0x80, 0x0F, 0x80, 0, 0x80, 0]);
}
