//! Samples of a CPU in the wait state (SA23-2260, Basic-Sampling Data Entry: the W bit and
//! programming note 5). A guest samples at 1,000 samples/s across an enabled wait of about
//! 200 ms (`tests/guest/samp_wait.s`), while a HIS run samples it too. With dedicated CPUs
//! (`dedicated=yes`) the sampling timers run on in the wait and the entries stored then
//! have W = 1; by default (shared CPUs, whose wait is not sampling time) there are none.
mod common;
use common::*;
use hcpumf_formats::smp;
use std::path::Path;

/// The guest's sampling interval (4,404,000 cycles at 4,404 cycles/us).
const INTERVAL_MS: f64 = 1.0;

/// The run, with the CPUs dedicated or not, and a HIS run at 1,000 samples/s alongside.
fn run_wait(dedicated: bool, out_dir: &Path) -> Outcome {
    let cfg = Config {
        env: if dedicated {
            vec![("HCPUMF_OPTIONS".into(), "dedicated=yes".into())]
        } else {
            Vec::new()
        },
        before: vec![format!(
            "hcpumf his begin ctrset=(b) sampfreq=60000 path={}",
            out_dir.display()
        )],
        after: vec!["hcpumf status".into(), "hcpumf his end".into()],
        show: vec![(0x3000, 0x240), (0x37f0, 0x10)],
        ..Config::default()
    };
    let out = run("samp_wait", &cfg);
    assert_eq!(out.wait_code(), Some(0), "{}", out.log);
    assert_eq!(out.program_checks(), Vec::<u16>::new(), "{}", out.log);
    assert_eq!((out.u32(0x3010) >> 28) & 3, 0, "LSCTL cc 0");
    out
}

/// The wait's length in ms (TOD clock before and after it: 4,096 units per us).
fn wait_ms(out: &Outcome) -> f64 {
    (out.u64(0x3008) - out.u64(0x3000)) as f64 / 4096.0 / 1000.0
}

/// The HIS run's .SMP: (W = 1, W = 0) valid basic entries, and whether every W = 1 one has
/// U = 0 and instruction address 0.
fn his_samples(out_dir: &Path) -> (u64, u64, bool) {
    let f = files(out_dir, ".SMP.");
    assert_eq!(f.len(), 1, "one CPU, one file");
    let bytes = std::fs::read(&f[0]).expect("read .SMP");
    let (mut wait, mut busy, mut clean) = (0, 0, true);
    let sum = smp::scan(&bytes[..], &mut |s| {
        if s.wait {
            wait += 1;
            clean &= s.unique == 0 && s.ia == 0;
        } else {
            busy += 1;
        }
    })
    .expect("scan");
    assert!(sum.problems.is_empty(), "{:?}", sum.problems);
    (wait, busy, clean)
}

/// What `hcpumf status` says of CPU 0's guest sampling: the intervals missed, and the wait
/// samples (printed with dedicated CPUs only).
fn status(out: &Outcome) -> (u64, Option<u64>) {
    let line = out
        .log
        .lines()
        .find(|l| l.contains("HHCMF021I CPU0000"))
        .unwrap_or_else(|| panic!("no status of CPU 0\n{}", out.log));
    let after = |tag: &str| {
        line.split(tag)
            .nth(1)
            .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<u64>().ok())
    };
    (after(" missed ").unwrap_or(0), after("; wait samples "))
}

#[test]
fn a_dedicated_cpu_samples_its_wait_with_w_set() {
    let out_dir = scratch("wait-dedicated");
    let out = run_wait(true, &out_dir);
    assert!(out.said("dedicated CPUs"), "{}", out.log);
    let ms = wait_ms(&out);
    let expected = ms / INTERVAL_MS;
    let (waits, busy, bad) = (out.u64(0x3040), out.u64(0x3048), out.u64(0x3050));
    assert_eq!(bad, 0, "W = 1 entries with U or an address");
    assert!(busy >= 1, "the busy stretches are sampled too");
    let (missed, counted) = status(&out);
    eprintln!("dedicated wait: {waits} wait samples, {missed} missed, in {ms:.1} ms");
    assert_eq!(
        counted,
        Some(waits),
        "hcpumf status counts the wait samples"
    );
    // One sample per interval of the wait, which the sampler stores at wall-clock
    // intervals: never more, and every interval it could not take in time (a host that
    // held it up for over 64 intervals) counted as missed.
    assert!(
        waits as f64 <= expected + 2.0 && (waits + missed) as f64 >= expected - 2.0,
        "{waits} wait samples and {missed} missed intervals in a wait of {ms:.1} ms at \
         {INTERVAL_MS} ms\n{}",
        out.log
    );
    // The first one, byte by byte (Figure 2-17): format 0001, U 0; T 0 (DAT off), W 1, P 0,
    // AS 0, I 0; CL and H 0 (a z10); primary ASN 0x42 from CR4; instruction address 0; the
    // program parameter (H = 0: the guest field); host field 0.
    let mut want = vec![0u8; 32];
    want[..8].copy_from_slice(&[0x00, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x42]);
    want[16..24].copy_from_slice(&0x8000_0000_0000_00ABu64.to_be_bytes());
    assert_eq!(out.bytes(0x3200, 32), want, "the first W = 1 entry");
    // A busy one: W 0, the address of one of the loops.
    assert_eq!(out.bytes(0x3223, 1)[0] & 0x10, 0);
    assert_ne!(out.u64(0x3228), 0);
    // The HIS run samples the wait as well.
    let (w, b, clean) = his_samples(&out_dir);
    assert!(clean, "HIS wait samples with U or an address");
    assert!(b >= 1);
    assert!(
        w as f64 <= expected + 2.0 && (w + missed) as f64 >= expected * 0.9 - 2.0,
        "{w} HIS wait samples in a wait of {ms:.1} ms ({missed} intervals the guest missed)"
    );
    // The report counts them apart from the busy samples it attributes.
    let rep = std::process::Command::new(report_tool())
        .arg(&out_dir)
        .output()
        .expect("hcpumf-report");
    let text = String::from_utf8_lossy(&rep.stdout);
    assert!(
        rep.status.success(),
        "{}",
        String::from_utf8_lossy(&rep.stderr)
    );
    assert!(
        text.contains(&format!(
            "SAMPLES: {} valid: {b} busy, {w} in the wait state",
            b + w
        )),
        "{text}"
    );
}

#[test]
fn a_shared_cpu_stores_no_wait_samples() {
    let out_dir = scratch("wait-shared");
    let out = run_wait(false, &out_dir);
    assert!(!out.said("dedicated CPUs"), "{}", out.log);
    assert_eq!(
        status(&out).1,
        None,
        "no wait samples in the status of shared CPUs"
    );
    assert!(wait_ms(&out) > 150.0, "the guest waited");
    assert_eq!(out.u64(0x3040), 0, "no W = 1 entry");
    assert!(out.u64(0x3048) >= 1, "the busy stretches are sampled");
    let (w, b, _) = his_samples(&out_dir);
    assert_eq!(w, 0, "no W = 1 entry in the HIS run's .SMP");
    assert!(b >= 1);
}

/// A block the wait samples fill raises its program-request alert (A = 1), which is
/// presented to the CPU in its enabled wait and ends it: about 126 ms of wait samples after
/// the busy ones, long before the clock comparator's 300 ms. With shared CPUs the clock
/// comparator ends the wait.
#[test]
fn a_block_filled_in_the_wait_alerts_the_waiting_cpu() {
    for dedicated in [true, false] {
        let cfg = Config {
            env: if dedicated {
                vec![("HCPUMF_OPTIONS".into(), "dedicated=yes".into())]
            } else {
                Vec::new()
            },
            show: vec![(0x3000, 0x40), (0x37f0, 0x10)],
            ..Config::default()
        };
        let out = run("samp_wait_alert", &cfg);
        assert_eq!(out.wait_code(), Some(0), "{}", out.log);
        assert_eq!((out.u32(0x3010) >> 28) & 3, 0, "LSCTL cc 0");
        let (code, param, ms) = (out.u16(0x3020), out.u32(0x3024), wait_ms(&out));
        if dedicated {
            assert_eq!(
                code, 0x1407,
                "a measurement alert ended the wait\n{}",
                out.log
            );
            assert_eq!(param & 0x2000_0000, 0x2000_0000, "program request");
            assert!(ms < 200.0, "the wait lasted {ms:.1} ms");
        } else {
            assert_eq!(
                code, 0x1004,
                "the clock comparator ended the wait\n{}",
                out.log
            );
            assert!(ms >= 290.0, "the wait lasted {ms:.1} ms");
        }
    }
}
