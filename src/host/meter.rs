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
    /// Instructions per 1000 ns of CPU time in the last interval of at least RATE_MIN_NS.
    rate_milli: AtomicU64,
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
        let di = if raw.prevcount > last_prev
            && raw.instcount >= last_inst
            && raw.instcount >= folded
            && self.double_fold(
                raw.instcount - last_inst,
                total.wrapping_sub(last_total),
                dns,
            ) {
            // Hercules' timer thread folded `instcount` into `prevcount` but the CPU thread's
            // concurrent `instcount += 12` undid the zeroing, so the fold was counted twice:
            // only the growth of `instcount` is new.
            raw.instcount - last_inst
        } else if total >= last_total {
            total - last_total
        } else if self.rebase_pending.swap(false, Ordering::Relaxed) {
            // CPU reset, IPL: Hercules zeroed the counts.
            total
        } else {
            // Read between the timer thread's two stores of the fold: nothing new yet.
            return self.reading();
        };
        self.raw_inst.store(raw.instcount, Ordering::Relaxed);
        self.raw_prev.store(raw.prevcount, Ordering::Relaxed);
        if now_ns > last_ns {
            self.raw_ns.store(now_ns, Ordering::Relaxed);
        }
        if dns >= RATE_MIN_NS {
            self.rate_milli
                .store(di.saturating_mul(1000) / dns, Ordering::Relaxed);
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
    /// not zeroed although `prevcount` grew by it) really is one. The same numbers also arise
    /// without the race when accounting points are more than a fold (a second) apart and
    /// more instructions ran after the fold than before it; then the full growth `total` is
    /// right and `growth` (of `instcount` alone) would drop the folded part. The candidate
    /// whose rate is nearer the CPU's recent rate wins; without a recent rate, a growth no
    /// interpreter reaches (MAX_INST_PER_NS) marks the double count.
    fn double_fold(&self, growth: u64, total: u64, dns: u64) -> bool {
        if dns == 0 {
            return true;
        }
        match self.rate_milli.load(Ordering::Relaxed) {
            0 => total > dns.saturating_mul(MAX_INST_PER_NS),
            rate => {
                let expected = rate.saturating_mul(dns) / 1000;
                growth.abs_diff(expected) < total.abs_diff(expected)
            }
        }
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

/// Intervals shorter than this do not update the CPU's recent instruction rate.
const RATE_MIN_NS: u64 = 10_000;
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
pub(crate) mod tests {
    use super::*;

    /// The kernel's accounting of this thread grows as it works, as its own clock does, and
    /// a thread that is not there has none.
    #[test]
    fn a_threads_run_time_is_read_from_proc() {
        let tid = crate::host::tick::thread_id();
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
}
