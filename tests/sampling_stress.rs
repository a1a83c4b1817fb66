//! Sampling on 4 CPUs at once while the guest drains blocks on program-request alerts and
//! resets trailers with CDSG, as Linux does (SA23-2260, Trailer Entries programming note):
//! every stored entry is valid, blocks fill in SDBT order, the drain keeps up (no sample is
//! lost because a block is full: no overflow count), and the stored samples account for the
//! intervals of CPU time.
mod common;
use common::stored::{self, Stored};
use common::*;

#[test]
fn four_cpus_drain_with_cdsg_and_account_for_every_interval() {
    let cfg = Config {
        numcpu: 4,
        start_all: true,
        timeout: 120,
        after: vec!["hcpumf status".into()],
        ..Config::default()
    };
    let out = run("samp_stress", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    let mut total = 0;
    let mut counts = Vec::new();
    for cpu in 0..4u64 {
        let r = 0x3000 + cpu * 0x40;
        let (valid, overflow, bad) = (out.u64(r), out.u64(r + 8), out.u64(r + 0x10));
        let (cycles, blocks, alerts, disorder) = (
            out.u64(r + 0x18),
            out.u64(r + 0x20),
            out.u64(r + 0x28),
            out.u64(r + 0x30),
        );
        assert_eq!(bad, 0, "CPU {cpu}: invalid entries");
        assert_eq!(disorder, 0, "CPU {cpu}: blocks out of SDBT order");
        // The guest stops sampling once it has drained 30,000 entries.
        assert!(valid >= 30_000, "CPU {cpu}: {valid} samples");
        assert!(
            alerts > 0 && blocks > 0,
            "CPU {cpu}: {alerts} alerts, {blocks} blocks"
        );
        // 32 blocks, each drained at its program-request alert: none is still full when the
        // update process comes back to it, so no sample is lost to a full block (the
        // intervals the host could not sample are not stored either: SA23-2260, Trailer
        // Entries, counts only samples lost because the block is full).
        assert_eq!(overflow, 0, "CPU {cpu}: overflow counts");
        // 10,000 samples/s: twice QSI's minimum interval. Within the bound of
        // tests/common/stored.rs.
        counts.push(Stored {
            what: format!("CPU {cpu}"),
            cpu,
            stored: valid,
            cycles,
            interval: 440_400,
        });
        total += valid;
    }
    assert!(total >= 120_000, "{total} samples");
    stored::check(&out, &counts, 4404);
}

/// LOAD SAMPLING CONTROLS that disables sampling while the sampler thread may be storing an
/// entry from outside the CPU (`tests/guest/samp_race.s`, 3,000 cycles): no entry is stored
/// after the LSCTL (SA23-2260, "State of Sampling Function": disabled, no sample data).
#[test]
fn no_entry_is_stored_after_lsctl_disables_sampling() {
    let cfg = Config {
        show: vec![(0x3000, 0x20), (0x37f0, 0x10)],
        after: vec!["hcpumf status".into()],
        timeout: 120,
        ..Config::default()
    };
    let out = run("samp_race", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.program_checks(), Vec::<u16>::new());
    let (late, entries, cycles) = (out.u64(0x3000), out.u64(0x3008), out.u64(0x3010));
    let outside = out.samples_taken_outside();
    eprintln!("{cycles} cycles, {entries} entries ({outside} taken from outside), {late} late");
    assert_eq!(cycles, 3000);
    assert_eq!(
        late, 0,
        "cycles with an entry stored after the disabling LSCTL"
    );
    assert!(entries >= 3000, "{entries} entries in 3,000 cycles");
    assert!(
        outside >= entries / 2,
        "{outside} of {entries} taken from outside"
    );
}
