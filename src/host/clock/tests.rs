//! Unit tests of the sampling clocks.

use super::*;

#[test]
fn the_sample_clock_keeps_its_phase() {
    let c = SampleClock::default();
    c.start(1000, 10_000, 0);
    assert!(c.poll(10_200, 1).is_none(), "not due");
    assert!(c.poll(11_000, 2).is_some());
    assert!(c.poll(12_000, 3).is_some());
    assert_eq!(c.wake_at(), 13_000);
    assert_eq!(c.taken.load(Ordering::Relaxed), 2);
}

/// A tick up to EARLY_NS (at most three quarters of an interval) before the due time takes
/// the sample, and the next is still due one interval after this one's due time.
#[test]
fn an_early_tick_samples_and_keeps_the_phase() {
    let c = SampleClock::default();
    c.start(100_000, 0, 0);
    assert!(c.poll(100_000, 1).is_some());
    assert!(c.poll(139_000, 2).is_none(), "61 us early");
    assert!(c.poll(141_000, 3).is_some(), "59 us early");
    assert_eq!(c.wake_at(), 300_000, "phase kept");
    // Short intervals: at most three quarters of an interval early.
    let c = SampleClock::default();
    c.start(40_000, 0, 0);
    assert!(c.poll(40_000, 1).is_some());
    assert!(
        c.poll(49_000, 2).is_none(),
        "31 us early: more than three quarters"
    );
    assert!(c.poll(51_000, 3).is_some(), "29 us early");
    assert_eq!(c.wake_at(), 120_000, "phase kept");
    assert_eq!(c.taken.load(Ordering::Relaxed), 2);
}

#[test]
fn catching_up_keeps_samples_a_quarter_interval_apart() {
    let c = SampleClock::default();
    c.start(1000, 0, 0);
    // The tick comes 5 intervals late: one sample now, the missed ones while catching
    // up, at most four per interval. Ticks come every 10 ns (the sampler armed the CPU
    // again during each tick): never two samples less than 250 ns apart.
    let (mut t, mut last, mut n) = (6_000u64, 0u64, 0u64);
    while t <= 11_000 {
        if c.poll(t, t).is_some() {
            assert!(last == 0 || t - last >= 250, "samples at {last} and {t}");
            last = t;
            n += 1;
        }
        t += 10;
    }
    // Every interval up to 11,000 got its sample, none was given up.
    assert_eq!(n, 11);
    assert_eq!(c.missed.load(Ordering::Relaxed), 0);
    assert!(c.wake_at() >= 11_500);
}

/// A due sample waits while the CPU has not executed an instruction since the last one
/// (the host charged its thread time without running the guest), keeping the clock's
/// phase: the next sample is still due one interval after the put-off one. Put off at a
/// tick, it is tried again an eighth of an interval on, not at the next instruction
/// (Hercules' count moves a batch of instructions at a time).
#[test]
fn a_cpu_that_did_not_execute_an_instruction_is_not_sampled_again() {
    let c = SampleClock::default();
    c.start(1000, 0, 0);
    assert!(c.poll(1000, 500).is_some());
    assert!(
        c.poll(2000, 500).is_none(),
        "no instruction since the last sample"
    );
    assert!(
        c.wake_at() < 2125,
        "put off from outside: the next tick may take it"
    );
    assert!(c.poll(2010, 500).is_none());
    c.retry_later(2010);
    assert!(
        c.wake_at() >= 2135,
        "put off at a tick: tried again an eighth on"
    );
    assert!(c.poll(2100, 501).is_none(), "not before then");
    assert_eq!(c.stalls.load(Ordering::Relaxed), 2);
    assert!(
        c.poll(2300, 501).is_some(),
        "the first tick after an instruction"
    );
    assert!(
        c.poll(3000, 502).is_some(),
        "the next sample is due at 3,000: phase kept"
    );
    assert!(c.wake_at() > 3500);
    assert_eq!(c.missed.load(Ordering::Relaxed), 0);
}

#[test]
fn far_behind_resynchronizes_and_counts_the_missed_intervals() {
    let c = SampleClock::default();
    c.start(1000, 0, 0);
    assert!(c.poll(1000 + 100 * 1000, 1).is_some());
    assert_eq!(c.missed.load(Ordering::Relaxed), 100);
    assert_eq!(c.take_missed(), 100, "for the update process");
    assert!(
        c.poll(101_200, 2).is_none(),
        "less than a quarter of an interval later"
    );
    assert!(c.poll(102_000, 3).is_some());
}

#[test]
fn intervals_owed_when_the_clock_stops_are_counted_once() {
    let c = SampleClock::default();
    c.start(1000, 0, 0);
    assert!(c.poll(1000, 1).is_some());
    assert_eq!(c.skip_owed(1999), 0, "the second interval has not ended");
    // No tick came for 3.5 intervals: samples for 2,000, 3,000 and 4,000 are owed.
    assert_eq!(c.skip_owed(4_500), 3);
    assert_eq!(c.skip_owed(4_500), 0, "counted once");
    assert_eq!(c.missed.load(Ordering::Relaxed), 3);
    // The update process hears of them once (a still-full block counts them as lost).
    assert_eq!(c.take_missed(), 3);
    assert_eq!(c.take_missed(), 0);
    // The clock goes on past them: the next sample is due at 5,000.
    assert!(c.poll(4_990, 2).is_some());
    assert_eq!(c.missed.load(Ordering::Relaxed), 3);
    assert_eq!(c.take_missed(), 0);
    // A restarted clock owes the guest nothing of before.
    c.skip_owed(7_500);
    c.start(1000, 7_500, 3);
    assert_eq!(c.take_missed(), 0);
}

/// SA23-2260: busy samples divided by the sum of U estimates the CPI. With the stretches
/// of a run at 40 cycles per instruction (speed 4,000 cycles/us: 100 instructions per
/// 1,000 ns) one sample in 40 has U = 1; at 4 cycles per instruction one in four; below
/// one cycle per instruction U counts several instructions.
#[test]
fn busy_samples_over_the_sum_of_u_is_the_cpi_of_the_stretches() {
    let c = SampleClock::default();
    c.start(1000, 0, 0);
    let sum = |c: &SampleClock, ipc_num: u64, n: u64| -> u64 {
        (0..n)
            .map(|_| {
                let s = Stretch {
                    ns: 1000,
                    instructions: ipc_num,
                };
                u64::from(c.unique(s, 4000))
            })
            .sum()
    };
    // Within one: the carried fraction (binary fixed point) may hold the last unit.
    let near = |got: u64, want: u64| got + 1 >= want && got <= want + 1;
    let s = sum(&c, 100, 4000);
    assert!(
        near(s, 100),
        "CPI 40: 4,000 samples, U sums to {s}, not 100"
    );
    let s = sum(&c, 1000, 400);
    assert!(near(s, 100), "CPI 4: {s}");
    let s = sum(&c, 10_000, 10);
    assert!(near(s, 25), "CPI 0.4: 2.5 instructions per sample, {s}");
    assert_eq!(
        c.unique(
            Stretch {
                ns: 1000,
                instructions: 1_000_000
            },
            4000
        ),
        15,
        "4 bits"
    );
    // A stretch without CPU time (a sample right after the start) counts its
    // instructions against one cycle, within the 4 bits.
    c.start(1000, 0, 0);
    assert_eq!(c.unique(Stretch::default(), 4000), 0);
}

/// A dedicated CPU: wait time counts as sampling time. The clock starts at CPU time
/// 1 ms with a 100-us interval; the CPU runs 20 us, then waits, its CPU time standing at
/// 1.02 ms. The wait moves the due time back by as much as it lasted, so the first wait
/// sample comes 20 us into the wait (sampling time 40 us: the early window is 60 us) and one
/// every 100 us after (sampling time 140, 240, ... us, for the intervals ending at 200, 300,
/// ... us); the phase is kept when the CPU runs again, and the busy sample's stretch is CPU
/// time only.
#[test]
fn a_dedicated_cpus_wait_is_sampling_time() {
    const B: u64 = 1_000_000;
    let c = SampleClock::default();
    c.start(100_000, B, 0);
    c.mark_wait(5_000_000);
    assert!(c.poll(B + 20_000, 10).is_none(), "not due");
    // 10 us into the wait: not due (sampling time 30 us; due from 40 us).
    assert_eq!(c.credit_wait(5_010_000), 10_000);
    assert!(!c.poll_wait(B + 20_000, 10));
    // 60 us in: the sample of the interval ending at 100 us.
    assert_eq!(c.credit_wait(5_060_000), 50_000);
    assert!(c.poll_wait(B + 20_000, 10));
    assert!(!c.poll_wait(B + 20_000, 10), "one per interval");
    assert_eq!(c.wake_at(), B + 140_000, "100 us more, CPU time standing");
    // 370 us in (sampling time 390 us): the samples of 200, 300 and 400 us.
    c.credit_wait(5_370_000);
    let n = (0..10).take_while(|_| c.poll_wait(B + 20_000, 10)).count();
    assert_eq!(n, 3);
    assert_eq!(
        (
            c.taken.load(Ordering::Relaxed),
            c.waits.load(Ordering::Relaxed)
        ),
        (4, 4)
    );
    // The wait ends 380 us in (sampling time 400 us); the CPU runs on: the interval
    // ending at 500 us is due 100 us of CPU time later (taken from 40 us later), and the
    // busy sample's stretch is the 120 us of CPU time and 30 instructions since the start.
    c.credit_wait(5_380_000);
    assert!(c.poll(B + 55_000, 20).is_none());
    assert_eq!(
        c.poll(B + 120_000, 30),
        Some(Stretch {
            ns: 120_000,
            instructions: 30
        })
    );
    assert_eq!(c.wake_at(), B + 220_000, "phase kept");
    assert_eq!(c.missed.load(Ordering::Relaxed), 0);
}

/// A wait credited beyond the CPU's whole CPU time (a thread that ran little before a
/// long wait) still gives one sample per interval, and the phase.
#[test]
fn a_wait_longer_than_the_cpu_time_so_far_owes_its_samples() {
    let c = SampleClock::default();
    c.start(100_000, 10_000, 0);
    c.mark_wait(0);
    // 1 ms of wait: the intervals ending at 110, 210, ..., 1010 us of sampling time.
    c.credit_wait(1_000_000);
    let n = (0..20).take_while(|_| c.poll_wait(10_000, 0)).count();
    assert_eq!(n, 10);
    // Sampling time 1,010 us: the next interval ends at 1,110 us, 100 us on.
    assert_eq!(c.wake_at(), 110_000);
    assert_eq!(c.missed.load(Ordering::Relaxed), 0);
}

/// The first credit after a start only takes the mark (waits before sampling began are
/// not sampling time), and a count read while a wait ended that is below an earlier one
/// moves nothing back and forth.
#[test]
fn wait_credit_starts_at_the_mark_and_never_goes_back() {
    let c = SampleClock::default();
    c.start(100_000, 1_000_000, 0);
    assert_eq!(c.credit_wait(7_000_000), 0, "the mark");
    assert_eq!(c.credit_wait(7_050_000), 50_000);
    assert_eq!(c.credit_wait(7_040_000), 0, "behind the mark");
    assert_eq!(c.credit_wait(7_060_000), 10_000);
    assert_eq!(c.wake_at(), 1_040_000);
    // Restarted: a new mark.
    c.start(100_000, 2_000_000, 0);
    assert_eq!(c.credit_wait(9_000_000), 0);
    assert_eq!(c.wake_at(), 2_100_000);
    // Not running: nothing.
    c.stop();
    assert_eq!(c.credit_wait(9_500_000), 0);
    assert!(!c.poll_wait(2_000_000, 0));
}

/// A wait credited at once beyond MAX_CATCH_UP intervals before CPU time 0 is given up as
/// missed, as a tick that late is; a forgotten mark is taken afresh (CPUs just made
/// dedicated: their earlier waits are not sampling time).
#[test]
fn credits_beyond_the_catch_up_are_missed_and_a_forgotten_mark_is_retaken() {
    let c = SampleClock::default();
    c.start(100_000, 10_000, 0);
    c.mark_wait(0);
    // Sampling time 10.01 ms: the intervals ending at 0.11, 0.21, ..., 10.01 ms.
    c.credit_wait(100 * 100_000);
    assert_eq!(c.missed.load(Ordering::Relaxed), 99);
    assert!(c.poll_wait(10_000, 0), "the last, due now");
    assert!(!c.poll_wait(10_000, 0));
    c.forget_wait_mark();
    assert_eq!(
        c.credit_wait(1_000_000_000),
        0,
        "the mark, nothing credited"
    );
    assert_eq!(c.credit_wait(1_000_050_000), 50_000);
}

/// A clock started from another thread (a HIS run) on a CPU that waits starts at the
/// first wait look.
#[test]
fn a_pending_clock_starts_in_the_wait() {
    let c = SampleClock::default();
    c.start_pending(100_000);
    assert_eq!(c.credit_wait(3_000_000), 0);
    assert!(!c.poll_wait(50_000, 7), "started");
    assert_eq!(c.wake_at(), 150_000);
    assert_eq!(c.credit_wait(3_100_000), 100_000);
    assert!(c.poll_wait(50_000, 7));
}

/// The stretch a sample stands for runs from the previous sample (or the start).
#[test]
fn each_sample_reports_its_stretch() {
    let c = SampleClock::default();
    c.start(1000, 10_000, 700);
    assert_eq!(
        c.poll(11_000, 750),
        Some(Stretch {
            ns: 1000,
            instructions: 50
        })
    );
    assert_eq!(
        c.poll(12_100, 850),
        Some(Stretch {
            ns: 1100,
            instructions: 100
        })
    );
    // Started from another thread: the stretch begins at the first tick.
    c.start_pending(1000);
    assert_eq!(c.poll(20_000, 900), None);
    assert_eq!(
        c.poll(21_000, 990),
        Some(Stretch {
            ns: 1000,
            instructions: 90
        })
    );
}

/// `accept_at` is exactly where `poll` starts taking the next sample, in every state the
/// clock gets into: on time, early within the window, with a learned lateness margin, and
/// catching up after ticks that came milliseconds late (then the spacing limit decides).
/// The sampler thread takes a CPU for due by it: a look before it would be refused.
#[test]
fn accept_at_is_where_poll_starts_taking_samples() {
    let c = SampleClock::default();
    let i = 75_000;
    c.start(i, 1_000_000, 0);
    let mut n = 0;
    let mut spaced = 0;
    for k in 0..400u64 {
        let a = c.accept_at();
        assert!(a > 1, "tick {k}");
        n += 1;
        assert!(
            c.poll(a - 1, n).is_none(),
            "tick {k}: taken before accept_at {a}"
        );
        if a == c.spacing_limit(i) && a > c.wake_at().saturating_sub(early_window(i)) {
            spaced += 1;
        }
        // Every 80th tick 3 ms late (40 intervals behind, caught up at three quarters of an
        // interval per tick within the 80), some 40 us late, the rest at the earliest.
        let t = match k % 80 {
            40 => a + 3_000_000,
            k if k % 3 == 1 => a + 40_000,
            _ => a,
        };
        n += 1;
        assert!(
            c.poll(t, n).is_some(),
            "tick {k}: not taken at {t} (accept_at {a})"
        );
    }
    assert!(spaced > 0, "the spacing limit decided some of them");
    assert_eq!(c.missed.load(Ordering::Relaxed), 0);
}

/// A tick too late to catch up: the intervals in which the CPU's thread got its CPU time
/// without executing (its instructions since the last sample took far less at its usual
/// rate) are counted held by the host; a CPU that ran on at its usual rate while no sample
/// came counts none.
#[test]
fn intervals_the_host_held_the_cpu_are_told_apart() {
    // 50 us intervals, 1,000 instructions per interval.
    let i = 50_000u64;
    let run = |last_instructions: u64| {
        let c = SampleClock::default();
        c.start(i, 0, 0);
        for k in 1..=20u64 {
            assert!(c.poll(k * i, k * 1000).is_some());
        }
        // 10 ms (200 intervals) later.
        assert!(c.poll(20 * i + 10_000_000, last_instructions).is_some());
        (
            c.missed.load(Ordering::Relaxed),
            c.held.load(Ordering::Relaxed),
        )
    };
    // 200 intervals passed, one sample now: 199 missed. 1,000 instructions in the 10 ms:
    // 9.95 ms held, 199 intervals.
    let (missed, held) = run(21_000);
    assert_eq!(missed, 199);
    assert_eq!(held, 199);
    // 200,000 instructions: the CPU ran at its usual rate and the samples did not come.
    let (missed, held) = run(220_000);
    assert_eq!(missed, 199);
    assert_eq!(held, 0);
}

/// The usual rate a held stretch is judged by is the CPU's recent one: a guest that moved on
/// to instructions ten times as costly, and ran 10 ms at that rate while no sample came,
/// was not held (against its average since the start it would seem held for most of it).
#[test]
fn the_usual_rate_is_the_recent_one() {
    let i = 50_000u64;
    let c = SampleClock::default();
    c.start(i, 0, 0);
    // 300 ms at 1,000 instructions an interval, then 300 ms at 100.
    let (mut t, mut n) = (0u64, 0u64);
    for k in 0..12_000u64 {
        t += i;
        n += if k < 6_000 { 1_000 } else { 100 };
        assert!(c.poll(t, n).is_some());
    }
    // 10 ms later, 200 intervals at 100 instructions each.
    assert!(c.poll(t + 10_000_000, n + 20_000).is_some());
    assert_eq!(c.missed.load(Ordering::Relaxed), 199);
    assert_eq!(c.held.load(Ordering::Relaxed), 0);
}

/// A clock behind its due time says so (the sampler then spins its short waits for the CPU,
/// `host::sampler`) until it has caught up, and not once stopped.
#[test]
fn a_clock_catching_up_says_so() {
    let c = SampleClock::default();
    c.start(1000, 0, 0);
    assert!(!c.catching_up(500));
    assert!(c.poll(1_080, 1).is_some());
    assert!(!c.catching_up(1_500), "on time");
    // Four intervals late: behind, and the next sample is due at the spacing limit.
    assert!(c.poll(6_000, 2).is_some());
    assert!(c.catching_up(6_000));
    assert_eq!(c.wake_at(), 6_250);
    // Ticks exactly when asked (a sampler that spins its short waits) take four samples an
    // interval: the four intervals lost are made up 1,250 ns later, with the one due at 7,000.
    let mut t = 6_000;
    while c.catching_up(t) {
        t = c.wake_at();
        assert!(c.poll(t, t).is_some());
    }
    assert_eq!(t, 7_250, "caught up");
    assert_eq!(c.missed.load(Ordering::Relaxed), 0);
    c.stop();
    assert!(!c.catching_up(t + 10_000), "stopped");
}
