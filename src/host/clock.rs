//! The per-CPU sampling clocks: when a sample is due, in CPU time (SA23-2260, "Sampling
//! Interval Register"). Each CPU has two: the guest's (LSCTL) and the host run's (HIS).

use crate::host::meter::bump;
use std::sync::atomic::{AtomicU64, Ordering};

/// Intervals a sampling clock catches up, one per tick, before it gives up and resynchronizes.
pub const MAX_CATCH_UP: u64 = 64;

/// A tick this much before a sample's due time (at most a quarter interval) still takes it,
/// keeping the clock's phase (the next sample stays due one interval after this one's due
/// time), so the average rate is exact. The sampler thread arms every CPU whose due time
/// is that near in the one wake-up: a wake-up costs ~20 us of the sampler's CPU on a
/// virtual machine (`scripts/bench-wake.sh`), far more than a sample.
pub const EARLY_NS: u64 = 20_000;

/// How long before its due time a clock of interval `interval_ns` takes a tick as due.
pub fn early_window(interval_ns: u64) -> u64 {
    EARLY_NS.min(interval_ns / 4)
}

/// The stretch of execution a sample stands for: CPU time and instructions since the
/// previous sample (or since the clock started).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stretch {
    pub ns: u64,
    pub instructions: u64,
}

/// A per-CPU sampling timer counting CPU time (SA23-2260 "Sampling Interval Register": the
/// average number of CPU cycles within each sampling interval).
///
/// It keeps its phase (the due time advances by exactly one interval per sample, so the
/// average rate is exact) and learns how late the scheduler's wake-ups arrive, asking for
/// them that much earlier; a sample is taken when the tick comes within that margin of the
/// due time, or up to EARLY_NS before it when the sampler arms the CPU in a wake-up made for
/// another. Samples are therefore evenly spread with a jitter of about one wake-up latency.
/// A tick that comes more than an interval late takes one sample and the clock catches up
/// with the following ticks (one sample per tick, each of the instruction the CPU has then
/// reached, never a burst of the same one: two samples are always at least a quarter of an
/// interval apart, so that catching up at most quadruples the rate, fast enough to gain on
/// wake-ups that come tens of microseconds late); only beyond MAX_CATCH_UP intervals behind
/// does it resynchronize and count the intervals as missed.
///
/// Missed intervals (and those still owed when LSCTL stops or restarts the clock) are not
/// stored anywhere in the guest's blocks: the guest sees a longer interval, which SA23-2260
/// allows ("Sampling Interval Register": the interval approximates the *average* number of
/// CPU cycles within each sampling interval; "Basic-Sampling Data Entry", programming note 5:
/// the actual sampling interval may appear to be longer than the specified one). The next
/// sample's U covers the whole stretch since the previous one ([`SampleClock::unique`]), so
/// the samples' CPI estimate stays right. They are not the sample overflow count, which is
/// "the number of sample data that has been lost because the sample-data block is full"
/// ("Trailer Entries"), and not a loss-of-sample-data alert, which would deactivate sampling
/// (Linux's cpum_sf then disables it). `hcpumf status` shows them as "missed".
///
/// A sample is also never taken before the CPU has executed an instruction since the last
/// one: a data entry describes the instruction the CPU is executing, and when the host
/// charges time to the CPU's thread without letting it run the guest (time stolen from the
/// virtual machine, interrupt handling), the sample waits for the next instruction instead
/// of describing the same one twice.
///
/// Each sample also gets its U, the number of unique instructions at the sampling point
/// ([`SampleClock::unique`]).
#[derive(Debug, Default)]
pub struct SampleClock {
    interval_ns: AtomicU64,
    next_ns: AtomicU64,
    margin_ns: AtomicU64,
    /// CPU time of the last sample (0: none since the start).
    last_ns: AtomicU64,
    /// The CPU's instruction count at the last sample.
    last_instructions: AtomicU64,
    /// Where the stretch the next sample stands for began: CPU time (0: at the next tick)
    /// and instruction count, at the last sample or at the start.
    base_ns: AtomicU64,
    base_instructions: AtomicU64,
    /// The fraction of an instruction carried to the next sample's U (in 2^-32 units).
    unique_carry: AtomicU64,
    /// Due samples put off because the CPU had not executed an instruction since the last.
    pub stalls: AtomicU64,
    /// Samples taken.
    pub taken: AtomicU64,
    /// Intervals that passed without a sample (the host delayed the tick or the sampler too
    /// long to catch up, or they were still owed when the clock stopped): `hcpumf status`.
    pub missed: AtomicU64,
    /// Sum of the latenesses of the ticks that took samples (CPU ns after the due time).
    pub late_total: AtomicU64,
    /// Largest lateness.
    pub late_max: AtomicU64,
}

impl SampleClock {
    /// Start (or restart) with a new interval; the first sample is due one interval from now.
    /// `instructions` is the CPU's instruction count now.
    pub fn start(&self, interval_ns: u64, now_ns: u64, instructions: u64) {
        let i = interval_ns.max(1);
        self.interval_ns.store(i, Ordering::Relaxed);
        self.last_ns.store(0, Ordering::Relaxed);
        self.base_ns.store(now_ns.max(1), Ordering::Relaxed);
        self.base_instructions
            .store(instructions, Ordering::Relaxed);
        self.unique_carry.store(0, Ordering::Relaxed);
        self.next_ns
            .store(now_ns.saturating_add(i).max(1), Ordering::Relaxed);
    }
    /// The earliest CPU time the next sample may be taken at: a quarter of an interval
    /// after the last one (0: no limit).
    fn spacing_limit(&self, i: u64) -> u64 {
        match self.last_ns.load(Ordering::Relaxed) {
            0 => 0,
            last => last.saturating_add(i / 4),
        }
    }
    /// Start with a new interval at the CPU's next tick (from another thread).
    pub fn start_pending(&self, interval_ns: u64) {
        self.next_ns.store(0, Ordering::Relaxed);
        self.last_ns.store(0, Ordering::Relaxed);
        self.base_ns.store(0, Ordering::Relaxed);
        self.unique_carry.store(0, Ordering::Relaxed);
        self.interval_ns
            .store(interval_ns.max(1), Ordering::Relaxed);
    }
    /// Intervals whose due time has passed without a sample, for a clock about to be stopped
    /// or restarted: counted as missed (once: the clock moves past them) and returned. They
    /// are stored nowhere in guest storage (see the type's documentation).
    pub fn skip_owed(&self, now_ns: u64) -> u64 {
        let i = self.interval_ns.load(Ordering::Relaxed);
        let next = self.next_ns.load(Ordering::Relaxed);
        if i == 0 || next == 0 || now_ns < next {
            return 0;
        }
        let owed = (now_ns - next) / i + 1;
        self.next_ns.store(
            next.saturating_add(owed.saturating_mul(i)),
            Ordering::Relaxed,
        );
        bump(&self.missed, owed);
        owed
    }
    /// Stop sampling.
    pub fn stop(&self) {
        self.interval_ns.store(0, Ordering::Relaxed);
        self.next_ns.store(0, Ordering::Relaxed);
    }
    /// Is the clock running?
    pub fn running(&self) -> bool {
        self.interval_ns.load(Ordering::Relaxed) != 0
    }
    /// At a tick on the CPU thread, `instructions` being the CPU's instruction count: is a
    /// sample due now? Advances the clock if so.
    pub fn poll(&self, now_ns: u64, instructions: u64) -> Option<Stretch> {
        let i = self.interval_ns.load(Ordering::Relaxed);
        let next = self.next_ns.load(Ordering::Relaxed);
        if i == 0 {
            return None;
        }
        if next == 0 {
            self.next_ns
                .store(now_ns.saturating_add(i).max(1), Ordering::Relaxed);
            self.base_ns.store(now_ns.max(1), Ordering::Relaxed);
            self.base_instructions
                .store(instructions, Ordering::Relaxed);
            return None;
        }
        let margin = self.margin_ns.load(Ordering::Relaxed).min(i / 2);
        // The time the wake-up was asked for (see wake_at).
        let spacing = self.spacing_limit(i);
        let wake = (next - margin.min(next - 1)).max(spacing);
        if now_ns < wake.saturating_sub(early_window(i)).max(spacing) {
            return None;
        }
        if self.last_ns.load(Ordering::Relaxed) != 0
            && self.last_instructions.load(Ordering::Relaxed) == instructions
        {
            bump(&self.stalls, 1);
            return None;
        }
        // How late the wake-up came relative to when it was asked for (a tick that came
        // early, armed with another CPU's wake-up, says nothing about that).
        if now_ns >= wake {
            let lat = now_ns - wake;
            let m = self.margin_ns.load(Ordering::Relaxed);
            self.margin_ns.store((m * 7 + lat) / 8, Ordering::Relaxed);
        }
        if now_ns > next {
            let late = now_ns - next;
            bump(&self.late_total, late);
            if late > self.late_max.load(Ordering::Relaxed) {
                self.late_max.store(late, Ordering::Relaxed);
            }
        }
        let mut n = next.saturating_add(i);
        if n <= now_ns {
            // Behind (the host delayed the tick): catch up one interval per tick, each tick
            // sampling the instruction the CPU has reached by then, unless the CPU is so
            // far behind that catching up would take longer than it is worth.
            let behind = (now_ns - n) / i + 1;
            if behind > MAX_CATCH_UP {
                bump(&self.missed, behind);
                n = now_ns.saturating_add(i);
            }
        }
        self.next_ns.store(n, Ordering::Relaxed);
        self.last_ns.store(now_ns.max(1), Ordering::Relaxed);
        self.last_instructions
            .store(instructions, Ordering::Relaxed);
        bump(&self.taken, 1);
        let stretch = Stretch {
            ns: now_ns.saturating_sub(self.base_ns.load(Ordering::Relaxed)),
            instructions: instructions.wrapping_sub(self.base_instructions.load(Ordering::Relaxed)),
        };
        self.base_ns.store(now_ns.max(1), Ordering::Relaxed);
        self.base_instructions
            .store(instructions, Ordering::Relaxed);
        Some(stretch)
    }

    /// U for the sample that ended `stretch` on a CPU of `speed` cycles per microsecond: the
    /// number of unique instructions completed at the sampling point (SA23-2260, "Number of
    /// Unique Instructions"). A real CPU's sampled cycle is the completion cycle of an
    /// instruction with probability instructions / cycles, so that busy samples divided by
    /// the sum of U estimates the CPI, as SA23-2260 says. The emulator gives each sample the
    /// instructions per cycle of the stretch of execution it stands for (the CPU's own
    /// instruction count and CPU time since the previous sample) and carries the fraction to
    /// the next sample (error diffusion): over any run of samples the sum of U is the
    /// instructions of those stretches divided by their cycles, within one, so that a
    /// region of costly instructions shows its higher CPI and the whole run's sample CPI is
    /// the counters' CPI. U has 4 bits: at most 15.
    pub fn unique(&self, stretch: Stretch, speed: u32) -> u8 {
        // 64-bit arithmetic (this runs at every sample): a stretch is at most one maximum
        // interval (a second) of CPU time, far below the limits.
        let cycles = (stretch.ns.saturating_mul(u64::from(speed)) / 1000).max(1);
        if stretch.instructions >= 1 << 32 {
            return 15;
        }
        let ipc = (stretch.instructions << 32) / cycles;
        let acc = self
            .unique_carry
            .load(Ordering::Relaxed)
            .saturating_add(ipc);
        let whole = (acc >> 32).min(15);
        self.unique_carry
            .store(acc - (whole << 32), Ordering::Relaxed);
        whole as u8
    }
    /// The interval in CPU ns (0: not running).
    pub fn interval(&self) -> u64 {
        self.interval_ns.load(Ordering::Relaxed)
    }
    /// CPU time at which the CPU should be armed after the next time, if that next tick
    /// takes a sample (0: not running): the due time one interval on, or a quarter interval
    /// after the next sample when catching up.
    pub fn follow_at(&self) -> u64 {
        let i = self.interval_ns.load(Ordering::Relaxed);
        let next = self.next_ns.load(Ordering::Relaxed);
        if i == 0 || next == 0 {
            return 0;
        }
        let margin = self.margin_ns.load(Ordering::Relaxed).min(i / 2);
        (next + i)
            .saturating_sub(margin)
            .max(self.wake_at().saturating_add(i / 4))
    }
    /// CPU time at which the CPU should next be armed for this clock (0: not running).
    pub fn wake_at(&self) -> u64 {
        let i = self.interval_ns.load(Ordering::Relaxed);
        let next = self.next_ns.load(Ordering::Relaxed);
        if i == 0 {
            return 0;
        }
        if next == 0 {
            // Started from another thread: a tick soon starts the first interval.
            return 1;
        }
        let margin = self.margin_ns.load(Ordering::Relaxed).min(i / 2);
        next.saturating_sub(margin)
            .max(self.spacing_limit(i))
            .max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_clock_keeps_its_phase() {
        let c = SampleClock::default();
        c.start(1000, 10_000, 0);
        assert!(c.poll(10_500, 1).is_none(), "not due");
        assert!(c.poll(11_000, 2).is_some());
        assert!(c.poll(12_000, 3).is_some());
        assert_eq!(c.wake_at(), 13_000);
        assert_eq!(c.taken.load(Ordering::Relaxed), 2);
    }

    /// A tick up to EARLY_NS (at most a quarter interval) before the due time takes the
    /// sample, and the next is still due one interval after this one's due time.
    #[test]
    fn an_early_tick_samples_and_keeps_the_phase() {
        let c = SampleClock::default();
        c.start(100_000, 0, 0);
        assert!(c.poll(100_000, 1).is_some());
        assert!(c.poll(179_000, 2).is_none(), "21 us early");
        assert!(c.poll(181_000, 3).is_some(), "19 us early");
        assert_eq!(c.wake_at(), 300_000, "phase kept");
        // Short intervals: at most a quarter interval early.
        let c = SampleClock::default();
        c.start(40_000, 0, 0);
        assert!(c.poll(40_000, 1).is_some());
        assert!(
            c.poll(69_000, 2).is_none(),
            "11 us early: more than a quarter"
        );
        assert!(c.poll(71_000, 3).is_some());
        assert_eq!(c.taken.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn catching_up_keeps_samples_a_quarter_interval_apart() {
        let c = SampleClock::default();
        c.start(1000, 0, 0);
        // The tick comes 5 intervals late: one sample now, the missed ones while catching
        // up, at most four per interval. Ticks come every 10 ns (the scheduler armed the CPU
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
    /// phase: the next sample is still due one interval after the put-off one.
    #[test]
    fn a_cpu_that_did_not_execute_an_instruction_is_not_sampled_again() {
        let c = SampleClock::default();
        c.start(1000, 0, 0);
        assert!(c.poll(1000, 500).is_some());
        assert!(
            c.poll(2000, 500).is_none(),
            "no instruction since the last sample"
        );
        assert!(c.poll(2100, 500).is_none());
        assert_eq!(c.stalls.load(Ordering::Relaxed), 2);
        assert!(
            c.poll(2200, 501).is_some(),
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
        // The clock goes on past them: the next sample is due at 5,000.
        assert!(c.poll(4_990, 2).is_some());
        assert_eq!(c.missed.load(Ordering::Relaxed), 3);
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
}
