//! Metering one CPU on its own thread (SA23-2260's cycles and instructions): Hercules'
//! instruction count, the host CPU time of the CPU's thread, and their attribution to the
//! problem or supervisor state at accounting points.
//!
//! Time base. SA23-2260 defines the sampling interval and the cycle counters in CPU cycles,
//! "excluding the number of cycles while the CPU is in the wait state". The emulated CPU's
//! cycles are the host CPU time its thread consumed (it sleeps while the guest CPU waits or
//! is stopped, and is not charged while the host deschedules it — as a logical CPU is not
//! charged while PR/SM has not dispatched it) times the configured CPU speed.

use hcpumf_arch::cpu::MeterReading;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

/// Hercules' own measurements of a CPU at an instruction boundary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawCounts {
    /// `regs->instcount`: instructions since Hercules' timer last folded the count.
    pub instcount: u64,
    /// `regs->prevcount`: instructions folded in by Hercules' timer (once a second).
    pub prevcount: u64,
    /// `regs->waittime`: changes whenever the CPU has waited.
    pub waitsig: u64,
}

/// How long the CPU-time clock may be extrapolated from the wall clock between two reads of
/// the thread's CPU time (which costs a system call, ~0.4 us). A wait in between is noticed
/// (Hercules' wait time changes) and forces a read.
pub const CLOCK_RESYNC_NS: u64 = 200_000;

/// Measurements of one CPU; written only on the CPU's own thread.
#[derive(Debug, Default)]
pub struct Meter {
    rebase_pending: AtomicBool,
    /// State at the last accounting point: 0 supervisor, 1 problem, 2 unknown (after a
    /// LOAD PSW, whose new state only the next point sees).
    last_state: AtomicU8,
    /// CPU time of the last interval whose start and end states differed.
    last_mixed_ns: AtomicU64,
    raw_inst: AtomicU64,
    raw_prev: AtomicU64,
    raw_ns: AtomicU64,
    clk_wall: AtomicU64,
    clk_cpu: AtomicU64,
    clk_waitsig: AtomicU64,
    instructions: AtomicU64,
    ns: AtomicU64,
    problem_instructions: AtomicU64,
    problem_ns: AtomicU64,
    /// Instructions per 1000 ns of CPU time over the last window of at least RATE_WINDOW_NS
    /// (0: none since the CPU's count was last zeroed).
    rate_milli: AtomicU64,
    /// Instructions and CPU time of the window under way.
    win_inst: AtomicU64,
    win_ns: AtomicU64,
    /// Accounting points made so far (by anyone): a reading taken from outside the CPU is
    /// stale when a point was made after it.
    points: AtomicU64,
}

impl Meter {
    /// The wall-clock extrapolation [`Meter::cpu_now`] would return, if it may be used (no
    /// wait since the last read, read less than CLOCK_RESYNC_NS ago). Never less than the
    /// thread's real CPU time: the thread cannot run longer than the wall time that passed.
    pub fn estimate_now(&self, waitsig: u64) -> Option<u64> {
        let w = mono_ns();
        let lw = self.clk_wall.load(Ordering::Relaxed);
        (lw != 0
            && w.wrapping_sub(lw) < CLOCK_RESYNC_NS
            && self.clk_waitsig.load(Ordering::Relaxed) == waitsig)
            .then(|| self.clk_cpu.load(Ordering::Relaxed) + (w - lw))
    }

    /// The CPU's thread CPU time now: read (`exact`, or after a wait, or every
    /// CLOCK_RESYNC_NS) or extrapolated with the wall clock.
    pub fn cpu_now(&self, waitsig: u64, exact: bool) -> u64 {
        match self.estimate_now(waitsig) {
            Some(est) if !exact => est,
            _ => self.read_now(waitsig),
        }
    }

    /// Restart the extrapolation from a CPU time known to be at least the thread's real one
    /// (the sampler thread's reading plus the wall time since).
    pub fn adopt(&self, cpu_ns: u64, mono: u64, waitsig: u64) {
        self.clk_wall.store(mono, Ordering::Relaxed);
        self.clk_cpu.store(cpu_ns, Ordering::Relaxed);
        self.clk_waitsig.store(waitsig, Ordering::Relaxed);
    }

    /// Read the thread's CPU time (a system call) and restart the extrapolation from it.
    pub fn read_now(&self, waitsig: u64) -> u64 {
        let w = mono_ns();
        let real = thread_cpu_ns();
        self.clk_wall.store(w, Ordering::Relaxed);
        self.clk_cpu.store(real, Ordering::Relaxed);
        self.clk_waitsig.store(waitsig, Ordering::Relaxed);
        real
    }

    /// The instruction count a reading of Hercules' counts `instcount` and `prevcount` would
    /// give, without accounting (the sampler thread, while it holds the CPU: see
    /// `host::exclusive`). None when that needs the accounting's judgement: Hercules' timer
    /// folded the count since the last accounting point (`prevcount` moved), or a reset
    /// zeroed it.
    pub fn instructions_at(&self, instcount: u64, prevcount: u64) -> Option<u64> {
        if self.rebase_pending.load(Ordering::Relaxed)
            || prevcount != self.raw_prev.load(Ordering::Relaxed)
        {
            return None;
        }
        let last = self.raw_inst.load(Ordering::Relaxed);
        (instcount >= last).then(|| self.instructions.load(Ordering::Relaxed) + (instcount - last))
    }

    /// Fold what happened since the previous accounting point into the totals. The interval
    /// goes to the state the CPU is in now when that is also the state it started in; when
    /// the two differ, an interruption switched the state at an unknown moment in between
    /// and the interval is split evenly (unbiased, because accounting points fall at random
    /// with respect to interruptions; see README "fidelity").
    ///
    /// This is a point at a moment the guest did not choose (a tick, or the sampler from
    /// outside the CPU), so the next interval starts in the state the CPU is in now, unless
    /// a timer interruption is about to switch it (`timer_due`: a CPU-timer or
    /// clock-comparator interruption the CPU is enabled for is pending or due). Hercules'
    /// timer thread makes a due one pending when it next runs, which on the sampler's core
    /// is just after the sampler's wake-up: split evenly, the interval around that switch
    /// would give the supervisor state half of its share every time (measured: the problem
    /// state 5 points too high with 1,500 CPU-timer interruptions a second). Then the next
    /// point decides that interval's state alone, as after a LOAD PSW.
    pub fn account(
        &self,
        raw: RawCounts,
        now_ns: u64,
        problem: bool,
        timer_due: bool,
    ) -> MeterReading {
        self.account_at(raw, now_ns, problem, (!timer_due).then_some(problem))
    }

    /// [`Meter::account`] with an explicit state for the next interval when the caller knows
    /// it (SVC: supervisor; LOAD PSW: None, unknown).
    pub fn account_at(
        &self,
        raw: RawCounts,
        now_ns: u64,
        problem: bool,
        next: Option<bool>,
    ) -> MeterReading {
        self.points.fetch_add(1, Ordering::Relaxed);
        let last_inst = self.raw_inst.load(Ordering::Relaxed);
        let last_prev = self.raw_prev.load(Ordering::Relaxed);
        let last_total = last_inst.wrapping_add(last_prev);
        let total = raw.instcount.wrapping_add(raw.prevcount);
        let folded = raw.prevcount.wrapping_sub(last_prev);
        let last_ns = self.raw_ns.load(Ordering::Relaxed);
        let dns = if last_ns == 0 {
            0
        } else {
            now_ns.saturating_sub(last_ns)
        };
        // An interval with no start (the first point) or across a reset says nothing of the
        // rate.
        let mut learn = last_ns != 0;
        let fold_seen =
            raw.prevcount > last_prev && raw.instcount >= last_inst && raw.instcount >= folded;
        // A reading torn by the fold: the CPU thread read `instcount` just before the timer
        // thread zeroed it and `prevcount` just after the fold was added (the two are read
        // one after the other, without Hercules' lock). The CPU executes no instruction while
        // it reads, so the count it read is exactly the fold. Taken as it stands, the next
        // readings (the real, zeroed count) would fall below it and the count would stand
        // still for a second's worth of instructions: every sample put off meanwhile, the CPU
        // armed again and again (seen on 3.13 with two CPUs sampling: 5 s of a CPU's time in
        // ticks, 268,898 samples put off).
        let torn = fold_seen && raw.instcount == folded;
        // What Hercules' `instcount` is now, as far as the next point is concerned.
        let inst_now = if torn { 0 } else { raw.instcount };
        let di = if fold_seen
            && (torn
                || self.double_fold(
                    raw.instcount - last_inst,
                    total.wrapping_sub(last_total),
                    dns,
                )) {
            // Torn, or Hercules' timer thread folded `instcount` into `prevcount` but the CPU
            // thread's concurrent `instcount += 12` undid the zeroing, so the fold was counted
            // twice: either way only the growth of `instcount` is new.
            raw.instcount - last_inst
        } else if total >= last_total {
            total - last_total
        } else if self.rebase_pending.swap(false, Ordering::Relaxed) {
            // CPU reset, IPL: Hercules zeroed the counts. What the CPU ran before says
            // nothing of its rate now (an IPL starts another program).
            self.rate_milli.store(0, Ordering::Relaxed);
            self.win_inst.store(0, Ordering::Relaxed);
            self.win_ns.store(0, Ordering::Relaxed);
            learn = false;
            total
        } else {
            // Read between the timer thread's two stores of the fold: nothing new yet.
            return self.reading();
        };
        self.raw_inst.store(inst_now, Ordering::Relaxed);
        self.raw_prev.store(raw.prevcount, Ordering::Relaxed);
        if now_ns > last_ns {
            self.raw_ns.store(now_ns, Ordering::Relaxed);
        }
        if learn {
            self.learn_rate(di, dns);
        }
        bump(&self.instructions, di);
        bump(&self.ns, dns);
        let start = self.last_state.swap(
            match next {
                Some(true) => 1,
                Some(false) => 0,
                None => 2,
            },
            Ordering::Relaxed,
        );
        let (pi, pns) = match (start, problem) {
            (2, true) | (1, true) => (di, dns),
            (2, false) | (0, false) => (0, 0),
            // The state changed in between at an unknown moment: half and half.
            _ => {
                self.last_mixed_ns.store(now_ns, Ordering::Relaxed);
                (di / 2, dns / 2)
            }
        };
        bump(&self.problem_instructions, pi);
        bump(&self.problem_ns, pns);
        self.reading()
    }
    /// Whether an interval that looks like a doubly counted fold (the instruction count was
    /// not zeroed although `prevcount` grew by the `growth` and `total` candidates' difference,
    /// the folded count) really is one. The same numbers also arise without the race: when
    /// more instructions ran since the fold than in the whole second before it (points more
    /// than a second apart; a CPU that had just started or had waited most of that second).
    /// Then `total` is right and `growth` would drop the instructions run between the last
    /// point and the fold.
    ///
    /// The race is a matter of nanoseconds in each fold, the look-alike follows from the
    /// workload, so neither is the rare one: the candidate nearer the count the CPU's rate
    /// gives for `dns` wins. That count is uncertain: `dns` by up to CLOCK_AHEAD_MAX_NS (the
    /// last point's CPU time may have been extrapolated ahead of the thread's real time),
    /// the rate by a fraction (it was measured over an earlier window). The race must be
    /// nearer by more than that doubt; within it, every instruction counts (measured in CI:
    /// a fold 1 ms after an IPL, judged by a rate from the IPL's own slow start, dropped
    /// 32,500 instructions of `counter_accuracy::problem_state_share`). Without a rate, only
    /// a `total` beyond any interpreter's speed is a double fold.
    fn double_fold(&self, growth: u64, total: u64, dns: u64) -> bool {
        let ran_max = dns.saturating_add(CLOCK_AHEAD_MAX_NS);
        match self.rate_milli.load(Ordering::Relaxed) {
            0 => total > ran_max.saturating_mul(MAX_INST_PER_NS),
            rate => {
                let expected = rate.saturating_mul(dns) / 1000;
                let doubt = rate.saturating_mul(CLOCK_AHEAD_MAX_NS) / 1000 + expected / RATE_DOUBT;
                // Nearer to `growth` by more than the doubt: expected + doubt below the
                // midpoint of the two candidates.
                expected.saturating_add(doubt).saturating_mul(2) < growth.saturating_add(total)
            }
        }
    }

    /// Add an interval to the rate window; a window of RATE_WINDOW_NS or more sets the rate.
    /// A window spreads the error of an extrapolated CPU time (one interval's time long by
    /// what the next one's is short) over many intervals.
    fn learn_rate(&self, di: u64, dns: u64) {
        let wi = self.win_inst.load(Ordering::Relaxed).saturating_add(di);
        let wn = self.win_ns.load(Ordering::Relaxed).saturating_add(dns);
        let (wi, wn) = if wn >= RATE_WINDOW_NS {
            self.rate_milli
                .store((wi.saturating_mul(1000) / wn).max(1), Ordering::Relaxed);
            (0, 0)
        } else {
            (wi, wn)
        };
        self.win_inst.store(wi, Ordering::Relaxed);
        self.win_ns.store(wn, Ordering::Relaxed);
    }

    /// Account now, on the CPU's own thread at an instruction boundary in the problem state
    /// (`problem`) or not, and return the reading and the CPU time. `exact` asks for a real
    /// read of the thread's CPU time (instructions that report counters); `next` is the state
    /// the CPU will be in after the instruction, if known (a state switch follows).
    pub fn account_now(
        &self,
        raw: RawCounts,
        problem: bool,
        exact: bool,
        next: Option<bool>,
    ) -> (MeterReading, u64) {
        let ns = self.cpu_now(raw.waitsig, exact);
        (self.account_at(raw, ns, problem, next), ns)
    }

    /// Accounting points made so far.
    pub fn points(&self) -> u64 {
        self.points.load(Ordering::Relaxed)
    }

    /// Has Hercules counted an instruction since the last accounting point? A CPU read from
    /// outside between the point of an SVC or LOAD PSW and the PSW that instruction loads
    /// still shows the old state, and nothing counted since that point: such a reading
    /// must not set the state the next interval starts in.
    pub fn counted_since_last_point(&self, raw: RawCounts) -> bool {
        raw.instcount.wrapping_add(raw.prevcount)
            != self
                .raw_inst
                .load(Ordering::Relaxed)
                .wrapping_add(self.raw_prev.load(Ordering::Relaxed))
    }

    /// The accounting period to use now: short while interruptions switch the state.
    pub fn account_period(&self, now_ns: u64) -> u64 {
        let m = self.last_mixed_ns.load(Ordering::Relaxed);
        if m != 0 && now_ns.saturating_sub(m) < FAST_HOLD_NS {
            ACCOUNT_PERIOD_FAST_NS
        } else {
            ACCOUNT_PERIOD_NS
        }
    }

    /// Hercules is about to zero the CPU's instruction count (CPU reset, IPL): the next drop
    /// of the count is that reset, and what follows it counts from zero.
    pub fn rebase(&self) {
        self.rebase_pending.store(true, Ordering::Relaxed);
    }
    /// The CPU time of the last accounting point: the time the CPU's measurements are at.
    /// A later time can be lower (an extrapolation ran ahead of the real time, which then
    /// catches up), so users that need time to advance take the larger of the two.
    pub fn time(&self) -> u64 {
        self.raw_ns.load(Ordering::Relaxed)
    }
    /// Totals as of the last accounting point.
    pub fn reading(&self) -> MeterReading {
        MeterReading {
            instructions: self.instructions.load(Ordering::Relaxed),
            cpu_ns: self.ns.load(Ordering::Relaxed),
            problem_instructions: self.problem_instructions.load(Ordering::Relaxed),
            problem_cpu_ns: self.problem_ns.load(Ordering::Relaxed),
        }
    }
}

/// Add to a counter only one thread writes (others only read it): a plain load and store,
/// without the locked read-modify-write that `fetch_add` costs on every tick.
#[inline]
pub fn bump(counter: &AtomicU64, n: u64) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add(n),
        Ordering::Relaxed,
    );
}

/// Monotonic wall clock in nanoseconds (vDSO, cheap).
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Host CPU time of the calling thread in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    cpu_clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// Host CPU time of the whole process (every thread of Hercules) in nanoseconds.
pub fn process_cpu_ns() -> u64 {
    cpu_clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// A CPU-time clock in nanoseconds (0 if it cannot be read).
fn cpu_clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// The CPU time (ns) the kernel accounted to thread `tid` of this process: the first field
/// of `/proc/self/task/TID/schedstat`. None when there is no such thread or no schedstat.
pub fn thread_run_ns(tid: u32) -> Option<u64> {
    if tid == 0 {
        return None;
    }
    let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// The CPU time over which the CPU's recent instruction rate is measured.
const RATE_WINDOW_NS: u64 = 1_000_000;
/// The rate may be off by 1/RATE_DOUBT of itself.
const RATE_DOUBT: u64 = 10;
/// The CPU thread's time may be at most this far from the sampler's reading when the tick
/// uses it: beyond, the thread was not running in between and the tick reads its own time.
pub const ARM_TRUST_NS: u64 = 20_000;
/// How far ahead of the thread's real CPU time an accounting point's time can be: the
/// meter's wall-clock extrapolation (CLOCK_RESYNC_NS) of a time the tick adopted from the
/// sampler's reading up to ARM_TRUST_NS old.
const CLOCK_AHEAD_MAX_NS: u64 = CLOCK_RESYNC_NS + ARM_TRUST_NS;
/// More instructions per nanosecond of host CPU time than any interpreter executes.
const MAX_INST_PER_NS: u64 = 4;

/// Average CPU time between problem-state accounting points.
pub const ACCOUNT_PERIOD_NS: u64 = 1_000_000;
/// ... while interruptions switch the state between accounting points: an interval whose
/// end state differs from its start state is split evenly, so the shorter the intervals,
/// the smaller the error of that split.
pub const ACCOUNT_PERIOD_FAST_NS: u64 = 100_000;
/// How long after a mixed interval the fast period is kept.
pub const FAST_HOLD_NS: u64 = 20_000_000;

#[cfg(test)]
pub(crate) mod tests;
