//! Unit tests of the counter facility against SA23-2260 (Figure 2-2 transitions, every
//! instruction's condition codes and exceptions, the QCTRI layout, resets).

use super::*;

fn z10() -> MachineModel {
    MachineModel::for_machine_type(0x2097)
}
fn meter(i: u64, ns: u64, pi: u64, pns: u64) -> MeterReading {
    MeterReading {
        instructions: i,
        cpu_ns: ns,
        problem_instructions: pi,
        problem_cpu_ns: pns,
    }
}
fn sup(m: MeterReading) -> CpuView {
    CpuView {
        meter: m,
        ..Default::default()
    }
}
fn authorized(m: &MachineModel) -> CpuCounters {
    let c = CpuCounters::new();
    c.set_authorization(m, CounterSets::CPU_SETS, &MeterReading::default());
    c
}
/// LCCTL operand: enable halfword in bits 32-47, activation in 48-63.
fn op(e: CounterSets, c: CounterSets) -> u64 {
    (u64::from(e.bits()) << 16) | u64::from(c.bits())
}
const SETS: [CounterSet; 4] = [
    CounterSet::Basic,
    CounterSet::ProblemState,
    CounterSet::CryptoActivity,
    CounterSet::Extended,
];

fn put_in(c: &CpuCounters, m: &MachineModel, set: CounterSet, st: SetState) {
    let b = set.bit();
    let now = MeterReading::default();
    match st {
        SetState::Unauthorized => {
            c.set_authorization(m, c.authorization() - b, &now);
        }
        _ => {
            c.set_authorization(m, c.authorization() | b, &now);
            let (e, a) = (c.enabled(), c.active());
            let (e, a) = match st {
                SetState::Disabled => (e - b, a - b),
                SetState::Inactive => (e | b, a - b),
                _ => (e | b, a | b),
            };
            assert_eq!(c.lcctl(m, op(e, a), &now), Ok(Cc::Zero));
        }
    }
}
fn state(c: &CpuCounters, set: CounterSet) -> Option<SetState> {
    let b = set.bit();
    SetState::of(
        c.authorization().contains(b),
        c.enabled().contains(b),
        c.active().contains(b),
    )
}

#[test]
fn every_lcctl_transition_of_figure_2_2() {
    use SetState::*;
    let m = z10();
    let all = [Unauthorized, Disabled, Inactive, Active];
    for set in SETS {
        for from in all {
            for to in all {
                // An unauthorized set only leaves (or is requested into) that state by
                // external means; LCCTL cannot express "unauthorized" except as zeros.
                let c = authorized(&m);
                put_in(&c, &m, set, from);
                let b = set.bit();
                let (e, a) = match to {
                    Unauthorized | Disabled => (c.enabled() - b, c.active() - b),
                    Inactive => (c.enabled() | b, c.active() - b),
                    Active => (c.enabled() | b, c.active() | b),
                };
                let cc = c.lcctl(&m, op(e, a), &MeterReading::default()).unwrap();
                let expect_ok = match (from, to) {
                    (Unauthorized, Unauthorized | Disabled) => true, // zeros: same state
                    (Unauthorized, _) => false,
                    _ => true,
                };
                assert_eq!(cc == Cc::Zero, expect_ok, "{set:?} {from:?} -> {to:?}");
                let want = if !expect_ok {
                    from
                } else if from == Unauthorized {
                    Unauthorized
                } else if to == Unauthorized {
                    Disabled
                } else {
                    to
                };
                assert_eq!(state(&c, set), Some(want), "{set:?} {from:?} -> {to:?}");
            }
        }
    }
}

#[test]
fn lcctl_is_all_or_nothing() {
    let m = z10();
    let c = CpuCounters::new();
    c.set_authorization(&m, CounterSets::BASIC, &MeterReading::default());
    // Enabling B (allowed) and P (unauthorized): nothing changes, cc 3.
    let both = CounterSets::BASIC | CounterSets::PROBLEM_STATE;
    assert_eq!(
        c.lcctl(&m, op(both, both), &MeterReading::default()),
        Ok(Cc::Three)
    );
    assert_eq!(c.enabled(), CounterSets::empty());
    // Activation without enable is not a valid state.
    assert_eq!(
        c.lcctl(
            &m,
            op(CounterSets::empty(), CounterSets::BASIC),
            &MeterReading::default()
        ),
        Ok(Cc::Three)
    );
}

#[test]
fn lcctl_reserved_bits_are_specification_exceptions() {
    let m = z10(); // CSVN 1: bits 42, 43, 58, 59 must be zero too
    let c = authorized(&m);
    for bit in (0..64).filter(|b| !(44..=47).contains(b) && !(60..=63).contains(b)) {
        assert_eq!(
            c.lcctl(&m, 1u64 << (63 - bit), &MeterReading::default()),
            Err(ProgramException::Specification),
            "bit {bit}"
        );
    }
    // CSVN 4 (z13): MT bits 42/58 and reserved 43/59 are ignored.
    let z13 = MachineModel::for_machine_type(0x2964);
    let c = authorized(&z13);
    let ignored = (1u64 << (63 - 42)) | (1 << (63 - 43)) | (1 << (63 - 58)) | (1 << (63 - 59));
    assert_eq!(
        c.lcctl(&z13, ignored, &MeterReading::default()),
        Ok(Cc::Zero)
    );
    // CSVN 5 (z14): 43/59 must be zero, 42/58 ignored.
    let z14 = MachineModel::for_machine_type(0x3906);
    let c = authorized(&z14);
    assert_eq!(
        c.lcctl(&z14, 1 << (63 - 59), &MeterReading::default()),
        Err(ProgramException::Specification)
    );
    // CSVN >= 5 (z15: 6): 43/59 must be zero, 42/58 ignored.
    let z15 = MachineModel::for_machine_type(0x8561);
    let c = authorized(&z15);
    assert_eq!(
        c.lcctl(&z15, 1 << (63 - 43), &MeterReading::default()),
        Err(ProgramException::Specification)
    );
    assert_eq!(
        c.lcctl(&z15, 1 << (63 - 42), &MeterReading::default()),
        Ok(Cc::Zero)
    );
}

#[test]
fn counters_count_only_while_active_and_clear_when_disabled() {
    let m = z10();
    let c = authorized(&m);
    let b = CounterSets::BASIC | CounterSets::PROBLEM_STATE;
    let t0 = meter(1000, 1_000_000, 100, 100_000);
    assert_eq!(c.lcctl(&m, op(b, b), &t0), Ok(Cc::Zero));
    let t1 = meter(5000, 3_000_000, 2100, 600_000);
    assert_eq!(c.ecctr(&m, &sup(t1), 1), Ok(Some(4000)));
    assert_eq!(c.ecctr(&m, &sup(t1), 0), Ok(Some(2_000_000 * 4404 / 1000)));
    assert_eq!(c.ecctr(&m, &sup(t1), 33), Ok(Some(2000)));
    assert_eq!(c.ecctr(&m, &sup(t1), 32), Ok(Some(500_000 * 4404 / 1000)));
    assert_eq!(
        c.ecctr(&m, &sup(t1), 2),
        Ok(Some(0)),
        "L1 counters not modelled"
    );
    // Inactive: frozen.
    assert_eq!(c.lcctl(&m, op(b, CounterSets::empty()), &t1), Ok(Cc::Zero));
    let t2 = meter(9000, 9_000_000, 9000, 9_000_000);
    assert_eq!(c.ecctr(&m, &sup(t2), 1), Ok(Some(4000)));
    // Active again: continues from the frozen value.
    assert_eq!(c.lcctl(&m, op(b, b), &t2), Ok(Cc::Zero));
    assert_eq!(
        c.ecctr(&m, &sup(meter(9500, 9_000_000, 9000, 9_000_000)), 1),
        Ok(Some(4500))
    );
    // Disabled: not available; enabled again: zero.
    assert_eq!(c.lcctl(&m, 0, &t2), Ok(Cc::Zero));
    assert_eq!(c.ecctr(&m, &sup(t2), 1), Ok(None));
    assert_eq!(c.lcctl(&m, op(b, CounterSets::empty()), &t2), Ok(Cc::Zero));
    assert_eq!(c.ecctr(&m, &sup(t2), 1), Ok(Some(0)));
}

#[test]
fn ecctr_availability_and_exceptions() {
    let m = z10();
    let c = authorized(&m);
    let all = CounterSets::CPU_SETS;
    c.lcctl(&m, op(all, CounterSets::empty()), &MeterReading::default())
        .unwrap();
    let v = sup(MeterReading::default());
    // A z10's extended counters are 128-151 (Redbook SG24-7857 Figure 3-7).
    for n in [0u64, 5, 32, 37, 64, 79, 128, 151] {
        assert_eq!(c.ecctr(&m, &v, n), Ok(Some(0)), "counter {n}");
    }
    for n in [
        6u64, 31, 38, 63, 80, 127, 152, 159, 160, 287, 300, 448, 495, 496, 0xFFFF,
    ] {
        assert_eq!(c.ecctr(&m, &v, n), Ok(None), "counter {n}");
    }
    assert_eq!(
        c.ecctr(&m, &v, 1 << 16),
        Err(ProgramException::Specification)
    );
    let problem = CpuView {
        problem_state: true,
        ..v
    };
    assert_eq!(
        c.ecctr(&m, &problem, 1),
        Err(ProgramException::PrivilegedOperation)
    );
    let authorized_problem = CpuView {
        cr0: 1 << (63 - 15),
        ..problem
    };
    assert_eq!(c.ecctr(&m, &authorized_problem, 1), Ok(Some(0)));
    // Privileged operation takes priority over specification.
    assert_eq!(
        c.ecctr(&m, &problem, 1 << 16),
        Err(ProgramException::PrivilegedOperation)
    );
}

/// S/370 and ESA/390 have no CR0 bit 15 (their 32-bit CR0 is z/Architecture's bits 32-63):
/// a problem-state ECCTR or STCCTM there is authorized by the operator, and only there; a
/// z/Architecture CPU keeps to its CR0 whatever the operator said.
#[test]
fn problem_state_extraction_in_s370_and_esa390_is_the_operators() {
    let m = z10();
    let c = authorized(&m);
    let now = MeterReading::default();
    let b = CounterSets::BASIC;
    assert_eq!(c.lcctl(&m, op(b, b), &now), Ok(Cc::Zero));
    for arch in [Arch::S370, Arch::Esa390] {
        // Every bit of the 32-bit CR0 on: none of them is the extraction authorization.
        let v = CpuView {
            arch,
            problem_state: true,
            cr0: 0xFFFF_FFFF,
            meter: meter(500, 0, 0, 0),
            ..Default::default()
        };
        c.set_operator_extraction(false);
        assert_eq!(
            c.ecctr(&m, &v, 1),
            Err(ProgramException::PrivilegedOperation),
            "{arch:?}"
        );
        assert_eq!(
            c.stcctm(&m, &v, 1, 1, 0).map(|r| r.cc),
            Err(ProgramException::PrivilegedOperation),
            "{arch:?}"
        );
        c.set_operator_extraction(true);
        assert_eq!(c.ecctr(&m, &v, 1), Ok(Some(500)), "{arch:?}");
    }
    let z = CpuView {
        arch: Arch::Z,
        problem_state: true,
        ..Default::default()
    };
    assert!(c.operator_extraction());
    assert_eq!(
        c.ecctr(&m, &z, 1),
        Err(ProgramException::PrivilegedOperation),
        "z/Architecture: CR0 bit 15 decides"
    );
}

#[test]
fn scctr_sets_inactive_and_active_counters() {
    let m = z10();
    let c = authorized(&m);
    let b = CounterSets::BASIC;
    let t0 = meter(100, 0, 0, 0);
    c.lcctl(&m, op(b, CounterSets::empty()), &t0).unwrap();
    assert_eq!(c.scctr(&m, &sup(t0), 77, 1), Ok(Cc::Zero));
    assert_eq!(c.ecctr(&m, &sup(t0), 1), Ok(Some(77)));
    c.lcctl(&m, op(b, b), &t0).unwrap();
    let t1 = meter(150, 0, 0, 0);
    assert_eq!(c.ecctr(&m, &sup(t1), 1), Ok(Some(127)));
    assert_eq!(c.scctr(&m, &sup(t1), 1000, 1), Ok(Cc::Zero));
    assert_eq!(c.ecctr(&m, &sup(meter(160, 0, 0, 0)), 1), Ok(Some(1010)));
    assert_eq!(
        c.scctr(&m, &sup(t1), 1, 33),
        Ok(Cc::Three),
        "problem set disabled"
    );
    assert_eq!(c.scctr(&m, &sup(t1), 1, 6), Ok(Cc::Three), "unassigned");
    assert_eq!(
        c.scctr(&m, &sup(t1), 1, 1 << 20),
        Err(ProgramException::Specification)
    );
}

#[test]
fn stcctm_every_m3_code_and_condition_code() {
    let m = z10();
    let c = authorized(&m);
    let all = CounterSets::CPU_SETS;
    c.lcctl(&m, op(all, CounterSets::empty()), &MeterReading::default())
        .unwrap();
    let v = sup(MeterReading::default());
    let sizes = [(0u8, 24usize), (1, 6), (2, 6), (3, 16)];
    for (m3, size) in sizes {
        let r = c.stcctm(&m, &v, size as u64, m3, 0x1000).unwrap();
        assert_eq!((r.cc, r.values.len()), (Cc::Zero, size), "m3 {m3}");
        let r = c.stcctm(&m, &v, (size - 1) as u64, m3, 0x1000).unwrap();
        assert_eq!((r.cc, r.values.len()), (Cc::One, size - 1), "m3 {m3}");
        let r = c.stcctm(&m, &v, 0xFFFF, m3, 0x1000).unwrap();
        assert_eq!((r.cc, r.values.len()), (Cc::Two, size), "m3 {m3}");
        let r = c.stcctm(&m, &v, 0, m3, 0x1000).unwrap();
        assert_eq!((r.cc, r.values.len()), (Cc::Three, 0), "m3 {m3}");
    }
    for m3 in [5u8, 9] {
        let r = c.stcctm(&m, &v, 10, m3, 0x1000).unwrap();
        assert_eq!(r.cc, Cc::Three, "MT-diagnostic set not installed");
    }
    for m3 in [4u8, 6, 7, 8, 10, 11, 12, 13, 14, 15] {
        assert_eq!(
            c.stcctm(&m, &v, 1, m3, 0x1000),
            Err(ProgramException::Specification),
            "reserved m3 {m3}"
        );
    }
    assert_eq!(
        c.stcctm(&m, &v, 1, 1, 0x1004),
        Err(ProgramException::Specification)
    );
    assert_eq!(
        c.stcctm(&m, &v, 1 << 16, 1, 0x1000),
        Err(ProgramException::Specification)
    );
    let p = CpuView {
        problem_state: true,
        ..v
    };
    assert_eq!(
        c.stcctm(&m, &p, 1, 1, 0x1000),
        Err(ProgramException::PrivilegedOperation)
    );
    let pa = CpuView {
        cr0: 1 << (63 - 15),
        ..p
    };
    assert_eq!(
        c.stcctm(&m, &pa, 1, 9, 0x1000),
        Err(ProgramException::SpecialOperation)
    );
    assert_eq!(c.stcctm(&m, &pa, 1, 1, 0x1000).map(|r| r.cc), Ok(Cc::One));
    // A disabled set stores nothing.
    c.lcctl(&m, 0, &MeterReading::default()).unwrap();
    assert_eq!(c.stcctm(&m, &v, 6, 1, 0x1000).map(|r| r.cc), Ok(Cc::Three));
}

#[test]
fn qctri_block_layout() {
    let m = z10();
    let c = authorized(&m);
    let cg = CoprocessorGroups::new();
    let b = CounterSets::BASIC;
    c.lcctl(
        &m,
        op(b | CounterSets::EXTENDED, b),
        &MeterReading::default(),
    )
    .unwrap();
    let q = c.qctri(&m, &cg);
    assert_eq!(&q[0..2], &[0, 1], "CFVN");
    assert_eq!(&q[2..4], &[0, 0x0F], "B, P, C, E authorized");
    assert_eq!(&q[4..6], &[0, 0x03], "E_b, E_e");
    assert_eq!(&q[6..8], &[0, 0x02], "C_b");
    assert_eq!(&q[8..10], &[0, 7], "max CPU address");
    assert_eq!(&q[10..12], &[0, 1], "CSVN");
    assert!(q[12..].iter().all(|&x| x == 0));
    // With the coprocessor group authorized and enabled.
    c.set_authorization(
        &m,
        CounterSets::CPU_SETS | CounterSets::COPROCESSOR_GROUP,
        &MeterReading::default(),
    );
    cg.lpctl(&m, 2, true).unwrap();
    let q = c.qctri(&m, &cg);
    assert_eq!(&q[2..4], &[0x80, 0x0F]);
    assert_eq!(&q[4..6], &[0x80, 0x03]);
}

#[test]
fn authorization_change_alert_only_for_enabled_sets() {
    let m = z10();
    let c = authorized(&m);
    let now = MeterReading::default();
    assert!(c.set_authorization(&m, CounterSets::BASIC, &now).is_empty());
    c.lcctl(&m, op(CounterSets::BASIC, CounterSets::BASIC), &now)
        .unwrap();
    assert_eq!(
        c.set_authorization(&m, CounterSets::empty(), &now),
        AlertBits::COUNTER_AUTH_CHANGE
    );
    assert_eq!(state(&c, CounterSet::Basic), Some(SetState::Unauthorized));
}

#[test]
fn resets() {
    let m = z10();
    let c = authorized(&m);
    let b = CounterSets::BASIC;
    c.lcctl(&m, op(b, b), &meter(0, 0, 0, 0)).unwrap();
    c.cpu_reset(&m, &meter(500, 0, 0, 0));
    assert_eq!(state(&c, CounterSet::Basic), Some(SetState::Inactive));
    assert_eq!(c.ecctr(&m, &sup(meter(900, 0, 0, 0)), 1), Ok(Some(500)));
    c.loss_of_counter_data(&m, &meter(900, 0, 0, 0));
    c.initial_cpu_reset();
    assert_eq!(state(&c, CounterSet::Basic), Some(SetState::Disabled));
    c.lcctl(&m, op(b, CounterSets::empty()), &meter(900, 0, 0, 0))
        .unwrap();
    assert_eq!(c.ecctr(&m, &sup(meter(900, 0, 0, 0)), 1), Ok(Some(0)));
}

#[test]
fn crypto_counters_count_while_active() {
    let m = z10();
    let c = authorized(&m);
    let cs = CounterSets::CRYPTO;
    c.crypto_event(CryptoFunction::Sha, 10, false, 0);
    c.lcctl(&m, op(cs, cs), &MeterReading::default()).unwrap();
    c.crypto_event(CryptoFunction::Sha, 100, false, 0);
    c.crypto_event(CryptoFunction::Aes, 7, false, 0);
    let v = sup(MeterReading::default());
    assert_eq!(c.ecctr(&m, &v, 68), Ok(Some(1)));
    assert_eq!(c.ecctr(&m, &v, 69), Ok(Some(100)));
    assert_eq!(c.ecctr(&m, &v, 76), Ok(Some(1)));
    assert_eq!(c.ecctr(&m, &v, 77), Ok(Some(7)));
    assert_eq!(c.ecctr(&m, &v, 70), Ok(Some(0)), "never blocked");
}

#[test]
fn coprocessor_group_controls_and_counters() {
    let m = z10();
    let cg = CoprocessorGroups::new();
    assert_eq!(cg.lpctl(&m, 4, true), Err(ProgramException::Specification));
    assert_eq!(
        cg.lpctl(&m, 1, true),
        Ok(Cc::Three),
        "active without enable"
    );
    assert_eq!(cg.lpctl(&m, 3, false), Ok(Cc::Three), "unauthorized");
    assert_eq!(cg.lpctl(&m, 0, false), Ok(Cc::Zero), "same state");
    assert_eq!(cg.lpctl(&m, 3, true), Ok(Cc::Zero));
    cg.crypto_event(0, CryptoFunction::Sha, 40, false, 0);
    assert_eq!(cg.epctr(&m, true, 0x00), Ok(Some(1)));
    assert_eq!(cg.epctr(&m, true, 0x01), Ok(Some(40)));
    assert_eq!(
        cg.epctr(&m, true, 0x08),
        Ok(None),
        "counter 8 not installed"
    );
    assert_eq!(cg.epctr(&m, true, 0x100), Ok(None), "group 1 not installed");
    assert_eq!(
        cg.epctr(&m, true, 1 << 24),
        Err(ProgramException::Specification)
    );
    assert_eq!(cg.spctr(&m, true, 99, 0x05), Ok(Cc::Zero));
    assert_eq!(cg.epctr(&m, true, 0x05), Ok(Some(99)));
    // Disabling clears.
    assert_eq!(cg.lpctl(&m, 0, true), Ok(Cc::Zero));
    assert_eq!(cg.epctr(&m, true, 0x05), Ok(None));
    assert_eq!(cg.lpctl(&m, 2, true), Ok(Cc::Zero));
    assert_eq!(cg.epctr(&m, true, 0x05), Ok(Some(0)));
    // ECPGA.
    assert_eq!(
        cg.ecpga(&m, 0x1234_5678_9ABC_DEF0, 3),
        Ok(Some(0x1234_5678_0000_0000))
    );
    assert_eq!(cg.ecpga(&m, 0, 8), Ok(None));
    assert_eq!(
        cg.ecpga(&m, 0, 1 << 16),
        Err(ProgramException::Specification)
    );
    // Not installed.
    let mut none = z10();
    none.coprocessor_groups = 0;
    assert_eq!(cg.lpctl(&none, 2, true), Ok(Cc::Three));
}
