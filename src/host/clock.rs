//! The per-CPU sampling clocks: when a sample is due, in CPU time (SA23-2260, "Sampling
//! Interval Register"). Each CPU has two: the guest's (LSCTL) and the host run's (HIS).

use crate::host::meter::bump;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Intervals a sampling clock catches up, one per tick, before it gives up and resynchronizes.
pub const MAX_CATCH_UP: u64 = 64;

/// The CPU's usual rate, against which a stretch too late to catch up is judged held by the
/// host, is that of this much CPU time (to twice as much) before it ([`SampleClock::poll`]).
const RATE_WINDOW_NS: u64 = 20_000_000;

/// A tick this much before a sample's due time (at most three quarters of an interval) still
/// takes it, keeping the clock's phase (the next sample stays due one interval after this
/// one's due time), so the average rate is exact; it never comes before the spacing limit
/// ([`SampleClock::accept_at`]). The sampler thread arms (or samples) every CPU whose due time
/// is that near in the one wake-up: a wake-up costs ~15-20 us of the sampler's CPU on a
/// virtual machine (`scripts/bench-wake.sh`), far more than a sample, and where CPU threads
/// share host cores each wake-up preempts one of them. The wider the window, the more often
/// one wake-up serves two CPUs sampling at the same rate (whatever their phases: with a
/// quarter interval a quarter of the time, with three quarters three quarters of it); with
/// 4 CPUs on 2 host cores at 13,333/s (docs/benchmarks.md, 2026-11-27 07:58) the CPU threads
/// kept 0.94-0.95 of their time for Hercules with three quarters, 0.93-0.94 with a half and
/// 0.85-0.90 with a quarter.
pub const EARLY_NS: u64 = 60_000;

/// How long before its due time a clock of interval `interval_ns` takes a tick as due.
pub fn early_window(interval_ns: u64) -> u64 {
    EARLY_NS.min(interval_ns / 4 * 3)
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
/// average rate is exact) and learns how late the sampler's wake-ups arrive, asking for
/// them that much earlier; a sample is taken when the tick comes within that margin of the
/// due time, or up to EARLY_NS before it when the sampler arms the CPU in a wake-up made for
/// another. Samples are therefore evenly spread with a jitter of about one wake-up latency.
/// A tick that comes more than an interval late takes one sample and the clock catches up
/// with the following ticks (one sample per tick, each of the instruction the CPU has then
/// reached, never a burst of the same one: two samples are always at least a quarter of an
/// interval apart, so that catching up at most quadruples the rate, fast enough to gain on
/// wake-ups that come tens of microseconds late, provided the sampler spins rather than
/// sleeps the short waits between them: [`SampleClock::catching_up`]); only beyond
/// MAX_CATCH_UP intervals behind does it resynchronize and count the intervals as missed.
///
/// Missed intervals (and those still owed when LSCTL stops or restarts the clock) are not
/// stored anywhere in the guest's blocks: the guest sees a longer interval, which SA23-2260
/// allows ("Sampling Interval Register": the interval approximates the *average* number of
/// CPU cycles within each sampling interval; "Basic-Sampling Data Entry", programming note 5:
/// the actual sampling interval may appear to be longer than the specified one). The next
/// sample's U covers the whole stretch since the previous one ([`SampleClock::unique`]), so
/// the samples' CPI estimate stays right. They are not a loss-of-sample-data alert, which
/// would deactivate sampling (Linux's cpum_sf then disables it). Only while the current
/// block is still full do they reach the guest: a real CPU's timer would have taken those
/// samples and step 1 discarded them, so they go to the sample overflow count, "the number
/// of sample data that has been lost because the sample-data block is full" ("Trailer
/// Entries"; [`SampleClock::take_missed`], `CpuSampling::count_lost`), which thereby counts
/// every interval that passed. `hcpumf status` shows them all as "missed".
///
/// A sample is also never taken before the CPU has executed an instruction since the last
/// one: a data entry describes the instruction the CPU is executing, and when the host
/// charges time to the CPU's thread without letting it run the guest (time stolen from the
/// virtual machine, interrupt handling), the sample waits for the next instruction instead
/// of describing the same one twice. Put off at a tick, it is tried again an eighth of an
/// interval of CPU time later ([`SampleClock::retry_later`]), not at the next instruction:
/// Hercules adds to its count only at the end of a batch (12 instructions on 3.13), and a
/// CPU armed again at once ticked at each of those instructions, each tick put off (with two
/// CPUs on two host cores, 12 instructions took ~300 us of the thread's time, and the clock
/// missed its intervals). Put off from outside, the CPU is armed at once as before: its tick
/// comes at its next instruction, and a retry later would cost the sampler a wake-up (SDL
/// Hyperion's single CPU at the maximum rate kept 0.942 of its speed with such retries, 0.967
/// without: docs/benchmarks.md, 2026-11-27 18:50).
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
    /// CPU time before which a put-off sample is not tried again (0: none put off).
    retry_ns: AtomicU64,
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
    /// Of the missed intervals, those in which the host held the CPU's thread without it
    /// executing instructions ([`SampleClock::poll`]): `hcpumf status`.
    pub held: AtomicU64,
    /// CPU time and instructions of the recent stretches between samples taken on time or
    /// caught up (RATE_WINDOW_NS): the CPU's usual rate, against which a stretch too late to
    /// catch up is judged.
    run_ns: AtomicU64,
    run_instructions: AtomicU64,
    /// Of the missed intervals, those the guest's update process has not yet been told of
    /// ([`SampleClock::take_missed`]).
    unclaimed: AtomicU64,
    /// Sum of the latenesses of the ticks that took samples (CPU ns after the due time).
    pub late_total: AtomicU64,
    /// Largest lateness.
    pub late_max: AtomicU64,
    /// Dedicated CPUs: the CPU's wait time (Hercules' count, ns) up to which waits have moved
    /// the clock ([`SampleClock::credit_wait`]); `wait_marked` is off until it is taken.
    wait_mark_ns: AtomicU64,
    wait_marked: AtomicBool,
    /// Intervals a credit covered beyond CPU time 0 (a wait longer than the CPU time of the
    /// CPU's thread so far): owed to [`SampleClock::poll_wait`].
    wait_owed: AtomicU64,
    /// Of the samples taken, those of a dedicated CPU in the wait state (W = 1).
    pub waits: AtomicU64,
}

impl SampleClock {
    /// Start (or restart) with a new interval; the first sample is due one interval from now.
    /// `instructions` is the CPU's instruction count now.
    pub fn start(&self, interval_ns: u64, now_ns: u64, instructions: u64) {
        let i = interval_ns.max(1);
        self.interval_ns.store(i, Ordering::Relaxed);
        self.last_ns.store(0, Ordering::Relaxed);
        self.retry_ns.store(0, Ordering::Relaxed);
        self.base_ns.store(now_ns.max(1), Ordering::Relaxed);
        self.base_instructions
            .store(instructions, Ordering::Relaxed);
        self.unique_carry.store(0, Ordering::Relaxed);
        self.next_ns
            .store(now_ns.saturating_add(i).max(1), Ordering::Relaxed);
        self.wait_marked.store(false, Ordering::Relaxed);
        self.wait_owed.store(0, Ordering::Relaxed);
        self.unclaimed.store(0, Ordering::Relaxed);
    }
    /// The earliest CPU time the next sample may be taken at: a quarter of an interval
    /// after the last one (0: no limit).
    fn spacing_limit(&self, i: u64) -> u64 {
        match self.last_ns.load(Ordering::Relaxed) {
            0 => 0,
            last => last
                .saturating_add(i / 4)
                .max(self.retry_ns.load(Ordering::Relaxed)),
        }
    }
    /// Start with a new interval at the CPU's next tick (from another thread).
    pub fn start_pending(&self, interval_ns: u64) {
        self.next_ns.store(0, Ordering::Relaxed);
        self.last_ns.store(0, Ordering::Relaxed);
        self.retry_ns.store(0, Ordering::Relaxed);
        self.base_ns.store(0, Ordering::Relaxed);
        self.unique_carry.store(0, Ordering::Relaxed);
        self.interval_ns
            .store(interval_ns.max(1), Ordering::Relaxed);
        self.wait_marked.store(false, Ordering::Relaxed);
        self.wait_owed.store(0, Ordering::Relaxed);
        self.unclaimed.store(0, Ordering::Relaxed);
    }
    /// Count `k` intervals missed.
    fn miss(&self, k: u64) {
        bump(&self.missed, k);
        self.unclaimed.fetch_add(k, Ordering::Relaxed);
    }
    /// The intervals missed since the last call: samples a real CPU's sampling timer would
    /// have taken, for the update process to count as lost when the block is still full
    /// (`CpuSampling::count_lost`).
    pub fn take_missed(&self) -> u64 {
        if self.unclaimed.load(Ordering::Relaxed) == 0 {
            return 0;
        }
        self.unclaimed.swap(0, Ordering::Relaxed)
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
        self.miss(owed);
        owed
    }
    /// Stop sampling.
    pub fn stop(&self) {
        self.interval_ns.store(0, Ordering::Relaxed);
        self.next_ns.store(0, Ordering::Relaxed);
        self.wait_marked.store(false, Ordering::Relaxed);
        self.wait_owed.store(0, Ordering::Relaxed);
        self.unclaimed.store(0, Ordering::Relaxed);
    }

    /// Dedicated CPUs: the CPU's wait time so far is `waited_ns` (Hercules' count of the time
    /// it has waited, in ns, with a wait in progress). The clock counts CPU time, which stands
    /// still while the CPU waits; on a dedicated CPU the sampling timer runs on in the wait
    /// state (SA23-2260, BSDE programming note 5), so the wait time since the last call
    /// counts as sampling time: the due time and the last sample move back by as much (the
    /// phase is kept, the next sample comes that much less CPU time later). The stretch a
    /// busy sample's U stands for stays CPU time. The first call after the clock started
    /// only takes the mark (waits before the start are not sampling time); a count below the
    /// mark (read while a wait ended) moves nothing. Returns the time credited.
    pub fn credit_wait(&self, waited_ns: u64) -> u64 {
        let mark = self.wait_mark_ns.load(Ordering::Relaxed);
        if !self.wait_marked.swap(true, Ordering::Relaxed) {
            self.wait_mark_ns.store(waited_ns, Ordering::Relaxed);
            return 0;
        }
        let d = waited_ns.saturating_sub(mark);
        let next = self.next_ns.load(Ordering::Relaxed);
        if d == 0 || self.interval_ns.load(Ordering::Relaxed) == 0 || next == 0 {
            self.wait_mark_ns
                .store(mark.max(waited_ns), Ordering::Relaxed);
            return 0;
        }
        self.wait_mark_ns.store(waited_ns, Ordering::Relaxed);
        let i = self.interval_ns.load(Ordering::Relaxed);
        let next = if next > d {
            next - d
        } else {
            // Due before CPU time 0: those intervals are owed, the phase kept; more than
            // MAX_CATCH_UP of them are given up, as `poll` gives up a tick that late.
            let k = (d - next) / i + 1;
            if k > MAX_CATCH_UP {
                self.miss(k);
            } else {
                self.wait_owed.fetch_add(k, Ordering::Relaxed);
            }
            (next + k * i - d).max(1)
        };
        self.next_ns.store(next, Ordering::Relaxed);
        let last = self.last_ns.load(Ordering::Relaxed);
        if last != 0 {
            self.last_ns
                .store(last.saturating_sub(d).max(1), Ordering::Relaxed);
        }
        d
    }

    /// Forget the mark of [`SampleClock::credit_wait`]: the next call takes it afresh (the
    /// CPUs were just made dedicated: the waits before are not sampling time).
    pub fn forget_wait_mark(&self) {
        self.wait_marked.store(false, Ordering::Relaxed);
    }

    /// Take the mark of [`SampleClock::credit_wait`] now, the CPU's wait time being
    /// `waited_ns` (when the clock starts on the CPU's own thread, which is not waiting).
    pub fn mark_wait(&self, waited_ns: u64) {
        self.wait_mark_ns.store(waited_ns, Ordering::Relaxed);
        self.wait_marked.store(true, Ordering::Relaxed);
    }

    /// A dedicated CPU in the wait state, its CPU time being `now_ns` (standing still) and its
    /// instruction count `instructions`, after [`SampleClock::credit_wait`]: is a sample with
    /// W = 1 due? Advances the clock by one interval if so; the caller asks again until it is
    /// not (one sample per interval the wait covered, all of the same wait PSW). Neither the
    /// no-repeat rule nor the spacing of [`SampleClock::poll`] applies: the CPU executes
    /// nothing, and each interval of the wait is its own sample. More than MAX_CATCH_UP
    /// intervals behind (the host held the sampler up), the clock resynchronizes and counts
    /// them missed, as `poll` does. A clock started from another thread starts here.
    pub fn poll_wait(&self, now_ns: u64, instructions: u64) -> bool {
        let i = self.interval_ns.load(Ordering::Relaxed);
        let next = self.next_ns.load(Ordering::Relaxed);
        if i == 0 {
            return false;
        }
        if next == 0 {
            self.start_here(i, now_ns, instructions);
            return false;
        }
        let owed = self.wait_owed.load(Ordering::Relaxed);
        if owed != 0 {
            self.wait_owed.store(owed - 1, Ordering::Relaxed);
            bump(&self.taken, 1);
            bump(&self.waits, 1);
            return true;
        }
        let margin = self.margin_ns.load(Ordering::Relaxed).min(i / 2);
        if now_ns
            .saturating_add(early_window(i))
            .saturating_add(margin)
            < next
        {
            return false;
        }
        let mut n = next.saturating_add(i);
        if n <= now_ns {
            let behind = (now_ns - n) / i + 1;
            if behind > MAX_CATCH_UP {
                self.miss(behind);
                n = now_ns.saturating_add(i);
            }
        }
        self.next_ns.store(n, Ordering::Relaxed);
        self.last_ns.store(now_ns.max(1), Ordering::Relaxed);
        bump(&self.taken, 1);
        bump(&self.waits, 1);
        true
    }
    /// A clock started from another thread (interval `i`) starts at the CPU time `now_ns` of
    /// its first poll, with the CPU's instruction count `instructions` as its base.
    fn start_here(&self, i: u64, now_ns: u64, instructions: u64) {
        self.next_ns
            .store(now_ns.saturating_add(i).max(1), Ordering::Relaxed);
        self.base_ns.store(now_ns.max(1), Ordering::Relaxed);
        self.base_instructions
            .store(instructions, Ordering::Relaxed);
    }
    /// A sample was put off at a tick ([`SampleClock::poll`]): it is tried again an eighth of
    /// an interval of CPU time after `now_ns`, by when Hercules' count has moved.
    pub fn retry_later(&self, now_ns: u64) {
        let i = self.interval_ns.load(Ordering::Relaxed);
        if i != 0 {
            self.retry_ns
                .store(now_ns.saturating_add(i / 8), Ordering::Relaxed);
        }
    }
    /// Is the clock catching up at CPU time `now_ns` (its next sample was due before now)?
    /// Its next sample is then due at the spacing limit, a quarter interval after the last.
    pub fn catching_up(&self, now_ns: u64) -> bool {
        let next = self.next_ns.load(Ordering::Relaxed);
        self.running() && next != 0 && next <= now_ns
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
            self.start_here(i, now_ns, instructions);
            return None;
        }
        if self.wait_owed.load(Ordering::Relaxed) != 0 {
            // Wait intervals credited after the wait ended (dedicated CPUs): not samples
            // of the running CPU.
            self.miss(self.wait_owed.swap(0, Ordering::Relaxed));
        }
        // The time the wake-up was asked for, and the earliest a sample is taken: the one
        // rule the sampler's due test follows too (accept_at).
        let wake = self.wake_at();
        if now_ns < self.accept_after(wake, i) {
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
        let stretch = Stretch {
            ns: now_ns.saturating_sub(self.base_ns.load(Ordering::Relaxed)),
            instructions: instructions.wrapping_sub(self.base_instructions.load(Ordering::Relaxed)),
        };
        let mut n = next.saturating_add(i);
        let mut resynchronized = false;
        if n <= now_ns {
            // Behind (the host delayed the tick): catch up one interval per tick, each tick
            // sampling the instruction the CPU has reached by then, unless the CPU is so
            // far behind that catching up would take longer than it is worth.
            let behind = (now_ns - n) / i + 1;
            if behind > MAX_CATCH_UP {
                self.miss(behind);
                bump(&self.held, self.held_intervals(stretch, i).min(behind));
                n = now_ns.saturating_add(i);
                resynchronized = true;
            }
        }
        if !resynchronized {
            self.learn_rate(stretch);
        }
        self.next_ns.store(n, Ordering::Relaxed);
        self.last_ns.store(now_ns.max(1), Ordering::Relaxed);
        self.last_instructions
            .store(instructions, Ordering::Relaxed);
        bump(&self.taken, 1);
        self.base_ns.store(now_ns.max(1), Ordering::Relaxed);
        self.base_instructions
            .store(instructions, Ordering::Relaxed);
        Some(stretch)
    }

    /// Add a stretch run on time to the CPU's usual rate, which is that of its last
    /// RATE_WINDOW_NS to twice that of CPU time: the totals are halved when they pass twice
    /// the window, so that a guest that moved on to costlier (or cheaper) instructions is
    /// judged by what it runs now.
    fn learn_rate(&self, stretch: Stretch) {
        let ns = self
            .run_ns
            .load(Ordering::Relaxed)
            .saturating_add(stretch.ns);
        let instructions = self
            .run_instructions
            .load(Ordering::Relaxed)
            .saturating_add(stretch.instructions);
        let halve = u32::from(ns > 2 * RATE_WINDOW_NS);
        self.run_ns.store(ns >> halve, Ordering::Relaxed);
        self.run_instructions
            .store(instructions >> halve, Ordering::Relaxed);
    }

    /// Intervals of `i` ns in `stretch` (the CPU time and instructions since the last sample)
    /// in which the CPU's thread did not get on: its CPU time beyond what its instructions
    /// take at the CPU's usual rate. The host charges a thread's CPU clock for time the
    /// guest does not get (the thread in the kernel; a virtual machine's vCPU descheduled
    /// while its thread runs), and no instruction boundary comes for a tick or a peek in
    /// it: the samples of those intervals are the host's loss, not the sampler's (on a
    /// loaded CI host, one CPU stood 11 ms at a time while the sampler was never more than
    /// 0.3 ms late). A CPU that ran on at its usual rate while no sample came has none.
    fn held_intervals(&self, stretch: Stretch, i: u64) -> u64 {
        let (ns, instructions) = (
            self.run_ns.load(Ordering::Relaxed),
            self.run_instructions.load(Ordering::Relaxed),
        );
        if instructions == 0 {
            return 0;
        }
        let needed = u128::from(stretch.instructions) * u128::from(ns) / u128::from(instructions);
        let needed = u64::try_from(needed).unwrap_or(u64::MAX);
        stretch.ns.saturating_sub(needed) / i
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
    /// The earliest CPU time at which [`SampleClock::poll`] takes the next sample (0: not
    /// running; 1: at the next tick, where a clock started from another thread starts):
    /// the early window before [`SampleClock::wake_at`], but never before the spacing limit.
    /// The sampler thread must not take a CPU for due before then: its tick or remote
    /// sample would be refused.
    pub fn accept_at(&self) -> u64 {
        let i = self.interval_ns.load(Ordering::Relaxed);
        if i == 0 {
            return 0;
        }
        if self.next_ns.load(Ordering::Relaxed) == 0 {
            return 1;
        }
        self.accept_after(self.wake_at(), i)
    }
    /// The earliest CPU time a sample is taken, the wake-up having been asked for at `wake`
    /// (interval `i`): the early window before it, never before the spacing limit.
    fn accept_after(&self, wake: u64, i: u64) -> u64 {
        wake.saturating_sub(early_window(i))
            .max(self.spacing_limit(i))
            .max(1)
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
mod tests;
