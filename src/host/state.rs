//! The plugin's per-CPU state (lock-free: one [`CpuState`] per CPU, on cache lines laid
//! out so that the CPU's tick and the sampler thread share as few as possible) and the
//! global [`Runtime`].

use crate::host::cacheline::Padded;
use crate::host::exclusive::Exclusive;
use crate::host::meter::Meter;
use crate::host::run_cpu::RunCpu;
use crate::host::schedule::TickSchedule;
use hcpumf_arch::alerts::PendingAlerts;
use hcpumf_arch::counter::{CoprocessorGroups, CpuCounters};
use hcpumf_arch::program_param::ProgramParameter;
use hcpumf_arch::sampling::CpuSampling;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

/// CPUs the plugin keeps state for (Hercules 3.13 has at most MAX_CPU_ENGINES = 8 on amd64).
pub const MAX_CPUS: usize = crate::host::glue::HCPUMF_MAX_CPU as usize;

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
    /// What a HIS run keeps for this CPU: the block being filled, the CPU as last seen.
    pub run: RunCpu,
    /// Which thread may change the CPU's sampling state and meter now (`host::exclusive`).
    pub exclusive: Padded<Exclusive>,
}

/// The global state of the loaded plugin.
pub struct Runtime {
    pub cpus: Vec<CpuState>,
    pub groups: CoprocessorGroups,
    /// The monotonic clock (ns) at the plugin's start: wall times are counted from it.
    pub epoch_mono_ns: u64,
    /// What the sampler thread writes as it sleeps and wakes, on lines of its own: the
    /// CPUs' ticks read the fields around it.
    pub sampler_state: Padded<SamplerState>,
    /// The sampler thread, for CPUs to unpark. It sleeps with `park_timeout` and never
    /// takes a lock a CPU thread holds: a CPU thread the host preempted while holding one
    /// (they run at a low priority and outnumber the host's cores) would otherwise stop
    /// the real-time sampler, and with it the ticks of every CPU, for as long as the host
    /// leaves that thread waiting (tens of milliseconds were seen).
    pub sampler: std::sync::RwLock<Option<std::thread::Thread>>,
    pub stop: AtomicBool,
    pub sampler_join: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The sampler's guard thread (`host::guard`).
    pub guard: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl SamplerState {
    /// Does a timer interruption follow right after an accounting point that found one due
    /// (`timer_due`)? Only while the sampler runs above Hercules' timer thread (`above_all`):
    /// below it or beside it, the timer thread runs when it would have run anyway, and
    /// the interruption comes at a time the point does not foretell (SDL Hyperion's timer
    /// thread, woken about 2,300 times a second, makes one due for hundreds of microseconds
    /// pending only then). Taking it to follow there biased the problem state low: 3-7
    /// points with 1,700-2,600 CPU-timer interruptions a second.
    pub fn interruption_follows(&self, timer_due: bool) -> bool {
        timer_due && self.above_all.load(Ordering::Acquire)
    }
}

/// The lateness steps (us) of the sampler's wake-ups that `hcpumf status` counts.
pub const LATE_STEPS_US: [u64; 7] = [100, 200, 500, 1_000, 2_000, 5_000, 10_000];

/// The sampler thread's sleep and wake-up statistics.
#[derive(Debug, Default)]
pub struct SamplerState {
    /// Wall time (ns since the epoch) until which the sampler sleeps; a CPU that needs an
    /// earlier tick wakes it.
    pub sleep_target: AtomicU64,
    /// The earliest deadline for which a CPU woke the sampler before its sleep target
    /// (u64::MAX: none since the pass began): a wake-up is late against that deadline, not
    /// only against the target it slept for (`host::sampler`).
    pub woken_for: AtomicU64,
    /// The sampler's timed sleeps, how late the host woke it (ns, the most), how long one
    /// pass of its loop (placement review and scan) took at most, and how often either
    /// exceeded each of LATE_STEPS_US (`hcpumf status`: a sampler late or held up L leaves
    /// the samples due in L untaken, and those of an activation that ends meanwhile missed;
    /// a pass takes 2-30 us, a placement review with its /proc reads up to a few hundred,
    /// more when the host stops the thread while it runs).
    pub sleeps: AtomicU64,
    /// Short waits for a CPU catching up that it spun instead (`host::sampler`).
    pub spins: AtomicU64,
    pub oversleep_max: AtomicU64,
    pub pass_max: AtomicU64,
    pub stalls: [AtomicU64; LATE_STEPS_US.len()],
    /// The time (ns) of those over the first step, in all: how long the sampler was late or
    /// held up (`tests/common/stored.rs` weighs the samples missed against it).
    pub stalled_ns: AtomicU64,
    /// Time the sampler spent as a real-time thread, and as an ordinary one (ns), and the
    /// times it turned real-time after a late wake-up or missed intervals.
    pub realtime_ns: AtomicU64,
    pub ordinary_ns: AtomicU64,
    pub holds: AtomicU64,
    /// The sampler thread's Linux thread id while it runs (0 before), for `hcpumf status`
    /// to read the CPU time the kernel accounted to it.
    pub tid: AtomicU32,
    /// The sampler thread runs (from its start until it ends).
    pub running: AtomicBool,
    /// The sampler is below real-time CPU threads (`host::placement`), watched by the guard
    /// (`host::guard`), which raises it to `rescue_priority` when it is starved and says
    /// so in `rescued` (the sampler then holds that priority for a while); `rescues`
    /// counts that, `beat` is the wall time of the sampler's last wake-up.
    pub below: AtomicBool,
    /// The sampler runs above every other thread of the process: Hercules' timer thread,
    /// woken with it on its core, runs after its pass, and makes a timer interruption that
    /// was due at one of its accounting points pending right after that point. Only then
    /// does a point's `timer_due` tell that the interruption follows it (`Meter::account`).
    pub above_all: AtomicBool,
    pub rescue_priority: AtomicI32,
    pub rescued: AtomicBool,
    pub rescues: AtomicU64,
    /// Times the guard found the sampler late but not starved (asleep past its wake-up, or
    /// run as soon as the guard made way: the host held its core) and did not raise it.
    pub guard_passes: AtomicU64,
    pub beat: AtomicU64,
    /// The core the guard keeps to (u32::MAX: any).
    pub guard_core: AtomicU32,
    /// The operator's TIMERINT (us) while the sampler makes Hercules' TOD-clock updates
    /// (`host::timer_duty`; 0: Hercules' timer thread makes them), and the updates it made.
    pub tod_duty_us: AtomicU32,
    pub tod_updates: AtomicU64,
    /// What went wrong with the sampler thread last, in words, for `hcpumf status` (empty:
    /// nothing): a panic (`host::sampler` starts its loop again after the first), its end.
    pub trouble: std::sync::Mutex<String>,
}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();
/// The plugin state (created on first use).
pub fn rt() -> &'static Runtime {
    RUNTIME.get_or_init(|| Runtime {
        cpus: (0..engines()).map(|_| CpuState::default()).collect(),
        groups: CoprocessorGroups::new(),
        epoch_mono_ns: crate::host::meter::mono_ns(),
        sampler_state: Padded(SamplerState::default()),
        sampler: std::sync::RwLock::new(None),
        stop: AtomicBool::new(false),
        sampler_join: std::sync::Mutex::new(None),
        guard: std::sync::Mutex::new(None),
    })
}

/// CPUs Hercules can configure (its MAX_CPU_ENGINES, 8 in Debian's build), at most MAX_CPUS:
/// the sampler looks at each of them at every wake-up.
fn engines() -> usize {
    crate::host::services::host()
        .and_then(|h| h.max_cpu)
        // SAFETY: the callback returns a compile-time constant of Hercules.
        .map(|f| usize::from(unsafe { f() }) + 1)
        .unwrap_or(MAX_CPUS)
        .min(MAX_CPUS)
}

/// The state of CPU `cpu`, if the address is one the plugin keeps state for.
pub fn cpu(cpu: u16) -> Option<&'static CpuState> {
    rt().cpus.get(usize::from(cpu))
}
