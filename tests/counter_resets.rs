//! What CPU reset and initial CPU reset do to the counter facility, seen by the guest
//! (SA23-2260): "Local Counter-Set-State Control Register" (except for the authorization
//! controls, cleared by initial CPU reset and clear reset; activation controls also cleared
//! by CPU reset), Figure 2-2 note 1 (initial CPU reset disables every CPU counter set and
//! clears its counters), "CPU Counter Sets" (counters count only while active) and
//! "Measurement Alert" (a pending request is cleared by CPU reset).
//!
//! The resets come from SIGNAL PROCESSOR (CPU reset 0C, initial CPU reset 0B, from another
//! CPU) and from Hercules' manual controls: `sysreset` is system-reset-normal, a CPU reset
//! of every CPU; `sysclear` is a clear reset, an initial CPU reset of every CPU; `ipl`
//! (load-normal) an initial CPU reset of the IPL CPU and a CPU reset of the others; `iplc`
//! (load-clear) a clear reset (z/Architecture Principles of Operation, "Resets" and
//! "Initial Program Loading"). A CPU that `cf on` brings back into the configuration gets
//! an initial CPU reset, as Hercules' configure_cpu performs one.
mod common;
use common::*;

#[test]
fn sigp_cpu_reset_and_initial_cpu_reset() {
    let cfg = Config {
        numcpu: 2,
        start_all: true,
        config: vec!["DIAG8CMD ENABLE".into()],
        timeout: 40,
        ..Config::default()
    };
    let out = run("ctr_sigp_reset", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    // SIGP in the problem state: privileged operation; the reset is not performed (round A
    // below would find the sets disabled otherwise).
    assert_eq!(out.program_checks(), vec![2], "{}", out.log);
    assert_eq!((out.u32(0x310c) >> 28) & 3, 0, "SIGP CPU reset accepted");
    assert_eq!(
        (out.u32(0x3110) >> 28) & 3,
        0,
        "SIGP initial CPU reset accepted"
    );
    for setup in [0x3120, 0x3128] {
        assert_eq!(
            out.bytes(setup, 4),
            [0, 0, 0, 0],
            "LCCTL, SCCTR, SCCTR, LSCTL at {setup:#x}"
        );
    }

    // Round A, CPU reset: the sets are enabled but no longer active (authorizations by
    // external means untouched), the counters keep their contents and no longer count.
    let a = 0x3000;
    assert_eq!(out.u16(a + 2), 0x800F, "authorization kept\n{}", out.log);
    assert_eq!(out.u16(a + 4), 0x000F, "enable controls kept");
    assert_eq!(
        out.u16(a + 6),
        0x0000,
        "activation controls cleared by CPU reset"
    );
    assert_eq!(
        out.bytes(a + 0x60, 4),
        [0, 0, 0, 0],
        "ECCTR condition codes"
    );
    assert_eq!(out.u64(a + 0x40), 0x1111, "extended counter 128 kept");
    assert_eq!(out.u64(a + 0x48), 0x2222, "crypto counter 64 kept");
    let (i1, i2) = (out.u64(a + 0x50), out.u64(a + 0x58));
    assert!(i1 > 0, "instructions counted while active are kept");
    assert_eq!(i1, i2, "an inactive set does not count");
    assert_eq!(
        out.u64(a + 0x68),
        0,
        "the alert pending before the CPU reset was cleared by it"
    );

    // Sampling ("Sampling-Function-State Control Register" and its state transitions):
    // CPU reset clears the activation control only; the function stays enabled with its
    // TEAR and DEAR.
    let qa = out.bytes(0x3180, 40);
    assert_eq!(qa[2..4], [0x02, 0x00], "E_s kept, C_s cleared\n{}", out.log);
    assert_eq!(out.u64(0x3180 + 24), 0x10000, "TEAR kept");
    assert_eq!(out.u64(0x3180 + 32), 0x20000, "DEAR kept");

    // Round B, initial CPU reset: every CPU counter set disabled (only the authorizations
    // remain), so no counter is available.
    let b = 0x3080;
    assert_eq!(out.u16(b + 2), 0x800F, "authorization kept");
    assert_eq!(
        out.u16(b + 4),
        0,
        "enable controls cleared by initial CPU reset"
    );
    assert_eq!(out.u16(b + 6), 0, "activation controls cleared");
    assert_eq!(out.bytes(b + 0x60, 4), [3, 3, 3, 3], "disabled: cc 3");
    assert_eq!(out.u64(b + 0x68), 0, "the pending alert was cleared");
    // Sampling disabled, its controls cleared (TEAR and DEAR read as zeros).
    let qb = out.bytes(0x3200, 40);
    assert_eq!(qb[2..4], [0, 0], "E_s and C_s cleared");
    assert_eq!(out.u64(0x3200 + 24), 0, "TEAR");
    assert_eq!(out.u64(0x3200 + 32), 0, "DEAR");
    // Enabled again: the counters were cleared.
    assert_eq!(out.bytes(0x3150, 2), [0, 0]);
    assert_eq!(out.u64(0x3140), 0, "extended counter 128 cleared");
    assert_eq!(out.u64(0x3148), 0, "crypto counter 64 cleared");
    // Control: the same alert, made pending while the CPU is enabled for it, is presented.
    assert_eq!(out.u64(0x3158), 1, "{}", out.log);
    assert_eq!(out.external_interruptions(), vec![(0x1407, 0x0000_0080)]);
}

/// Round 1 of `ctr_sysreset`, then `reset` (with `reload` commands after it) and round 2.
fn manual_reset(reset: &str, reload: bool) -> Outcome {
    let dir = scratch(&format!("ctr_{reset}"));
    let bin = assemble("ctr_sysreset", &dir);
    // A CPU in a disabled wait is still in the operating state; Hercules performs a reset
    // only when every CPU is stopped (stopall is asynchronous).
    let mut after = vec!["stopall".into(), "pause 1".into(), reset.into()];
    if reset == "sysclear" && common::hercules().is_hyperion() {
        // Hyperion's clear reset leaves a z/Architecture configuration's CPUs in ESA/390
        // mode, as the machine's does (an IPL program switches with SIGP); 3.13 keeps them
        // in z/Architecture. Round 2 is z/Architecture code: ARCHLVL puts the CPUs back
        // (with one more initial CPU reset, which changes nothing after a clear reset).
        after.push("archlvl z/Arch".into());
    }
    if reload {
        after.push(format!("loadcore {} 0", bin.display()));
        after.push("r 33f0=00000001".into());
    }
    // Round 2 spins about 0.1 s of CPU time; the machine may be busy.
    after.extend(["restart".into(), "pause 5".into(), "hcpumf status".into()]);
    let cfg = Config {
        config: vec!["DIAG8CMD ENABLE".into()],
        after,
        timeout: 40,
        ..Config::default()
    };
    let out = run_binary(&bin, &dir, &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.program_checks(), Vec::<u16>::new(), "{}", out.log);
    assert_eq!(out.u32(0x3200), 1, "round 2 ran to its end\n{}", out.log);
    // Counting resumes correctly after Hercules zeroed its instruction count in the reset.
    let counted = out.u64(0x3178);
    assert!(
        (9_900..10_100).contains(&counted),
        "10000 loops counted as {counted}"
    );
    out
}

#[test]
fn sysreset_is_a_cpu_reset() {
    let out = manual_reset("sysreset", false);
    assert_eq!(out.bytes(0x3000, 2), [0, 0], "round 1: LCCTL, SCCTR");
    // CPU reset: activation controls cleared, enable controls and counters kept.
    assert_eq!(out.u16(0x3102), 0x800F, "authorization kept\n{}", out.log);
    assert_eq!(
        out.u16(0x3104),
        0x000F,
        "enable controls kept (not an initial reset)"
    );
    assert_eq!(out.u16(0x3106), 0, "activation controls cleared");
    assert_eq!(out.bytes(0x3160, 4), [0, 0, 0, 0]);
    assert_eq!(out.u64(0x3140), 0x1111, "extended counter 128 kept");
    assert!(out.u64(0x3150) > 0, "instructions counted in round 1 kept");
    assert_eq!(out.u64(0x3150), out.u64(0x3158), "inactive: not counting");
    assert_eq!(out.u64(0x3168), 0, "pending alert cleared by CPU reset");
    assert_eq!(out.u64(0x3170), 0x1111, "enabling an enabled set keeps it");
}

#[test]
fn sysclear_is_an_initial_cpu_reset() {
    let out = manual_reset("sysclear", true);
    // Clear reset: initial CPU reset, every CPU counter set disabled and cleared.
    assert_eq!(out.u16(0x3102), 0x800F, "authorization kept\n{}", out.log);
    assert_eq!(out.u16(0x3104), 0, "enable controls cleared");
    assert_eq!(out.u16(0x3106), 0, "activation controls cleared");
    assert_eq!(
        out.bytes(0x3160, 4),
        [3, 3, 3, 0],
        "disabled: cc 3; enabled again: cc 0"
    );
    assert_eq!(out.u64(0x3168), 0, "pending alert cleared");
    assert_eq!(out.u64(0x3170), 0, "counter 128 cleared");
}

/// The basic-set state `hcpumf status` reported for `cpu` the `nth` time.
fn basic_state(log: &str, cpu: u16, nth: usize) -> &str {
    let tag = format!("HHCMF021I CPU{cpu:04X}");
    let line = log
        .lines()
        .filter(|l| l.contains(&tag))
        .nth(nth)
        .unwrap_or_else(|| panic!("no status line {nth} for CPU {cpu}:\n{log}"));
    let s = line.split("BASIC=").nth(1).unwrap_or("");
    s.split_whitespace().next().unwrap_or("")
}

/// Runs `tests/guest/ctr_ipl.s` on 2 CPUs (both activate the basic set), checks with
/// `hcpumf status` that both count, then gives the operator commands `then`.
fn both_cpus_counting(dir: &std::path::Path, then: Vec<String>) -> Outcome {
    let bin = assemble("ctr_ipl", dir);
    let mut after = vec!["hcpumf status".to_string()];
    after.extend(then);
    let cfg = Config {
        numcpu: 2,
        start_all: true,
        after,
        show: vec![],
        timeout: 40,
        ..Config::default()
    };
    let out = run_binary(&bin, dir, &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    for cpu in 0..2 {
        assert_eq!(basic_state(&out.log, cpu, 0), "active", "{}", out.log);
    }
    out
}

/// Load-normal (`ipl`) is an initial CPU reset of the IPL CPU and a CPU reset of the
/// others; load-clear (`iplc`) a clear reset, an initial CPU reset of every CPU (Principles
/// of Operation, "Initial Program Loading" and "Resets"; SA23-2260: only initial CPU reset
/// and clear reset disable the counter sets, CPU reset deactivates them). Hercules IPLs
/// through the service processor ("ipl file.ins") a program that loops.
#[test]
fn ipl_resets_the_ipl_cpu_initially_and_the_others_normally() {
    let dir = scratch("ctr_ipl");
    // ESA/390 IPL PSW (a z/Architecture load starts in ESA/390 mode) to a J * at 0x200.
    let mut image = vec![0u8; 0x204];
    image[..8].copy_from_slice(&[0x00, 0x08, 0x00, 0x00, 0x80, 0x00, 0x02, 0x00]);
    image[0x200..].copy_from_slice(&[0xA7, 0xF4, 0x00, 0x00]);
    std::fs::write(dir.join("loop.bin"), image).expect("image");
    std::fs::write(dir.join("loop.ins"), "loop.bin 0x0\n").expect("ins");
    let ins = dir.join("loop.ins");
    let out = both_cpus_counting(
        &dir,
        vec![
            "stopall".into(),
            "pause 1".into(),
            format!("ipl {}", ins.display()),
            "pause 1".into(),
            "hcpumf status".into(),
            "stopall".into(),
            "pause 1".into(),
            format!("iplc {}", ins.display()),
            "pause 1".into(),
            "hcpumf status".into(),
        ],
    );
    // ipl through CPU 0: CPU 0 initial CPU reset, CPU 1 CPU reset.
    assert_eq!(basic_state(&out.log, 0, 1), "disabled", "{}", out.log);
    assert_eq!(basic_state(&out.log, 1, 1), "inactive", "{}", out.log);
    // iplc: every CPU initial CPU reset (CPU 1 was still enabled).
    assert_eq!(basic_state(&out.log, 0, 2), "disabled", "{}", out.log);
    assert_eq!(basic_state(&out.log, 1, 2), "disabled", "{}", out.log);
}

/// A CPU taken out of the configuration (`cf off`) and brought back (`cf on`) comes back
/// with the measurement state of an initial CPU reset, like the rest of its state (Hercules'
/// configure_cpu performs an initial CPU reset), not with the counter sets it had; the CPU
/// that stayed is untouched.
#[test]
fn a_cpu_configured_again_starts_from_an_initial_cpu_reset() {
    let out = both_cpus_counting(
        &scratch("ctr_cf"),
        vec![
            "cpu 1".into(),
            "stop".into(),
            "pause 1".into(),
            "cf off".into(),
            "pause 1".into(),
            "cf on".into(),
            "pause 1".into(),
            "hcpumf status".into(),
        ],
    );
    assert_eq!(basic_state(&out.log, 0, 1), "active", "{}", out.log);
    assert_eq!(basic_state(&out.log, 1, 1), "disabled", "{}", out.log);
}

/// Linux's CPU hotplug takes a CPU out of the configuration and brings it back with the SCLP
/// ("deconfigure CPU", "configure CPU"), not with an operator command: the CPU comes back
/// with the measurement state of an initial CPU reset, as with `cf off` / `cf on`, and the
/// CPU that issued the commands keeps its counter set.
#[test]
fn a_cpu_configured_again_through_the_sclp_starts_from_an_initial_cpu_reset() {
    let dir = scratch("ctr_sclp");
    let bin = assemble("ctr_ipl", &dir);
    let cfg = Config {
        numcpu: 2,
        start_all: true,
        // ctr_ipl.s's SCLP leg.
        before: vec!["r 3f00=00000001".into()],
        after: vec!["hcpumf status".into()],
        show: vec![(0x3000, 0x10)],
        timeout: 40,
        ..Config::default()
    };
    let out = run_binary(&bin, &dir, &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    // Both commands accepted (cc 0) and completed (reason 0, response 0x20).
    assert_eq!((out.u32(0x3000), out.u32(0x3004)), (0, 0), "{}", out.log);
    assert_eq!((out.u16(0x3008), out.u16(0x300a)), (0x0020, 0x0020));
    let d = hercules();
    assert!(out.said(&d.cpu_thread_ended(1)), "{}", out.log);
    assert_eq!(
        out.log.matches(&d.cpu_thread_started(1)).count(),
        2,
        "{}",
        out.log
    );
    assert_eq!(basic_state(&out.log, 0, 0), "active", "{}", out.log);
    assert_eq!(basic_state(&out.log, 1, 0), "disabled", "{}", out.log);
}
