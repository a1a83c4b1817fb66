//! The meter's unit tests (`host::meter`).
use super::*;

/// The kernel's accounting of this thread grows as it works, as its own clock does, and
/// a thread that is not there has none.
#[test]
fn a_threads_run_time_is_read_from_proc() {
    let tid = crate::host::deadline::thread_id();
    assert_eq!(thread_run_ns(0), None);
    assert_eq!(thread_run_ns(u32::MAX), None);
    // Whether the kernel keeps schedstat, asked without the code under test: without it
    // there is nothing to read, and the test is recorded as skipped (not passed) in the
    // records tests/common/skip.rs describes.
    let own = || std::fs::read_to_string("/proc/thread-self/schedstat").ok();
    if own().is_none() {
        assert_eq!(thread_run_ns(tid), None);
        record_skip("kernel", "the kernel keeps no /proc/thread-self/schedstat");
        return;
    }
    let before = thread_run_ns(tid).expect("schedstat exists: a reading");
    let start = thread_cpu_ns();
    while thread_cpu_ns() - start < 20_000_000 {
        std::hint::black_box(mono_ns());
    }
    let after = thread_run_ns(tid).expect("schedstat exists: a reading");
    // A kernel built without CONFIG_SCHED_INFO shows the file as "0 0 0": it keeps no
    // schedstat either, which the file's own first field, read here, says.
    let kept = own()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .expect("schedstat's first field");
    if kept == 0 {
        assert_eq!((before, after), (0, 0));
        record_skip(
            "kernel",
            "the kernel's schedstat reads 0 (no CONFIG_SCHED_INFO)",
        );
        return;
    }
    assert!(after >= before + 10_000_000, "{before} -> {after}");
    assert!(after <= kept, "{after} read before the kernel's own {kept}");
}

/// tests/common/skip.rs's `skip`, which a unit test cannot include.
pub(crate) fn record_skip(category: &str, reason: &str) {
    use std::io::Write;
    let exe = std::env::current_exe().expect("test executable");
    let file = std::env::var_os("HCPUMF_TEST_RECORDS")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            exe.ancestors()
                .nth(3)
                .map(|t| t.join("hcpumf-test-records.tsv"))
        })
        .expect("a records file");
    let name = exe.file_name().map(|n| n.to_string_lossy().into_owned());
    let test = std::thread::current().name().unwrap_or("?").to_owned();
    let line = format!(
        "skip\t{category}\t{}\t{test}\t{reason}\n",
        name.unwrap_or_default()
    );
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(line.as_bytes()))
        .expect("record the skip");
    eprintln!("SKIPPED ({category}): {reason}");
}

/// A timer interruption due at a point switches the state right after it: the next
/// interval goes to the state the next point finds, not half to each.
#[test]
fn a_point_before_a_timer_interruption_leaves_the_next_interval_to_the_next_point() {
    let raw = |instcount| RawCounts {
        instcount,
        prevcount: 0,
        waitsig: 0,
    };
    for (timer_due, problem_share) in [(false, 500), (true, 0)] {
        let m = Meter::default();
        m.account(raw(0), 1_000_000, true, false);
        m.account(raw(1_000), 2_000_000, true, timer_due);
        let before = m.reading().problem_instructions;
        m.account(raw(2_000), 3_000_000, false, false);
        let r = m.reading();
        assert_eq!(
            before, 1_000,
            "the first interval stayed in the problem state"
        );
        assert_eq!(
            r.problem_instructions - before,
            problem_share,
            "timer due: {timer_due}"
        );
    }
}

#[test]
fn instructions_at_reads_ahead_without_accounting() {
    let m = Meter::default();
    let raw = |instcount, prevcount| RawCounts {
        instcount,
        prevcount,
        waitsig: 0,
    };
    m.account(raw(1_000, 5_000), 1_000_000, false, false);
    let base = m.reading().instructions;
    assert_eq!(m.instructions_at(1_600, 5_000), Some(base + 600));
    // Nothing was accounted.
    assert_eq!(m.reading().instructions, base);
    // Hercules' timer folded the count, or a read fell between its two stores: the
    // accounting decides.
    assert_eq!(m.instructions_at(0, 6_600), None);
    assert_eq!(m.instructions_at(900, 5_000), None);
    // A reset zeroed the counts.
    m.rebase();
    assert_eq!(m.instructions_at(1_600, 5_000), None);
}

/// The tick skips the CPU-time read when the extrapolation says no sample is due; that
/// is only sound because the extrapolation never runs behind the thread's real CPU time.
#[test]
fn the_cpu_time_estimate_is_never_behind_the_real_time() {
    let m = Meter::default();
    assert_eq!(m.estimate_now(0), None, "nothing read yet");
    m.cpu_now(0, true);
    for _ in 0..1000 {
        let mut x = 0u64;
        for i in 0..1000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        // Real time first: the estimate made afterwards must not be behind it (read the
        // other way round, time the host stole between the reads could count; 1 us for
        // the rounding of two different clocks).
        let real = thread_cpu_ns();
        if let Some(est) = m.estimate_now(0) {
            assert!(est + 1_000 >= real, "estimate {est} behind {real}");
        }
    }
    assert_eq!(m.estimate_now(1), None, "the CPU waited since the read");
}

fn raw(instcount: u64, prevcount: u64) -> RawCounts {
    RawCounts {
        instcount,
        prevcount,
        waitsig: 0,
    }
}

/// A reading from outside the CPU taken after the point of an SVC but before the SVC's
/// new PSW (nothing counted since, the old state) is recognized, as is a point made after
/// a reading (the reading is older than it).
#[test]
fn readings_older_than_an_exact_point_are_recognized() {
    let m = Meter::default();
    m.account(raw(1_000, 0), 1_000, true, false);
    let before = m.points();
    // The SVC's point: problem state up to here, supervisor from here.
    m.account_at(raw(8_000, 0), 2_000, true, Some(false));
    assert_ne!(m.points(), before, "a point made after the reading");
    assert!(!m.counted_since_last_point(raw(8_000, 0)));
    assert!(m.counted_since_last_point(raw(8_012, 0)));
}

/// Hercules' timer folds `instcount` into `prevcount` once a second; the CPU thread's
/// unlocked `instcount += 12` can undo the zeroing, leaving the fold counted twice.
#[test]
fn a_fold_undone_by_the_cpu_thread_counts_once() {
    let m = Meter::default();
    // 100 instructions per us, accounted every ms.
    m.account(raw(0, 0), 1_000_000, true, false);
    m.account(raw(100_000, 0), 2_000_000, true, false);
    m.account(raw(200_000, 0), 3_000_000, true, false);
    // The fold of 250,000 instructions at 3.5 ms, undone: the count goes on from there.
    let r = m.account(raw(300_000, 250_000), 4_000_000, true, false);
    assert_eq!(r.instructions, 300_000);
    let r = m.account(raw(400_000, 250_000), 5_000_000, true, false);
    assert_eq!(r.instructions, 400_000);
}

/// Accounting points further apart than Hercules' fold, with more instructions after the
/// fold than before it, look like the race but are not one: every instruction counts.
#[test]
fn a_real_fold_between_sparse_points_counts_everything() {
    let m = Meter::default();
    m.account(raw(0, 0), 1_000_000, true, false);
    // 100 instructions per us for 10 us.
    m.account(raw(1_000, 0), 1_010_000, true, false);
    // The timer folds 40,000,000 instructions at 0.4 s; 1.1 s later 110,000,000 more ran.
    let r = m.account(raw(110_000_000, 40_000_000), 1_501_010_000, true, false);
    assert_eq!(r.instructions, 150_000_000);
}

/// Without a recent rate, only a growth beyond any interpreter's speed is a double fold.
#[test]
fn without_a_rate_only_an_impossible_growth_is_a_double_fold() {
    let m = Meter::default();
    m.account(raw(5, 0), 1_000_000, true, false);
    // 5 ns later: 1,000,005 + 1,000,000 would be 400,000 instructions per ns.
    let r = m.account(raw(1_000_005, 1_000_000), 1_000_005, true, false);
    assert_eq!(r.instructions, 1_000_005);
    let m = Meter::default();
    m.account(raw(5, 0), 1_000_000, true, false);
    let r = m.account(raw(1_000_005, 1_000_000), 2_000_000_000, true, false);
    assert_eq!(r.instructions, 2_000_005);
}

/// A fold soon after an IPL zeroed the count folds few instructions, and more run before the
/// next point than since the IPL: the race's look-alike, with no rate yet for the program
/// the IPL started (the one from before it, a slower program, would pick the race). Seen in
/// CI: 32,500 instructions of `counter_accuracy::problem_state_share` dropped.
#[test]
fn a_fold_soon_after_an_ipl_counts_everything() {
    let m = Meter::default();
    // The program before the IPL: 50 instructions per us, accounted every ms.
    for k in 0..5u64 {
        m.account(raw(50_000 * k, 0), 1_000_000 * (k + 1), false, false);
    }
    m.rebase();
    // The IPL zeroed the counts; the new program's first points 10,000 and 20,000 in.
    m.account(raw(10_000, 0), 6_000_000, false, false);
    let start = m.account(raw(20_000, 0), 6_100_000, false, false);
    // The fold takes 52,400 at 180 instructions per us; 147,600 more run before the next
    // point, 1 ms on.
    let r = m.account(raw(147_600, 52_400), 7_100_000, false, false);
    assert_eq!(r.instructions - start.instructions, 180_000);
}

/// The same look-alike after a CPU waited most of the second before the fold, judged with a
/// known rate and a CPU time 200 us short (the last point's time was extrapolated ahead of
/// the thread's): within that doubt, every instruction counts.
#[test]
fn a_fold_after_a_wait_counts_everything_within_the_clocks_doubt() {
    let m = Meter::default();
    // 180 instructions per us for 3 ms: the rate.
    steady(&m, 0);
    // A normal fold of 550,000, 20,000 run after it; the point's time 200 us ahead.
    let before = m.account(raw(20_000, 550_000), 4_311_111, false, false);
    assert_eq!(before.instructions, 570_000);
    // The CPU waits (no CPU time) until 0.2 ms before the next fold, of 52,400; the next
    // point comes 1 ms of CPU time after the last one really was, 0.8 ms after its time.
    let r = m.account(raw(147_600, 602_400), 5_111_111, false, false);
    assert_eq!(r.instructions - before.instructions, 180_000);
}

/// The race with a known rate: a fold of a second's worth, undone by the CPU thread, counts
/// once however far the interval's CPU time is off.
#[test]
fn a_fold_undone_counts_once_with_the_clock_off() {
    // 180 instructions per us since the last fold, accounted every ms.
    const B: u64 = 179_000_000;
    for skew in [0u64, 220_000] {
        let m = Meter::default();
        let first = steady(&m, B);
        // The fold of B + 630,000 at 4.5 ms, undone; the point's CPU time at 5 ms less the
        // skew.
        let r = m.account(
            raw(B + 720_000, B + 630_000),
            5_000_000 - skew,
            false,
            false,
        );
        assert_eq!(r.instructions - first.instructions, 720_000, "skew {skew}");
    }
}

/// The CPU thread reads `instcount` and then `prevcount` without Hercules' lock; the timer's
/// fold can fall between the two reads, which then show the fold twice (the count before
/// the zeroing, the sum after it). The next readings, of the real zeroed count, must count
/// on from the fold, not stand still until the count passes the torn reading.
#[test]
fn a_reading_torn_by_the_fold_does_not_stop_the_count() {
    let m = Meter::default();
    steady(&m, 0);
    // The fold of 600,000 lands between the two reads.
    let r = m.account(raw(600_000, 600_000), 4_333_333, false, false);
    assert_eq!(r.instructions, 600_000);
    // 12 instructions later, and a millisecond later: the count goes on from the fold.
    let r = m.account(raw(12, 600_000), 4_333_400, false, false);
    assert_eq!(r.instructions, 600_012);
    let r = m.account(raw(180_000, 600_000), 5_333_333, false, false);
    assert_eq!(r.instructions, 780_000);
}

/// Points every ms of CPU time at 180 instructions per us, from 1 ms to 4 ms, counting on
/// from `base` since the last fold: the rate the fold tests judge by. The first point's
/// reading.
fn steady(m: &Meter, base: u64) -> MeterReading {
    let first = m.account(raw(base, 0), 1_000_000, false, false);
    for k in 1..4u64 {
        m.account(
            raw(base + 180_000 * k, 0),
            1_000_000 * (k + 1),
            false,
            false,
        );
    }
    first
}
