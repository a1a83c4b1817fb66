//! Where and how the sampler thread (`host::sampler`) runs: the host cores it keeps to (those
//! no running CPU thread is on) and its scheduling policy (real-time or ordinary), looked at
//! again every REVIEW_MS.

use crate::host::hostload::OthersLoad;
use crate::host::meter::bump;
use crate::host::state::{rt, Runtime};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Where and how the sampler thread runs. It keeps to the host cores no running CPU thread
/// is on (looked up every REVIEW_MS), and to all of them when there is none: woken on a
/// running CPU thread's core it would preempt that thread at every wake-up (measured: 1-2%
/// of the CPU thread's time in the kernel at 1,000 wake-ups/s, 0.1% when it is woken
/// elsewhere). It asks for the lowest real-time priority, so that it runs on time even when
/// the guest has more CPUs than the host has cores, or other processes use the cores
/// (refused without the privilege: it stays an ordinary thread, and samples come later on
/// a loaded host).
///
/// `HCPUMF_SAMPLER_RT=auto` makes it an ordinary thread while it has a core of its own that
/// no other process uses either (`host::hostload`, measured over LOAD_WINDOW_MS), and
/// real-time otherwise: without such a core, until the first window is measured, and for
/// a while after a wake-up came LATE_NS late or a CPU missed intervals (10 s, twice as long
/// at each such event, up to HOLD_MAX). An ordinary thread preempts the CPU threads less,
/// but on the development VM it still missed intervals (README, "Sampling"), so it is not
/// the default.
pub struct SamplerPlacement {
    allowed: Vec<usize>,
    current: Vec<usize>,
    /// Each CPU's ticks, samples and accounting points from outside at the last look.
    activity: Vec<u64>,
    checked: Instant,
    policy: Policy,
    realtime: bool,
    /// Intervals the CPUs' sampling clocks missed, at the last look.
    missed_seen: u64,
    /// Real-time until then, after a late wake-up or missed intervals as an ordinary thread.
    realtime_until: Option<Instant>,
    /// How long the next hold lasts.
    hold: Duration,
    /// The window measuring other processes' use of these cores.
    load: Option<(OthersLoad, Vec<usize>)>,
    /// Did the last window find the cores free of other processes?
    cores_quiet: bool,
    /// When the time under the current policy was last accounted.
    since: Instant,
}

/// A wake-up of an ordinary-thread sampler this late says another process holds its core
/// (the CPUs' clocks catch up up to MAX_CATCH_UP intervals: 3.2 ms at 20,000 samples/s).
const LATE_NS: u64 = 500_000;
/// Other processes' load is measured over this long (/proc/stat counts in 10 ms ticks).
const LOAD_WINDOW_MS: u64 = 200;
/// More of a core than this (thousandths) used by others, and the core is not free.
const OTHERS_MAX_PERMILLE: u64 = 300;
/// The first real-time hold after a late wake-up or missed intervals, and the longest.
const HOLD_FIRST: Duration = Duration::from_secs(10);
const HOLD_MAX: Duration = Duration::from_secs(160);

/// The sampler's scheduling policy (`HCPUMF_SAMPLER_RT` in Hercules' environment: unset or
/// 1 always real-time, 0 never, auto as needed).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    Always,
    Never,
    AsNeeded,
}

impl Default for SamplerPlacement {
    fn default() -> Self {
        Self::new()
    }
}

impl SamplerPlacement {
    /// The placement at the sampler thread's start (its policy from Hercules' environment).
    pub fn new() -> Self {
        let policy = match std::env::var("HCPUMF_SAMPLER_RT").as_deref().map(str::trim) {
            Ok("0") => Policy::Never,
            Ok("auto") => Policy::AsNeeded,
            _ => Policy::Always,
        };
        let allowed = affinity().unwrap_or_default();
        let mut p = SamplerPlacement {
            current: allowed.clone(),
            allowed,
            activity: Vec::new(),
            checked: Instant::now(),
            policy,
            realtime: false,
            missed_seen: 0,
            realtime_until: None,
            hold: HOLD_FIRST,
            load: None,
            cores_quiet: false,
            since: Instant::now(),
        };
        // Until the first window has shown a core free of other processes: real-time.
        p.set_realtime(policy != Policy::Never);
        p
    }

    /// Switch between the lowest real-time priority and an ordinary thread.
    fn set_realtime(&mut self, on: bool) {
        if on == self.realtime {
            return;
        }
        self.account_policy_time();
        let (policy, prio) = if on {
            (libc::SCHED_FIFO, 1)
        } else {
            (libc::SCHED_OTHER, 0)
        };
        let param = libc::sched_param {
            sched_priority: prio,
        };
        // SAFETY: changes only this thread's scheduling policy; `param` outlives the call.
        let rc = unsafe { libc::pthread_setschedparam(libc::pthread_self(), policy, &param) };
        // Refused without the privilege: it stays an ordinary thread.
        self.realtime = on && rc == 0;
    }

    /// Look again every REVIEW_MS (CPU threads migrate; CPUs come and go).
    pub fn review(&mut self, r: &Runtime) {
        if self.checked.elapsed() < Duration::from_millis(REVIEW_MS) {
            return;
        }
        self.checked = Instant::now();
        self.account_policy_time();
        // The cores of the CPUs that ran since the last look (ticked, or were sampled or
        // accounted from outside).
        self.activity.resize(r.cpus.len(), 0);
        let mut busy = Vec::new();
        for (st, seen) in r.cpus.iter().zip(self.activity.iter_mut()) {
            let s = &st.schedule;
            let a = s.ticks.load(Ordering::Relaxed)
                + s.private.remote_samples.load(Ordering::Relaxed)
                + s.private.remote_accounting.load(Ordering::Relaxed);
            if a != *seen {
                // Where the thread is now (it migrates between ticks, which come seldom
                // when samples are taken from outside), else where its last tick ran.
                let core = thread_core(s.thread_id.load(Ordering::Relaxed))
                    .unwrap_or(s.shared.core.load(Ordering::Relaxed) as usize);
                busy.push(core);
            }
            *seen = a;
        }
        let free: Vec<usize> = self
            .allowed
            .iter()
            .copied()
            .filter(|c| !busy.contains(c))
            .collect();
        // `auto`: an ordinary thread on a free core (cheaper: 24 preemptions of the CPU
        // thread in 2.8 s at 13,333 samples/s, against hundreds with a real-time sampler);
        // real-time without one, or the CPU threads it shares the cores with starve it (4
        // CPUs on 2 cores: ~40% of intervals missed), and for a hold (HOLD_FIRST, doubling)
        // after a CPU missed intervals (something else took the free core).
        let missed: u64 = r
            .cpus
            .iter()
            .map(|st| st.schedule.both(|c| &c.missed))
            .sum();
        if missed != self.missed_seen && !self.realtime && self.policy == Policy::AsNeeded {
            self.hold_realtime();
        }
        self.missed_seen = missed;
        let want = if free.is_empty() {
            self.allowed.clone()
        } else {
            free.clone()
        };
        if self.policy == Policy::AsNeeded && !free.is_empty() {
            self.measure_load(&want);
        }
        let recently_late = self.realtime_until.is_some_and(|t| Instant::now() < t);
        self.set_realtime(match self.policy {
            Policy::Always => true,
            Policy::Never => false,
            Policy::AsNeeded => {
                free.is_empty() || self.allowed.len() < 2 || recently_late || !self.cores_quiet
            }
        });
        if self.allowed.len() < 2 {
            return;
        }
        if want != self.current && set_affinity(&want) {
            self.current = want;
        }
    }

    /// Other processes' use of the cores `want`: end the window when it is LOAD_WINDOW_MS
    /// old (and over the same cores), start the next.
    fn measure_load(&mut self, want: &[usize]) {
        match &self.load {
            Some((w, cores)) if cores.as_slice() == want => {
                if w.age() < Duration::from_millis(LOAD_WINDOW_MS) {
                    return;
                }
                self.cores_quiet = w
                    .others_permille(cores)
                    .is_some_and(|p| p <= OTHERS_MAX_PERMILLE);
            }
            // The cores changed: what was measured says nothing about these.
            Some(_) => self.cores_quiet = false,
            None => {}
        }
        self.load = Some((OthersLoad::start(want), want.to_vec()));
    }

    /// Add the time since the last switch (or look) to the real-time or ordinary total.
    fn account_policy_time(&mut self) {
        let now = Instant::now();
        let ns = u64::try_from(now.duration_since(self.since).as_nanos()).unwrap_or(0);
        self.since = now;
        let st = &rt().sched;
        bump(
            if self.realtime {
                &st.realtime_ns
            } else {
                &st.ordinary_ns
            },
            ns,
        );
    }

    /// Real-time for the current hold, and twice as long next time.
    fn hold_realtime(&mut self) {
        bump(&rt().sched.holds, 1);
        self.realtime_until = Some(Instant::now() + self.hold);
        self.hold = (self.hold * 2).min(HOLD_MAX);
        self.set_realtime(true);
    }

    /// The sampler thread was woken `late_ns` after the time it asked for.
    pub fn woke(&mut self, late_ns: u64) {
        if self.policy == Policy::AsNeeded && !self.realtime && late_ns > LATE_NS {
            self.hold_realtime();
        }
    }
}

/// How often the sampler looks where the CPU threads run (a read of /proc per running CPU):
/// a CPU thread that migrates to the sampler's core is preempted at every wake-up until then
/// (measured at 13,333 samples/s with 100 ms: over 1,000 times a second).
const REVIEW_MS: u64 = 20;

/// The core thread `tid` of this process last ran on (field 39 of its /proc stat line).
fn thread_core(tid: u32) -> Option<usize> {
    if tid == 0 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(36)?.parse().ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_core_is_read_from_proc() {
        let tid = crate::host::tick::thread_id();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let core = thread_core(tid);
        assert!(core.is_some_and(|c| c < cores.max(1024)), "{core:?}");
        assert_eq!(thread_core(0), None);
        assert_eq!(thread_core(u32::MAX), None);
    }
}
