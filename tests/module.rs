//! rmmod restores what the plugin changed; ldmod again brings the facilities back.
mod common;
use common::stored::{self, Stored};
use common::*;

fn bit(list: &[u8], n: usize) -> bool {
    list[n / 8] & (0x80 >> (n % 8)) != 0
}

#[test]
fn rmmod_restores_hercules_and_ldmod_restores_the_facilities() {
    let so = plugin();
    let cfg = Config {
        before: vec![format!("rmmod {}", so.display())],
        ..Config::default()
    };
    let out = run("stfle", &cfg);
    assert!(out.said("HHCMF001I"), "unloaded: {}", out.log);
    let list = out.bytes(0x3000, 24);
    for f in [67, 68, 142] {
        assert!(!bit(&list, f), "facility {f} after rmmod");
    }
    let cfg = Config {
        before: vec![
            format!("rmmod {}", so.display()),
            format!("ldmod {}", so.display()),
        ],
        ..Config::default()
    };
    let out = run("stfle", &cfg);
    assert_eq!(out.log.matches("HHCMF000I").count(), 2, "{}", out.log);
    let list = out.bytes(0x3000, 24);
    for f in [40, 67, 68, 142] {
        assert!(bit(&list, f), "facility {f} after ldmod");
    }
}

/// rmmod and ldmod while 4 CPUs sample at the maximum rate: the reload starts every CPU from
/// the state of an initial CPU reset (sampling disabled, DEAR zero, as QSI shows), and every
/// CPU that starts sampling again samples every interval: stored entries within the bound of
/// `tests/common/stored.rs` (SA23-2260, Sampling Interval Register; docs/sampling.md's
/// tolerance at the maximum rate, less what the sampler's stalls explain) and no overflow
/// count in its 200 blocks, which never fill, as before any reload (tests/sampling_rate.rs).
#[test]
fn a_reload_while_sampling_starts_every_cpu_afresh_and_each_samples_again() {
    let so = plugin();
    let cfg = Config {
        numcpu: 4,
        start_all: true,
        timeout: 180,
        // Hyperion unloads a module only while every CPU is stopped: there the CPUs stop
        // around the reload (dialect.rs).
        during: [vec!["pause 3".into()], hercules().reload_while_running(&so)].concat(),
        show: vec![(0x3000, 0x100), (0x37f0, 0x110)],
        after: vec!["hcpumf status".into()],
        ..Config::default()
    };
    let out = run("samp_reload", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    // While the plugin is unloaded the instructions are not installed: a QSI then is an
    // operation exception, and nothing else may be.
    assert!(
        out.program_checks().iter().all(|&c| c == 1),
        "{:?}\n{}",
        out.program_checks(),
        out.log
    );
    assert_eq!(out.log.matches("HHCMF000I").count(), 2, "{}", out.log);
    // What the plugin said (status per CPU: samples, ticks, armings), for a failure.
    let said: Vec<&str> = out.log.lines().filter(|l| l.contains("HHCMF")).collect();
    let said = said.join("\n");
    let mut counts = Vec::new();
    for cpu in 0..4u64 {
        let r = 0x3000 + cpu * 0x40;
        assert_eq!(
            out.u64(r + 0x20),
            1,
            "CPU {cpu} saw no reload:\n{}",
            out.log
        );
        assert_eq!(out.u64(r + 0x28), 0, "CPU {cpu}: DEAR after the reload");
        let (stored, overflow, cycles, interval) = (
            out.u64(r),
            out.u64(r + 8),
            out.u64(r + 0x10),
            out.u64(r + 0x18),
        );
        assert_eq!(
            overflow, 0,
            "CPU {cpu}: overflow counts in blocks that are not full\n{said}"
        );
        assert_eq!(interval, 220_200, "CPU {cpu}: QSI's minimum interval");
        counts.push(Stored {
            what: format!("CPU {cpu} after the reload"),
            cpu,
            stored,
            cycles,
            interval,
        });
    }
    stored::check(&out, &counts, 4404);
}
