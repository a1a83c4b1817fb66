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

/// Measurements of one CPU; written only on the CPU's own thread.
#[derive(Debug, Default)]
pub struct Meter {
    raw_instructions: AtomicU64,
    raw_ns: AtomicU64,
    instructions: AtomicU64,
    ns: AtomicU64,
    problem_instructions: AtomicU64,
    problem_ns: AtomicU64,
}

impl Meter {
    /// Fold what happened since the previous accounting point into the totals, attributing
    /// it to the state the CPU is in now (the estimate is unbiased because accounting points
    /// fall at random with respect to the guest's state changes; see README "fidelity").
    pub fn account(&self, raw_instructions: u64, raw_ns: u64, problem: bool) -> MeterReading {
        let last_i = self
            .raw_instructions
            .swap(raw_instructions, Ordering::Relaxed);
        let last_ns = self.raw_ns.swap(raw_ns, Ordering::Relaxed);
        // Hercules zeroes its count on CPU reset: then everything since is new.
        let di = if raw_instructions >= last_i {
            raw_instructions - last_i
        } else {
            raw_instructions
        };
        let dns = if last_ns == 0 {
            0
        } else {
            raw_ns.saturating_sub(last_ns)
        };
        self.instructions.fetch_add(di, Ordering::Relaxed);
        self.ns.fetch_add(dns, Ordering::Relaxed);
        if problem {
            self.problem_instructions.fetch_add(di, Ordering::Relaxed);
            self.problem_ns.fetch_add(dns, Ordering::Relaxed);
        }
        self.reading()
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

/// When a CPU next needs its tick.
#[derive(Debug)]
pub struct TickSchedule {
    /// CPU time (thread ns) of the next sample; 0 when sampling is not active.
    pub next_sample_ns: AtomicU64,
    /// CPU time of the next problem-state accounting point; 0 when not needed.
    pub next_account_ns: AtomicU64,
    /// Wall-clock deadline (ns since the scheduler epoch) to arm the CPU; u64::MAX = none.
    pub wall_deadline: AtomicU64,
    /// The CPU's opcode table is armed and the tick has not run yet.
    pub armed: AtomicBool,
    /// Sampling intervals that passed without a sample because the tick came too late.
    pub missed: AtomicU64,
    /// Samples taken.
    pub samples: AtomicU64,
    /// Pseudo-random state for accounting jitter.
    pub rng: AtomicU64,
    /// Host-driven (HIS) sampling interval in CPU ns; 0 = off.
    pub host_interval_ns: AtomicU64,
    /// CPU time of the next host sample.
    pub host_next_ns: AtomicU64,
    /// Host samples taken.
    pub host_samples: AtomicU64,
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
            next_sample_ns: AtomicU64::new(0),
            next_account_ns: AtomicU64::new(0),
            wall_deadline: AtomicU64::new(u64::MAX),
            armed: AtomicBool::new(false),
            missed: AtomicU64::new(0),
            samples: AtomicU64::new(0),
            rng: AtomicU64::new(0x9E37_79B9_7F4A_7C15),
            host_interval_ns: AtomicU64::new(0),
            host_next_ns: AtomicU64::new(0),
            host_samples: AtomicU64::new(0),
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
    pub alerts: PendingAlerts,
    pub meter: Meter,
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
    pub wake: parking_lot::Mutex<u64>,
    pub wake_cv: parking_lot::Condvar,
    pub stop: AtomicBool,
    pub scheduler: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

static RUNTIME: OnceLock<Runtime> = OnceLock::new();
static HOST: AtomicPtr<hcpumf_host> = AtomicPtr::new(std::ptr::null_mut());

/// The plugin state (created on first use).
pub fn rt() -> &'static Runtime {
    RUNTIME.get_or_init(|| Runtime {
        cpus: (0..MAX_CPUS).map(|_| CpuState::default()).collect(),
        groups: CoprocessorGroups::new(),
        epoch: Instant::now(),
        wake: parking_lot::Mutex::new(u64::MAX),
        wake_cv: parking_lot::Condvar::new(),
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

/// Account on the CPU's own thread (Hercules' raw instruction count `raw_instructions`) and
/// return the reading and the thread's CPU time.
pub fn account(view: &CpuView, raw_instructions: u64) -> (MeterReading, u64) {
    let ns = thread_cpu_ns();
    match cpu(view.cpu) {
        Some(st) => (
            st.meter.account(raw_instructions, ns, view.problem_state),
            ns,
        ),
        None => (MeterReading::default(), ns),
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
/// How often a CPU with a masked pending alert is looked at again.
pub const ALERT_POLL_NS: u64 = 1_000_000;

/// Ask the scheduler to arm `cpu` at wall time `deadline` (or earlier if already sooner).
pub fn schedule(cpu_no: u16, deadline: u64) {
    let Some(st) = cpu(cpu_no) else { return };
    st.schedule.wall_deadline.store(deadline, Ordering::Release);
    let r = rt();
    let mut target = r.wake.lock();
    if deadline < *target {
        *target = deadline;
        r.wake_cv.notify_one();
    }
}

/// Work out when `cpu` next needs a tick and tell the scheduler.
pub fn reschedule(cpu_no: u16, now_cpu_ns: u64) {
    let Some(st) = cpu(cpu_no) else { return };
    let s = &st.schedule;
    let mut due = u64::MAX;
    for d in [
        s.next_sample_ns.load(Ordering::Relaxed),
        s.next_account_ns.load(Ordering::Relaxed),
        s.host_next_ns.load(Ordering::Relaxed),
    ] {
        if d != 0 {
            due = due.min(d);
        }
    }
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
        s.wall_deadline.store(u64::MAX, Ordering::Release);
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

/// Raise alert events on a CPU and make sure it gets a chance to take them (running CPUs at
/// their next tick, CPUs in an enabled wait through the glue).
pub fn raise_alert(cpu_no: u16, bits: AlertBits) {
    let Some(st) = cpu(cpu_no) else { return };
    if bits.is_empty() {
        return;
    }
    st.alerts.raise(bits);
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
    {
        let mut t = r.wake.lock();
        *t = 0;
        r.wake_cv.notify_all();
    }
    let h = r.scheduler.lock().ok().and_then(|mut g| g.take());
    if let Some(h) = h {
        let _ = h.join();
    }
}

fn scheduler_loop() {
    // Ask the kernel for precise wake-ups: the default 50 us timer slack would smear
    // intervals at high sampling rates.
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0u64, 0u64, 0u64) };
    let r = rt();
    while !r.stop.load(Ordering::Acquire) {
        let now = wall_ns();
        let mut next = now + 100_000_000;
        if let Some(h) = host() {
            for (i, st) in r.cpus.iter().enumerate() {
                let s = &st.schedule;
                let d = s.wall_deadline.load(Ordering::Acquire);
                if d == u64::MAX {
                    continue;
                }
                if d <= now {
                    if !s.armed.swap(true, Ordering::AcqRel) {
                        // SAFETY: the glue arms under the CPU's lock and checks it is online.
                        let ok = h.arm.map(|a| unsafe { a(i as u16) } == 0).unwrap_or(false);
                        if !ok {
                            // Offline CPU, or the previous arming not yet consumed.
                            s.armed.store(false, Ordering::Release);
                        }
                    }
                    if !st.alerts.pending().is_empty() {
                        if let Some(kick) = h.kick_waiting {
                            // SAFETY: the glue checks the CPU under the interrupt lock.
                            unsafe { kick(i as u16) };
                        }
                        next = next.min(now + ALERT_POLL_NS);
                    }
                    // The tick reschedules; until then look again in a while.
                    s.wall_deadline.store(now + 10_000_000, Ordering::Release);
                    next = next.min(now + 10_000_000);
                } else {
                    next = next.min(d);
                }
            }
        }
        let mut target = r.wake.lock();
        if *target < next {
            next = *target;
        }
        *target = next;
        let now2 = wall_ns();
        if next > now2 {
            let wait = Duration::from_nanos(next - now2);
            r.wake_cv.wait_for(&mut target, wait);
        }
        *target = u64::MAX;
    }
}
