//! When a CPU next needs its tick: its two sampling clocks, its accounting points, and the
//! cache line the CPU's tick and the sampler thread exchange. (The deadlines themselves are
//! posted with `deadline::reschedule`.)

use crate::host::cacheline::Padded;
use crate::host::clock::SampleClock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// The part of a CPU's schedule shared with the sampler thread.
#[derive(Debug, Default)]
pub struct SchedShared {
    /// Wall-clock deadline (ns since the sampler epoch) to arm the CPU; u64::MAX = none.
    pub wall_deadline: AtomicU64,
    /// The CPU's opcode table is armed and the tick has not run yet.
    pub armed: AtomicBool,
    /// The shortest period the CPU's ticks come at (ns; 0 = no periodic ticks).
    pub period_hint: AtomicU64,
    /// The CPU time the CPU's clocks next need a tick at (0: none; 1: at once).
    pub due_cpu_ns: AtomicU64,
    /// ... and the one after, as far as it can be told now (0: unknown).
    pub follow_cpu_ns: AtomicU64,
    /// How much CPU time before `due_cpu_ns` the CPU's clocks already take a tick as due
    /// (their early window, less where a clock's spacing limit comes later).
    pub accept_gap_ns: AtomicU32,
    /// The CPU thread's CPU time as the sampler read it just before arming (0: not read),
    /// and the monotonic clock at that read.
    pub armed_cpu_ns: AtomicU64,
    pub armed_mono_ns: AtomicU64,
    /// The host core the CPU's last tick ran on (u32::MAX: none yet).
    pub core: AtomicU32,
    /// A clock of the CPU is catching up (`SampleClock::catching_up`): the sampler waits
    /// for its next deadline without sleeping when that is near (`host::sampler`).
    pub catching_up: AtomicBool,
}

// The tick and the sampler exchange one cache line per CPU, not two.
const _: () = assert!(std::mem::size_of::<SchedShared>() <= 64);

/// What only the sampler thread reads and writes about a CPU, off the shared line.
#[derive(Debug, Default)]
pub struct SchedPrivate {
    /// The sampler's previous reading of the CPU thread's CPU time.
    pub seen_cpu_ns: AtomicU64,
    /// How many times in a row the sampler found the CPU still armed (its tick not yet
    /// run) and its thread not running: it then looks again later and later.
    pub stale_looks: AtomicU32,
    /// The CPU thread's CPU time at the sampler's previous look at the CPU while armed (0:
    /// not read): did the thread run since?
    pub looked_cpu_ns: AtomicU64,
    /// Predicted armings that had to become full ones (`hcpumf status`).
    pub escalations: AtomicU64,
    /// The CPU's current arming is a full one already.
    pub escalated: AtomicBool,
    /// The CPU thread's CPU time when the arming became a full one (0: not read).
    pub escalated_cpu_ns: AtomicU64,
    /// Full armings the CPU ran on through and that were made again (`hcpumf status`).
    pub rearms: AtomicU64,
    /// Samples taken from the sampler thread since the last one that went through the tick
    /// (`host::remote`).
    pub remote_streak: AtomicU32,
    /// Samples taken from the sampler thread (`hcpumf status`).
    pub remote_samples: AtomicU64,
    /// HIS-run samples left to the tick because the CPU switched address spaces between the
    /// sampler's read of its registers and of its PSA (`host::remote`; `hcpumf status`).
    pub space_switches: AtomicU64,
    /// Problem-state accounting points made from the sampler thread (`hcpumf status`).
    pub remote_accounting: AtomicU64,
    /// Accounting points put off because the sampler was held up on its way to them
    /// (`remote::held_up`; `hcpumf status`), and how many times the current one was.
    pub held_up_points: AtomicU64,
    pub put_off: AtomicU32,
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
    /// The Linux thread id of the CPU's thread, as its last tick saw it (0: none yet): the
    /// sampler looks up the core it runs on.
    pub thread_id: AtomicU32,
    /// What the sampler thread reads and writes, on a cache line of its own.
    pub shared: Padded<SchedShared>,
    /// What only the sampler thread uses.
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
            thread_id: AtomicU32::new(0),
            shared: Padded(SchedShared {
                wall_deadline: AtomicU64::new(u64::MAX),
                armed: AtomicBool::new(false),
                period_hint: AtomicU64::new(0),
                due_cpu_ns: AtomicU64::new(0),
                follow_cpu_ns: AtomicU64::new(0),
                accept_gap_ns: AtomicU32::new(0),
                armed_cpu_ns: AtomicU64::new(0),
                armed_mono_ns: AtomicU64::new(0),
                core: AtomicU32::new(u32::MAX),
                catching_up: AtomicBool::new(false),
            }),
            private: Padded(SchedPrivate::default()),
            rng: AtomicU64::new(0x9E37_79B9_7F4A_7C15),
            host_accounting: AtomicBool::new(false),
            host_mvs: AtomicBool::new(false),
            host_diagnostic: AtomicBool::new(false),
        }
    }
}

impl TickSchedule {
    /// A counter of both sampling clocks (the guest's and the HIS run's), summed.
    pub fn both(&self, counter: impl Fn(&SampleClock) -> &AtomicU64) -> u64 {
        counter(&self.guest).load(Ordering::Relaxed) + counter(&self.host).load(Ordering::Relaxed)
    }

    /// A pseudo-random accounting period averaging `period` (a cheap xorshift): accounting
    /// points fall at random with respect to interruptions.
    pub fn jitter(&self, period: u64) -> u64 {
        let mut x = self.rng.load(Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.store(x, Ordering::Relaxed);
        period / 2 + x % period.max(1)
    }

    /// Keep accounting points coming while they are needed (`needed`: the problem-state set
    /// is active or a HIS run collects counters), the next one a jittered `period` from
    /// `now_ns`; none otherwise.
    pub fn update_accounting(&self, needed: bool, period: u64, now_ns: u64) {
        if needed || self.host_accounting.load(Ordering::Relaxed) {
            if self.next_account_ns.load(Ordering::Relaxed) == 0 {
                let d = self.jitter(period);
                self.next_account_ns.store(now_ns + d, Ordering::Relaxed);
            }
        } else {
            self.next_account_ns.store(0, Ordering::Relaxed);
        }
    }
}
