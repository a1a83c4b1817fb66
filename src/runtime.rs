//! The plugin's run-time state: one [`CpuState`] per CPU (lock-free), the host services of the
//! glue, the metering of instructions and CPU time, and the tick scheduler that gets control
//! on a CPU's own thread at sampling intervals.
//!
//! Time base. SA23-2260 defines the sampling interval and the cycle counters in CPU cycles,
//! "excluding the number of cycles while the CPU is in the wait state". The emulated CPU's
//! cycles are the host CPU time its thread consumed (it sleeps while the guest CPU waits or
//! is stopped, and is not charged while the host deschedules it — as a logical CPU is not
//! charged while PR/SM has not dispatched it) times the configured CPU speed.

use crate::alerts::{AlertBits, PendingAlerts};
use crate::counter::{CoprocessorGroups, CpuCounters};
use crate::cpu::{CpuView, MeterReading};
use crate::glue::hcpumf_host;
use crate::model;
use crate::program_param::ProgramParameter;
use crate::sampling::CpuSampling;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// CPUs the plugin keeps state for (Hercules 3.13 has at most MAX_CPU_ENGINES = 8 on amd64).
pub const MAX_CPUS: usize = crate::glue::HCPUMF_MAX_CPU as usize;

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

/// Cache-line aligned wrapper: fields one thread writes often are kept off the lines other
/// threads read, so that the CPU thread's tick does not pay for cache-line transfers.
#[derive(Debug, Default)]
#[repr(align(64))]
pub struct Padded<T>(pub T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
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
    last_state: std::sync::atomic::AtomicU8,
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
    /// (the scheduler thread's reading plus the wall time since).
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

    /// Fold what happened since the previous accounting point into the totals. The interval
    /// goes to the state the CPU is in now when that is also the state it started in; when
    /// the two differ, an interruption switched the state at an unknown moment in between
    /// and the interval is split evenly (unbiased, because accounting points fall at random
    /// with respect to interruptions; see README "fidelity"). `next` is the state the next
    /// interval starts in when the caller knows it (SVC: supervisor; LOAD PSW: unknown).
    pub fn account(&self, raw: RawCounts, now_ns: u64, problem: bool) -> MeterReading {
        self.account_at(raw, now_ns, problem, Some(problem))
    }

    /// [`Meter::account`] with an explicit state for the next interval (None: unknown).
    pub fn account_at(
        &self,
        raw: RawCounts,
        now_ns: u64,
        problem: bool,
        next: Option<bool>,
    ) -> MeterReading {
        let last_inst = self.raw_inst.load(Ordering::Relaxed);
        let last_prev = self.raw_prev.load(Ordering::Relaxed);
        let last_total = last_inst.wrapping_add(last_prev);
        let total = raw.instcount.wrapping_add(raw.prevcount);
        let folded = raw.prevcount.wrapping_sub(last_prev);
        let di =
            if raw.prevcount > last_prev && raw.instcount >= last_inst && raw.instcount >= folded {
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
        let last_ns = self.raw_ns.load(Ordering::Relaxed);
        let dns = if last_ns == 0 {
            0
        } else {
            now_ns.saturating_sub(last_ns)
        };
        if now_ns > last_ns {
            self.raw_ns.store(now_ns, Ordering::Relaxed);
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

/// A view's TOD clock, or, when the glue left it unread (0), the TOD clock now.
pub fn tod_or_now(tod: u64) -> u64 {
    if tod != 0 {
        tod
    } else {
        tod_now()
    }
}

/// The TOD clock (bits 0-63) from the emulator, 0 without one.
pub fn tod_now() -> u64 {
    host()
        .and_then(|h| h.tod)
        // SAFETY: the callback reads the TOD clock.
        .map(|f| unsafe { f() })
        .unwrap_or(0)
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

/// Intervals a sampling clock catches up, one per tick, before it gives up and resynchronizes.
pub const MAX_CATCH_UP: u64 = 64;

/// A per-CPU sampling timer counting CPU time (SA23-2260 "Sampling Interval Register": the
/// average number of CPU cycles within each sampling interval).
///
/// It keeps its phase (the due time advances by exactly one interval per sample, so the
/// average rate is exact) and learns how late the scheduler's wake-ups arrive, asking for
/// them that much earlier; a sample is taken when the tick comes within that margin of the
/// due time. Samples are therefore evenly spread with a jitter of about one wake-up latency.
/// A tick that comes more than an interval late takes one sample and the clock catches up
/// with the following ticks (one sample per tick, each of the instruction the CPU has then
/// reached, never a burst of the same one: two samples are always at least a quarter of an
/// interval apart, so that catching up at most quadruples the rate, fast enough to gain on
/// wake-ups that come tens of microseconds late); only beyond MAX_CATCH_UP intervals behind
/// does it resynchronize and count the intervals as missed.
///
/// A sample is also never taken before the CPU has executed an instruction since the last
/// one: a data entry describes the instruction the CPU is executing, and when the host
/// charges time to the CPU's thread without letting it run the guest (time stolen from the
/// virtual machine, interrupt handling), the sample waits for the next instruction instead
/// of describing the same one twice.
#[derive(Debug, Default)]
pub struct SampleClock {
    interval_ns: AtomicU64,
    next_ns: AtomicU64,
    margin_ns: AtomicU64,
    /// CPU time of the last sample (0: none since the start).
    last_ns: AtomicU64,
    /// The CPU's instruction count at the last sample.
    last_instructions: AtomicU64,
    /// Due samples put off because the CPU had not executed an instruction since the last.
    pub stalls: AtomicU64,
    /// Samples taken.
    pub taken: AtomicU64,
    /// Intervals that passed without a sample (the tick came too late to catch up).
    pub missed: AtomicU64,
    /// Missed intervals not yet counted as lost in the guest's sample-data block.
    pub unreported: AtomicU64,
    /// Sum of the latenesses of the ticks that took samples (CPU ns after the due time).
    pub late_total: AtomicU64,
    /// Largest lateness.
    pub late_max: AtomicU64,
}

impl SampleClock {
    /// Start (or restart) with a new interval; the first sample is due one interval from now.
    pub fn start(&self, interval_ns: u64, now_ns: u64) {
        let i = interval_ns.max(1);
        self.interval_ns.store(i, Ordering::Relaxed);
        self.last_ns.store(0, Ordering::Relaxed);
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
        self.interval_ns
            .store(interval_ns.max(1), Ordering::Relaxed);
    }
    /// Intervals whose due time has passed without a sample, counted as missed (and not
    /// reported again: they are returned, and the clock moves past them). For a clock about
    /// to be stopped or restarted.
    pub fn resync_lost(&self, now_ns: u64) -> u64 {
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
    /// Missed intervals to report as lost sample data (and forget).
    pub fn take_unreported(&self) -> u64 {
        self.unreported.swap(0, Ordering::Relaxed)
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
    pub fn poll(&self, now_ns: u64, instructions: u64) -> bool {
        let i = self.interval_ns.load(Ordering::Relaxed);
        let next = self.next_ns.load(Ordering::Relaxed);
        if i == 0 {
            return false;
        }
        if next == 0 {
            self.next_ns
                .store(now_ns.saturating_add(i).max(1), Ordering::Relaxed);
            return false;
        }
        let margin = self.margin_ns.load(Ordering::Relaxed).min(i / 2);
        // The time the wake-up was asked for (see wake_at).
        let wake = (next - margin.min(next - 1)).max(self.spacing_limit(i));
        if now_ns < wake {
            return false;
        }
        if self.last_ns.load(Ordering::Relaxed) != 0
            && self.last_instructions.load(Ordering::Relaxed) == instructions
        {
            bump(&self.stalls, 1);
            return false;
        }
        // How late the wake-up came relative to when it was asked for.
        let lat = now_ns - wake;
        let m = self.margin_ns.load(Ordering::Relaxed);
        self.margin_ns.store((m * 7 + lat) / 8, Ordering::Relaxed);
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
                bump(&self.unreported, behind);
                n = now_ns.saturating_add(i);
            }
        }
        self.next_ns.store(n, Ordering::Relaxed);
        self.last_ns.store(now_ns.max(1), Ordering::Relaxed);
        self.last_instructions
            .store(instructions, Ordering::Relaxed);
        bump(&self.taken, 1);
        true
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

/// The part of a CPU's schedule shared with the scheduler thread.
#[derive(Debug, Default)]
pub struct SchedShared {
    /// Wall-clock deadline (ns since the scheduler epoch) to arm the CPU; u64::MAX = none.
    pub wall_deadline: AtomicU64,
    /// The CPU's opcode table is armed and the tick has not run yet.
    pub armed: AtomicBool,
    /// The shortest period the CPU's ticks come at (ns; 0 = no periodic ticks).
    pub period_hint: AtomicU64,
    /// The CPU time the CPU's clocks next need a tick at (0: none; 1: at once).
    pub due_cpu_ns: AtomicU64,
    /// ... and the one after, as far as it can be told now (0: unknown).
    pub follow_cpu_ns: AtomicU64,
    /// The CPU thread's CPU time as the scheduler read it just before arming (0: not read),
    /// and the monotonic clock at that read.
    pub armed_cpu_ns: AtomicU64,
    pub armed_mono_ns: AtomicU64,
    /// The host core the CPU's last tick ran on (u32::MAX: none yet).
    pub core: std::sync::atomic::AtomicU32,
}

// The tick and the scheduler exchange one cache line per CPU, not two.
const _: () = assert!(std::mem::size_of::<SchedShared>() <= 64);

/// What only the scheduler thread reads and writes about a CPU, off the shared line.
#[derive(Debug, Default)]
pub struct SchedPrivate {
    /// The scheduler's previous reading of the CPU thread's CPU time.
    pub seen_cpu_ns: AtomicU64,
    /// How many times in a row the scheduler found the CPU still armed (its tick not yet
    /// run): it then looks again later and later.
    pub stale_looks: std::sync::atomic::AtomicU32,
}

/// When a CPU next needs its tick.
#[derive(Debug)]
pub struct TickSchedule {
    /// The guest's sampling (LSCTL).
    pub guest: SampleClock,
    /// Host-driven (HIS) sampling.
    pub host: SampleClock,
    /// CPU time of the next problem-state accounting point; 0 when not needed.
    pub next_account_ns: AtomicU64,
    /// Ticks the CPU took (shown by `hcpumf status`: ticks per sample is the sampling cost).
    pub ticks: AtomicU64,
    /// What the scheduler thread reads and writes, on a cache line of its own.
    pub shared: Padded<SchedShared>,
    /// What only the scheduler thread uses.
    pub private: Padded<SchedPrivate>,
    /// Pseudo-random state for accounting jitter.
    pub rng: AtomicU64,
    /// A HIS run needs problem-state accounting points.
    pub host_accounting: AtomicBool,
    /// Fill the guest program parameter of host samples from MVS control blocks.
    pub host_mvs: AtomicBool,
    /// Host samples are combined (basic + diagnostic) entries.
    pub host_diagnostic: AtomicBool,
}

impl Default for TickSchedule {
    fn default() -> Self {
        TickSchedule {
            guest: SampleClock::default(),
            host: SampleClock::default(),
            next_account_ns: AtomicU64::new(0),
            ticks: AtomicU64::new(0),
            shared: Padded(SchedShared {
                wall_deadline: AtomicU64::new(u64::MAX),
                armed: AtomicBool::new(false),
                period_hint: AtomicU64::new(0),
                due_cpu_ns: AtomicU64::new(0),
                follow_cpu_ns: AtomicU64::new(0),
                armed_cpu_ns: AtomicU64::new(0),
                armed_mono_ns: AtomicU64::new(0),
                core: std::sync::atomic::AtomicU32::new(u32::MAX),
            }),
            private: Padded(SchedPrivate::default()),
            rng: AtomicU64::new(0x9E37_79B9_7F4A_7C15),
            host_accounting: AtomicBool::new(false),
            host_mvs: AtomicBool::new(false),
            host_diagnostic: AtomicBool::new(false),
        }
    }
}

/// Everything the facilities keep for one CPU.
#[derive(Default)]
pub struct CpuState {
    pub counters: CpuCounters,
    pub sampling: CpuSampling,
    pub program_parameter: ProgramParameter,
    pub alerts: Padded<PendingAlerts>,
    pub meter: Padded<Meter>,
    pub schedule: TickSchedule,
    /// CPACF activity of this CPU whatever the guest's counter-set state (for HIS runs),
    /// in crypto-counter order (counter 64 + i).
    pub crypto_totals: [AtomicU64; 20],
    /// The block a HIS run is filling for this CPU.
    pub host_buffer: std::sync::Mutex<crate::collect::HostBuffer>,
    /// The CPU as last seen by a HIS run's tick: view, prefix, CR1 (for the .MAP walk).
    pub last_seen: std::sync::Mutex<Option<(CpuView, u64, u64)>>,
}

/// The global state of the loaded plugin.
pub struct Runtime {
    pub cpus: Vec<CpuState>,
    pub groups: CoprocessorGroups,
    pub epoch: Instant,
    /// What the scheduler thread writes as it sleeps and wakes, on lines of its own: the
    /// CPUs' ticks read the fields around it.
    pub sched: Padded<SchedulerState>,
    /// The scheduler thread, for CPUs to unpark. It sleeps with `park_timeout` and never
    /// takes a lock a CPU thread holds: a CPU thread the host preempted while holding one
    /// (they run at a low priority and outnumber the host's cores) would otherwise stop
    /// the real-time scheduler, and with it the ticks of every CPU, for as long as the host
    /// leaves that thread waiting (tens of milliseconds were seen).
    pub sampler: std::sync::RwLock<Option<std::thread::Thread>>,
    pub stop: AtomicBool,
    pub scheduler: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// The scheduler thread's sleep and wake-up statistics.
#[derive(Debug, Default)]
pub struct SchedulerState {
    /// Wall time (ns since the epoch) until which the scheduler sleeps; a CPU that needs an
    /// earlier tick wakes it.
    pub sleep_target: AtomicU64,
    /// The scheduler's timed sleeps, and how late the host woke it (ns): the most, and how
    /// often by more than a millisecond (`hcpumf status`: late wake-ups delay samples).
    pub sleeps: AtomicU64,
    pub oversleep_max: AtomicU64,
    pub oversleeps_1ms: AtomicU64,
}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();
// On a line of its own: every tick reads it.
static HOST: Padded<AtomicPtr<hcpumf_host>> = Padded(AtomicPtr::new(std::ptr::null_mut()));

/// The plugin state (created on first use).
pub fn rt() -> &'static Runtime {
    RUNTIME.get_or_init(|| Runtime {
        cpus: (0..MAX_CPUS).map(|_| CpuState::default()).collect(),
        groups: CoprocessorGroups::new(),
        epoch: Instant::now(),
        sched: Padded(SchedulerState::default()),
        sampler: std::sync::RwLock::new(None),
        stop: AtomicBool::new(false),
        scheduler: std::sync::Mutex::new(None),
    })
}

/// The state of CPU `cpu`, if the address is one the plugin keeps state for.
pub fn cpu(cpu: u16) -> Option<&'static CpuState> {
    rt().cpus.get(usize::from(cpu))
}

/// Install the glue's services (called once at load).
pub fn set_host(host: *const hcpumf_host) {
    HOST.store(host as *mut hcpumf_host, Ordering::Release);
}

/// The glue's services, when running inside Hercules.
pub fn host() -> Option<&'static hcpumf_host> {
    let p = HOST.load(Ordering::Acquire);
    // SAFETY: the pointer is the glue's static hcpumf_host_services, valid while the module
    // is loaded; it is cleared before unload.
    unsafe { p.as_ref() }
}

/// Forget the host (module unload).
pub fn clear_host() {
    HOST.store(std::ptr::null_mut(), Ordering::Release);
}

/// Is CPU `cpu` configured in Hercules?
pub fn cpu_online(cpu: u16) -> bool {
    host()
        .and_then(|h| h.cpu_online)
        // SAFETY: the callback only reads sysblk.
        .map(|f| unsafe { f(cpu) } != 0)
        .unwrap_or(false)
}

/// A console command's subcommand (lower case) and the words after it.
pub fn subcommand(words: &[String]) -> (Option<String>, &[String]) {
    match words.split_first() {
        Some((first, rest)) => (Some(first.to_ascii_lowercase()), rest),
        None => (None, &[]),
    }
}

/// Write a console line through Hercules' logger.
pub fn log(line: &str) {
    if let Some(f) = host().and_then(|h| h.log) {
        let mut bytes: Vec<u8> = line.bytes().filter(|&b| b != 0).collect();
        bytes.push(0);
        // SAFETY: `bytes` is NUL-terminated and outlives the call.
        unsafe { f(bytes.as_ptr() as *const libc::c_char) };
    } else {
        eprintln!("{line}");
    }
}

/// Host CPU time of the calling thread in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Account on the CPU's own thread and return the reading and the CPU time. `exact` asks for
/// a real read of the thread's CPU time (instructions that report counters).
pub fn account(view: &CpuView, raw: RawCounts, exact: bool) -> (MeterReading, u64) {
    account_switch(view, raw, exact, Some(view.problem_state))
}

/// [`account`] just before an instruction that switches the state: `next` is the state the
/// CPU will be in after it, if known.
pub fn account_switch(
    view: &CpuView,
    raw: RawCounts,
    exact: bool,
    next: Option<bool>,
) -> (MeterReading, u64) {
    match cpu(view.cpu) {
        Some(st) => {
            let ns = st.meter.cpu_now(raw.waitsig, exact);
            (st.meter.account_at(raw, ns, view.problem_state, next), ns)
        }
        None => (MeterReading::default(), thread_cpu_ns()),
    }
}

/// The CPU as a HIS run's tick last saw it: view, prefix and CR1.
pub fn last_view(cpu_no: u16) -> Option<(CpuView, u64, u64)> {
    cpu(cpu_no)?.last_seen.lock().ok()?.as_ref().copied()
}

/// Nanoseconds since the scheduler epoch.
pub fn wall_ns() -> u64 {
    rt().epoch.elapsed().as_nanos() as u64
}

/// Convert an interval in CPU cycles to CPU nanoseconds at the model's speed.
pub fn cycles_to_ns(cycles: u64) -> u64 {
    let speed = u128::from(model::current().cpu_speed.max(1));
    ((u128::from(cycles) * 1000) / speed).min(u128::from(u64::MAX)) as u64
}

/// Average CPU time between problem-state accounting points.
pub const ACCOUNT_PERIOD_NS: u64 = 1_000_000;
/// ... while interruptions switch the state between accounting points: an interval whose
/// end state differs from its start state is split evenly, so the shorter the intervals,
/// the smaller the error of that split.
pub const ACCOUNT_PERIOD_FAST_NS: u64 = 100_000;
/// How long after a mixed interval the fast period is kept.
pub const FAST_HOLD_NS: u64 = 20_000_000;
/// How often a CPU with a masked pending alert is looked at again.
pub const ALERT_POLL_NS: u64 = 1_000_000;

/// A deadline at most this much before the scheduler's planned wake-up does not wake it: it
/// comes that much late (the sampling clocks learn such lateness and ask earlier), and the
/// CPU thread makes no system call. The scheduler plans its wake-up for a CPU's next
/// deadline from the CPU's posted follow-on due time, which the deadline the tick then
/// posts misses by the few microseconds between the scheduler's clock reading and the tick.
pub const WAKE_TOLERANCE_NS: u64 = 10_000;

/// Ask the scheduler to arm `cpu` at wall time `deadline`. The scheduler is only woken when
/// it would otherwise sleep past the deadline: in steady sampling it already expects the
/// CPU's next tick (see `scheduler_loop`), so the CPU thread makes no system call here.
pub fn schedule(cpu_no: u16, deadline: u64) {
    let Some(st) = cpu(cpu_no) else { return };
    st.schedule
        .shared
        .wall_deadline
        .store(deadline, Ordering::SeqCst);
    let r = rt();
    if deadline.saturating_add(WAKE_TOLERANCE_NS) < r.sched.sleep_target.load(Ordering::SeqCst) {
        r.sched.sleep_target.store(0, Ordering::SeqCst);
        wake_scheduler(r);
    }
}

/// Unpark the scheduler thread (its next park returns at once if it is not parked yet).
fn wake_scheduler(r: &Runtime) {
    if let Ok(g) = r.sampler.read() {
        if let Some(t) = g.as_ref() {
            t.unpark();
        }
    }
}

/// Work out when `cpu` next needs a tick and tell the scheduler.
pub fn reschedule(cpu_no: u16, now_cpu_ns: u64) {
    let Some(st) = cpu(cpu_no) else { return };
    let s = &st.schedule;
    let mut due = u64::MAX;
    for d in [
        s.guest.wake_at(),
        s.next_account_ns.load(Ordering::Relaxed),
        s.host.wake_at(),
    ] {
        if d != 0 {
            due = due.min(d);
        }
    }
    let mut hint = u64::MAX;
    for p in [s.guest.interval(), s.host.interval()] {
        if p != 0 {
            hint = hint.min(p);
        }
    }
    if s.next_account_ns.load(Ordering::Relaxed) != 0 {
        hint = hint.min(st.meter.account_period(now_cpu_ns) / 2);
    }
    s.shared
        .period_hint
        .store(if hint == u64::MAX { 0 } else { hint }, Ordering::Relaxed);
    s.shared
        .due_cpu_ns
        .store(if due == u64::MAX { 0 } else { due }, Ordering::Relaxed);
    let mut follow = u64::MAX;
    for f in [s.guest.follow_at(), s.host.follow_at()] {
        if f != 0 {
            follow = follow.min(f);
        }
    }
    let acc = s.next_account_ns.load(Ordering::Relaxed);
    if acc != 0 {
        // The accounting point after the next is at least half a period on.
        follow = follow.min(acc + st.meter.account_period(now_cpu_ns) / 2);
    }
    s.shared.follow_cpu_ns.store(
        if follow == u64::MAX { 0 } else { follow },
        Ordering::Relaxed,
    );
    let wall = wall_ns();
    let mut deadline = if due == u64::MAX {
        u64::MAX
    } else {
        // CPU time advances at most as fast as wall time, so this never fires late.
        wall.saturating_add(due.saturating_sub(now_cpu_ns))
    };
    if !st.alerts.pending().is_empty() {
        deadline = deadline.min(wall + ALERT_POLL_NS);
    }
    if deadline != u64::MAX {
        schedule(cpu_no, deadline);
    } else {
        s.shared.wall_deadline.store(u64::MAX, Ordering::Release);
    }
}

/// A cheap xorshift for accounting jitter.
pub fn jitter(st: &CpuState, period: u64) -> u64 {
    let mut x = st.schedule.rng.load(Ordering::Relaxed);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    st.schedule.rng.store(x, Ordering::Relaxed);
    period / 2 + x % period.max(1)
}

/// Apply SA23-2260's clearing rules to the pending request: the sampling events are cleared
/// when no sampling function is enabled, the loss of CPU counter data when no non-MT counter
/// set is enabled (authorization changes stay pending).
pub fn settle_alerts(st: &CpuState) {
    if !st.sampling.any_enabled() {
        st.alerts.clear(AlertBits::CLEARED_WHEN_SAMPLING_DISABLED);
    }
    if !st.counters.any_enabled() {
        st.alerts.clear(AlertBits::CLEARED_WHEN_COUNTERS_DISABLED);
    }
}

/// Raise alert events on a CPU and make sure it gets a chance to take them (running CPUs at
/// their next tick, CPUs in an enabled wait through the glue).
pub fn raise_alert(cpu_no: u16, bits: AlertBits) {
    let Some(st) = cpu(cpu_no) else { return };
    if bits.is_empty() {
        return;
    }
    st.alerts.raise(bits);
    settle_alerts(st);
    if st.alerts.pending().is_empty() {
        return;
    }
    schedule(cpu_no, wall_ns());
    if let Some(kick) = host().and_then(|h| h.kick_waiting) {
        // SAFETY: the glue takes the interrupt lock and checks the CPU itself.
        unsafe { kick(cpu_no) };
    }
}

/// Start the scheduler thread.
pub fn start_scheduler() {
    let r = rt();
    r.stop.store(false, Ordering::Release);
    let handle = std::thread::Builder::new()
        .name("hcpumf-sampler".into())
        .spawn(scheduler_loop);
    match handle {
        Ok(h) => {
            if let Ok(mut g) = r.sampler.write() {
                *g = Some(h.thread().clone());
            }
            if let Ok(mut g) = r.scheduler.lock() {
                *g = Some(h);
            }
        }
        Err(e) => log(&format!("HHCMF090E cannot start the sampler thread: {e}")),
    }
}

/// Stop and join the scheduler thread.
pub fn stop_scheduler() {
    let r = rt();
    r.stop.store(true, Ordering::Release);
    r.sched.sleep_target.store(0, Ordering::SeqCst);
    wake_scheduler(r);
    let h = r.scheduler.lock().ok().and_then(|mut g| g.take());
    if let Some(h) = h {
        h.thread().unpark();
        let _ = h.join();
    }
    if let Ok(mut g) = r.sampler.write() {
        *g = None;
    }
}

fn scheduler_loop() {
    // Ask the kernel for precise wake-ups: the default 50 us timer slack would smear
    // intervals at high sampling rates.
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0u64, 0u64, 0u64) };
    let r = rt();
    let mut placement = SamplerPlacement::new();
    while !r.stop.load(Ordering::Acquire) {
        placement.review(r);
        // Scanning: CPUs that post deadlines now are seen by the scan below or by the
        // re-scan after the sleep target is published; a CPU whose deadline the re-scan
        // misses sees the published target and unparks us (SeqCst on both sides), and an
        // unpark that comes before the park makes the park return at once.
        r.sched.sleep_target.store(0, Ordering::SeqCst);
        let now = wall_ns();
        let mut next = scan(r, now);
        r.sched.sleep_target.store(next, Ordering::SeqCst);
        next = next.min(earliest(r));
        let now2 = wall_ns();
        if next > now2 && !r.stop.load(Ordering::Acquire) {
            r.sched.sleep_target.store(next, Ordering::SeqCst);
            std::thread::park_timeout(Duration::from_nanos(next - now2));
            // Woken late (a CPU's unpark only ever wakes it early).
            let late = wall_ns().saturating_sub(next);
            let st = &r.sched;
            bump(&st.sleeps, 1);
            if late > st.oversleep_max.load(Ordering::Relaxed) {
                st.oversleep_max.store(late, Ordering::Relaxed);
            }
            if late > 1_000_000 {
                bump(&st.oversleeps_1ms, 1);
            }
        }
    }
}

/// Where the sampler thread runs. It asks for the lowest real-time priority, so that it runs
/// on time even when the guest has more CPUs than the host has cores (refused without the
/// privilege: it stays an ordinary thread, and samples come later on a loaded host). A
/// real-time thread is woken on the core it last ran on, though, often the core of a
/// running CPU thread, which every wake-up then preempts (measured: 1-2% of the CPU
/// thread's time in the kernel at 1,000 wake-ups/s, 0.1% when it is woken elsewhere). So
/// it keeps to the host cores on which no CPU ticked lately (from the cores the CPUs'
/// ticks record), and to all of them when there is none.
struct SamplerPlacement {
    allowed: Vec<usize>,
    current: Vec<usize>,
    ticks: Vec<u64>,
    checked: Instant,
}

impl SamplerPlacement {
    fn new() -> Self {
        let param = libc::sched_param { sched_priority: 1 };
        // SAFETY: changes only this thread's scheduling policy; `param` outlives the call.
        unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
        let allowed = affinity().unwrap_or_default();
        SamplerPlacement {
            current: allowed.clone(),
            allowed,
            ticks: Vec::new(),
            checked: Instant::now(),
        }
    }

    /// Look again every 100 ms (CPU threads migrate; CPUs come and go).
    fn review(&mut self, r: &Runtime) {
        if self.checked.elapsed() < Duration::from_millis(100) || self.allowed.len() < 2 {
            return;
        }
        self.checked = Instant::now();
        self.ticks.resize(r.cpus.len(), 0);
        let mut busy = Vec::new();
        for (st, seen) in r.cpus.iter().zip(self.ticks.iter_mut()) {
            let t = st.schedule.ticks.load(Ordering::Relaxed);
            if t != *seen {
                busy.push(st.schedule.shared.core.load(Ordering::Relaxed) as usize);
            }
            *seen = t;
        }
        let free: Vec<usize> = self
            .allowed
            .iter()
            .copied()
            .filter(|c| !busy.contains(c))
            .collect();
        let want = if free.is_empty() {
            self.allowed.clone()
        } else {
            free
        };
        if want != self.current && set_affinity(&want) {
            self.current = want;
        }
    }
}

/// The host core the calling thread runs on (u32::MAX if unknown).
pub fn host_core() -> u32 {
    // SAFETY: sched_getcpu takes no arguments (a vDSO call); it returns -1 on failure.
    let c = unsafe { libc::sched_getcpu() };
    u32::try_from(c).unwrap_or(u32::MAX)
}

/// The host cores the calling thread may run on.
fn affinity() -> Option<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity fills the set we own.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the size is that of `set`.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return None;
    }
    Some(
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `set` is initialized and the index is below CPU_SETSIZE.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect(),
    )
}

/// Keep the calling thread to `cores`.
fn set_affinity(cores: &[usize]) -> bool {
    // SAFETY: a zeroed cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cores {
        // SAFETY: CPU_SET only writes within `set` for c < CPU_SETSIZE (checked by libc).
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; `set` outlives the call.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
}

/// The earliest deadline any CPU has posted.
fn earliest(r: &Runtime) -> u64 {
    r.cpus
        .iter()
        .map(|st| st.schedule.shared.wall_deadline.load(Ordering::SeqCst))
        .min()
        .unwrap_or(u64::MAX)
}

/// The CPU thread's time may be at most this far from the scheduler's reading when the tick
/// uses it: beyond, the thread was not running in between and the tick reads its own time.
pub const ARM_TRUST_NS: u64 = 20_000;

/// What the scheduler does about a CPU whose wall-clock deadline came.
enum DueCheck {
    /// Its CPU time has not reached the due time while its thread runs: look again then.
    Wait(u64),
    /// Arm it, handing the tick the CPU time read just before (None: not read, or the
    /// thread's time stands still and the tick reads its own).
    Arm(Option<u64>),
}

/// A CPU's wall-clock deadline came: confirm on its thread's CPU clock (read from here, so
/// that the CPU thread makes no system call for it) that its clocks' due time has come, and
/// hand the reading to the tick. The time has not come when the host did not run the thread
/// all the time since the deadline was set; a thread whose time stands still (it waits, is
/// stopped or was preempted) is armed, so that its first instruction ticks and reads its own
/// time.
fn confirm_due(h: &hcpumf_host, cpu: u16, sh: &SchedShared, own: &SchedPrivate) -> DueCheck {
    let due = sh.due_cpu_ns.load(Ordering::Relaxed);
    let Some(read) = h.thread_cputime_ns.filter(|_| due > 1) else {
        return DueCheck::Arm(None);
    };
    // SAFETY: the glue reads the clock of the CPU's thread under the CPU's lock and returns
    // 0 when the CPU is offline.
    let c = unsafe { read(cpu) };
    let seen = own.seen_cpu_ns.swap(c, Ordering::Relaxed);
    if c == 0 {
        DueCheck::Arm(None)
    } else if c >= due {
        // A stale reading left by an earlier arming is harmless: the tick checks its age.
        sh.armed_mono_ns.store(mono_ns(), Ordering::Relaxed);
        sh.armed_cpu_ns.store(c, Ordering::Release);
        DueCheck::Arm(Some(c))
    } else if c != seen {
        DueCheck::Wait(due - c)
    } else {
        DueCheck::Arm(None)
    }
}

/// Arm the CPUs whose deadline has come; return when to look again.
fn scan(r: &Runtime, now: u64) -> u64 {
    let mut next = now + 100_000_000;
    let Some(h) = host() else { return next };
    for (i, st) in r.cpus.iter().enumerate() {
        let s = &st.schedule;
        let d = s.shared.wall_deadline.load(Ordering::SeqCst);
        if d == u64::MAX {
            continue;
        }
        if d > now {
            next = next.min(d);
            continue;
        }
        let mut read = None;
        if !s.shared.armed.load(Ordering::Acquire) && st.alerts.pending().is_empty() {
            match confirm_due(h, i as u16, &s.shared, &s.private) {
                DueCheck::Wait(wait) => {
                    let d2 = now.saturating_add(wait);
                    let _ = s.shared.wall_deadline.compare_exchange(
                        d,
                        d2,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    );
                    next = next.min(d2);
                    continue;
                }
                DueCheck::Arm(c) => read = c,
            }
        }
        let already = s.shared.armed.swap(true, Ordering::AcqRel);
        if !already {
            // SAFETY: the glue arms under the CPU's lock and checks it is online.
            let ok = h.arm.map(|a| unsafe { a(i as u16) } == 0).unwrap_or(false);
            if !ok {
                // Offline CPU, or the previous arming not yet consumed.
                s.shared.armed.store(false, Ordering::Release);
            }
        }
        if !st.alerts.pending().is_empty() {
            if let Some(kick) = h.kick_waiting {
                // SAFETY: the glue checks the CPU under the interrupt lock.
                unsafe { kick(i as u16) };
            }
        }
        // When to look at the CPU again. Its tick posts the exact deadline, and the tick
        // should not have to wake us: that costs the CPU thread a futex system call and the
        // host an inter-processor interrupt (a tenth of the CPU thread's time at 13,333
        // samples/s on a virtual machine), where our own timer wake-up costs it nothing.
        // Freshly armed, we sleep until the follow-on due time the CPU posted (see below);
        // otherwise a quarter period on, which no tick's deadline comes before (the wake
        // margin is at most half an interval and samples are at least a quarter interval
        // apart).
        //
        // Still armed from before, the CPU has not reached an instruction boundary since: it
        // waits or is stopped, or the host has not run its thread, or it is in a long
        // instruction. It is looked at again a quarter period on, and twice as late each
        // time it is still armed, up to 10 ms: its tick, when it comes soon, then still
        // need not wake us, and a waiting CPU costs few wake-ups.
        let hint = s.shared.period_hint.load(Ordering::Relaxed);
        let stale = if already {
            s.private
                .stale_looks
                .fetch_add(1, Ordering::Relaxed)
                .min(16)
        } else {
            s.private.stale_looks.store(0, Ordering::Relaxed);
            0
        };
        let follow = s.shared.follow_cpu_ns.load(Ordering::Relaxed);
        let again = match read {
            _ if hint == 0 => 10_000_000,
            // Freshly armed with the CPU time just read: the tick will post a deadline for
            // the follow-on due time, never earlier than the CPU time still to run to it
            // from now. Sleeping until just after that serves the tick's deadline in the
            // same wake-up (within WAKE_TOLERANCE_NS) instead of a look and a wake-up.
            Some(c) if !already && follow > c => (follow - c + 2_000).clamp(2_000, 10_000_000),
            _ => ((hint / 4) << stale).clamp(2_000, 10_000_000),
        };
        let again = if st.alerts.pending().is_empty() {
            again
        } else {
            again.min(ALERT_POLL_NS)
        };
        let _ = s.shared.wall_deadline.compare_exchange(
            d,
            now + again,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        next = next.min(now + again);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn the_sample_clock_keeps_its_phase() {
        let c = SampleClock::default();
        c.start(1000, 10_000);
        assert!(!c.poll(10_500, 1), "not due");
        assert!(c.poll(11_000, 2));
        assert!(c.poll(12_000, 3));
        assert_eq!(c.wake_at(), 13_000);
        assert_eq!(c.taken.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn catching_up_keeps_samples_a_quarter_interval_apart() {
        let c = SampleClock::default();
        c.start(1000, 0);
        // The tick comes 5 intervals late: one sample now, the missed ones while catching
        // up, at most four per interval. Ticks come every 10 ns (the scheduler armed the CPU
        // again during each tick): never two samples less than 250 ns apart.
        let (mut t, mut last, mut n) = (6_000u64, 0u64, 0u64);
        while t <= 11_000 {
            if c.poll(t, t) {
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
        c.start(1000, 0);
        assert!(c.poll(1000, 500));
        assert!(!c.poll(2000, 500), "no instruction since the last sample");
        assert!(!c.poll(2100, 500));
        assert_eq!(c.stalls.load(Ordering::Relaxed), 2);
        assert!(c.poll(2200, 501), "the first tick after an instruction");
        assert!(
            c.poll(3000, 502),
            "the next sample is due at 3,000: phase kept"
        );
        assert!(c.wake_at() > 3500);
        assert_eq!(c.missed.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn far_behind_resynchronizes_and_counts_the_missed_intervals() {
        let c = SampleClock::default();
        c.start(1000, 0);
        assert!(c.poll(1000 + 100 * 1000, 1));
        assert_eq!(c.missed.load(Ordering::Relaxed), 100);
        assert_eq!(c.take_unreported(), 100);
        assert!(
            !c.poll(101_200, 2),
            "less than a quarter of an interval later"
        );
        assert!(c.poll(102_000, 3));
    }

    #[test]
    fn intervals_owed_when_the_clock_stops_are_counted_once() {
        let c = SampleClock::default();
        c.start(1000, 0);
        assert!(c.poll(1000, 1));
        assert_eq!(c.resync_lost(1999), 0, "the second interval has not ended");
        // No tick came for 3.5 intervals: samples for 2,000, 3,000 and 4,000 are owed.
        assert_eq!(c.resync_lost(4_500), 3);
        assert_eq!(c.resync_lost(4_500), 0, "counted once");
        assert_eq!(c.missed.load(Ordering::Relaxed), 3);
        assert_eq!(
            c.take_unreported(),
            0,
            "returned, not left for a tick to report"
        );
    }
}
