//! Where and how the sampler thread (`host::sampler`) runs: the host cores it keeps to (those
//! no running CPU thread is on) and its scheduling policy (real-time or ordinary), looked at
//! again every REVIEW_MS.

use crate::host::clock::MAX_CATCH_UP;
use crate::host::hostload::{OthersLoad, Own};
use crate::host::meter::bump;
use crate::host::state::{rt, Runtime};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

mod threads;
use threads::{affinity, cpu_threads_rt_priority, ThreadStat};
pub use threads::{runnable, set_affinity};

/// Where and how the sampler thread runs. It keeps to the host cores no running CPU thread
/// is on (looked up every REVIEW_MS), and to all of them when there is none: woken on a
/// running CPU thread's core it would preempt that thread at every wake-up (measured: 1-2%
/// of the CPU thread's time in the kernel at 1,000 wake-ups/s, 0.1% when it is woken
/// elsewhere). It asks for a real-time priority, so that it runs on time even when the guest
/// has more CPUs than the host has cores, or other processes use the cores (refused without
/// the privilege: it stays an ordinary thread, and samples come later on a loaded host): the
/// lowest one, or one above the CPU threads' where Hercules made those real-time (SDL
/// Hyperion run as root gives every thread SCHED_RR), since a sampler below them would wait
/// for a CPU thread to yield before it can arm that very thread.
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
    /// Intervals the CPUs' sampling clocks missed and samples they took, at the last look.
    missed_seen: u64,
    taken_seen: u64,
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
    /// The highest real-time priority of a CPU thread at the last look (0: none is).
    cpu_rt_priority: i32,
    /// The highest real-time priority of the process's CPU threads (found by name; of every
    /// other thread where none is) at the last scan of the process's threads (every
    /// RT_SCAN_REVIEWS looks), 0 when none is real-time (`cpu_threads_rt_priority`).
    scanned_rt_priority: i32,
    /// Looks since that scan.
    since_rt_scan: u32,
    /// Scans made at consecutive looks while no CPU thread was found by name.
    early_scans: u32,
    /// The real-time priority the sampler has (0: an ordinary thread).
    priority: i32,
    /// The thread id of Hyperion's timer thread, found by name at the scan of the
    /// process's threads (0: none).
    timer_tid: u32,
    /// The CPU threads found by name at the last scan (Hyperion's "Processor CPnn").
    cpu_threads: usize,
    /// Below the real-time CPU threads (see [`SamplerPlacement::review`]).
    below: bool,
    /// Above them again until then, after the guard found the sampler starved or missed
    /// intervals while below.
    above_until: Option<Instant>,
    /// How long the last such hold lasted.
    above_hold: Duration,
    /// The window measuring other processes' use of every core the sampler may run on
    /// (all of Hercules' threads are ours), and whether the last one left room below the
    /// real-time CPU threads ([`room_below`]; false until one is measured).
    room: Option<OthersLoad>,
    room_below: bool,
    /// At the last look, the sampler had a core no running CPU thread was on, or was below
    /// the CPU threads: a wait it spins takes no CPU thread's time
    /// ([`SamplerPlacement::may_spin`]).
    spare: bool,
}

/// A wake-up of an ordinary-thread sampler this late says another process holds its core
/// (the CPUs' clocks catch up up to MAX_CATCH_UP intervals: 3.2 ms at 20,000 samples/s).
const LATE_NS: u64 = 500_000;
/// Other processes' load is measured over this long (/proc/stat counts in 10 ms ticks).
const LOAD_WINDOW_MS: u64 = 200;
/// More of a core than this (thousandths) used by others, and the core is not free.
const OTHERS_MAX_PERMILLE: u64 = 300;
/// The process's threads are scanned for their real-time priorities every this many looks
/// (about a second).
const RT_SCAN_REVIEWS: u32 = 50;
/// Until CPU threads are found by name, the scan is made at every look for this many looks
/// (two seconds; Debian's 3.13 does not name its threads).
const EARLY_SCANS: u32 = 100;
/// The first hold above the CPU threads after the sampler was starved below them. Above,
/// the sampler costs the CPU thread 3-12% of its work at 20,000 samples/s (bench-ab), and
/// a passing starvation of a few milliseconds (the guard found one in 1 of 5 bench-ab runs
/// on a quiet host) holds it there a second, not the rest of the run (10 s before);
/// starvation that comes back as soon as a hold ends (real-time threads that fill the
/// cores) doubles it each time. (A quarter of a second lost more samples where two
/// Hyperion runs filled the cores: each return below costs the milliseconds until the
/// guard's next look.)
const ABOVE_FIRST: Duration = Duration::from_secs(1);
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
        let (rt_priority, cpu_threads, timer_tid) = cpu_threads_rt_priority();
        let mut p = SamplerPlacement {
            current: allowed.clone(),
            allowed,
            activity: Vec::new(),
            checked: Instant::now(),
            policy,
            realtime: false,
            missed_seen: 0,
            taken_seen: 0,
            realtime_until: None,
            hold: HOLD_FIRST,
            load: None,
            cores_quiet: false,
            since: Instant::now(),
            cpu_rt_priority: 0,
            // Above the CPU threads from the start: SDL Hyperion run with CAP_SYS_NICE
            // puts its CPU threads in SCHED_RR at priority 3, and a sampler below them would
            // never run on a host whose cores they fill, so never arm a CPU, and so never
            // learn their priority from a CPU it armed. Without CPU threads found by name
            // (not started yet), above every real-time thread until they are.
            scanned_rt_priority: rt_priority,
            since_rt_scan: if cpu_threads > 0 { 0 } else { RT_SCAN_REVIEWS },
            cpu_threads,
            early_scans: 0,
            priority: 0,
            timer_tid,
            below: false,
            above_until: None,
            above_hold: ABOVE_FIRST,
            room: None,
            room_below: false,
            spare: false,
        };
        // Until the first window has shown a core free of other processes: real-time.
        p.set_realtime(policy != Policy::Never);
        p
    }

    /// The placement of the sampler thread started again after a panic: back on every core it
    /// was allowed at its start, its policy chosen as then.
    pub fn afresh(&self) -> Self {
        if !self.allowed.is_empty() {
            set_affinity(&self.allowed);
        }
        Self::new()
    }

    /// Switch between real-time (one priority above the CPU threads', at least the lowest)
    /// and an ordinary thread.
    fn set_realtime(&mut self, on: bool) {
        // SAFETY: sched_get_priority_max only reads its argument.
        let max = unsafe { libc::sched_get_priority_max(libc::SCHED_FIFO) }.max(1);
        let cpu = self.cpu_rt_priority.max(self.scanned_rt_priority);
        let want = if on && self.below {
            cpu - 1
        } else if on {
            (cpu + 1).clamp(1, max)
        } else {
            0
        };
        if on == self.realtime && want == self.priority {
            self.publish();
            return;
        }
        self.account_policy_time();
        let (policy, prio) = if on {
            (libc::SCHED_FIFO, want)
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
        self.priority = if self.realtime { prio } else { 0 };
        self.publish();
    }

    /// Say whether the sampler now runs above every other thread of the process (real-time,
    /// one above the highest of them), so that one woken with it, Hercules' timer thread,
    /// waits for its pass (`SamplerState::above_all`).
    fn publish(&self) {
        rt().sampler_state
            .above_all
            .store(self.realtime && !self.below, Ordering::Release);
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
        let mut cpu_rt_priority = 0;
        for (st, seen) in r.cpus.iter().zip(self.activity.iter_mut()) {
            let s = &st.schedule;
            let a = s.ticks.load(Ordering::Relaxed)
                + s.private.remote_samples.load(Ordering::Relaxed)
                + s.private.remote_accounting.load(Ordering::Relaxed);
            if a != *seen {
                // Where the thread is now (it migrates between ticks, which come seldom
                // when samples are taken from outside), else where its last tick ran.
                let stat = ThreadStat::of(s.thread_id.load(Ordering::Relaxed));
                let core = stat
                    .and_then(|t| t.core)
                    .unwrap_or(s.shared.core.load(Ordering::Relaxed) as usize);
                busy.push(core);
                cpu_rt_priority = cpu_rt_priority.max(stat.map_or(0, |t| t.rt_priority));
            }
            *seen = a;
        }
        self.cpu_rt_priority = cpu_rt_priority;
        self.since_rt_scan += 1;
        if self.since_rt_scan >= RT_SCAN_REVIEWS {
            let (prio, cpu_threads, timer_tid) = cpu_threads_rt_priority();
            self.scanned_rt_priority = prio;
            self.timer_tid = timer_tid;
            self.cpu_threads = cpu_threads;
            let named = cpu_threads > 0;
            // CPU threads not found by name yet (Hyperion may start them after the plugin):
            // again at the next look, for the first EARLY_SCANS looks.
            self.since_rt_scan = if named || self.early_scans >= EARLY_SCANS {
                0
            } else {
                self.early_scans += 1;
                RT_SCAN_REVIEWS
            };
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
        let (missed, taken) = r.cpus.iter().fold((0, 0), |(m, t), st| {
            let s = &st.schedule;
            (m + s.both(|c| &c.missed), t + s.both(|c| &c.taken))
        });
        let dm = missed.saturating_sub(self.missed_seen);
        let dt = taken.saturating_sub(self.taken_seen);
        self.missed_seen = missed;
        self.taken_seen = taken;
        if dm > 0 && !self.realtime && self.policy == Policy::AsNeeded {
            self.hold_realtime();
        }
        // Real-time CPU threads (SDL Hyperion as root) fewer than the cores: the sampler
        // goes just below them, on any core, watched by its guard (`host::guard`). It then
        // never preempts a CPU thread: the kernel wakes it on a core no CPU thread holds,
        // where Hyperion's timer thread (above it) preempts it rather than a CPU thread.
        // Measured with the counters alone: the CPU thread migrates twice a second (2,200
        // times with the sampler above it), its kernel time 0.11% (3.7%). Back above for a
        // hold after the guard found it starved or the intervals missed since the last look
        // say so (`starved_below`): real-time threads fill the cores.
        if st_rescued(r) || (self.below && starved_below(dm, dt)) {
            self.hold_above();
        }
        self.measure_room(busy.len());
        let cpu_prio = self.cpu_rt_priority.max(self.scanned_rt_priority);
        let below = self.realtime
            && self.room_below
            && self.policy != Policy::Never
            && cpu_prio > 1
            && self.cpu_threads > 0
            && self.cpu_threads < self.allowed.len()
            && busy.len() < self.allowed.len()
            && r.guard.lock().is_ok_and(|g| g.is_some())
            && self.above_until.is_none_or(|t| Instant::now() >= t);
        if below != self.below {
            self.below = below;
            let st = &r.sampler_state;
            st.rescue_priority.store(cpu_prio + 1, Ordering::Relaxed);
            st.below.store(below, Ordering::Release);
            if below {
                // Wake the guard (`host::guard`), which sleeps while the sampler is above.
                if let Ok(g) = r.guard.lock() {
                    if let Some(h) = g.as_ref() {
                        h.thread().unpark();
                    }
                }
            }
        }
        // Above them with fewer than the cores: on the core Hyperion's timer thread is on. The
        // timer thread (SCHED_RR 8, above the sampler, woken about 2,300 times a second) then
        // preempts the sampler there and never a CPU thread. On another core the sampler preempts the CPU thread whenever the timer
        // thread has pushed that across, which pushes it back: 2,200 migrations a second of
        // the CPU thread (none without the plugin) and 3.7% of its time in the kernel with
        // the counters alone. The core a CPU thread is seen on, read while the sampler runs,
        // cannot tell: it is never the sampler's own (and so `free` would confirm a wrong
        // choice).
        let timer_core = (self.cpu_rt_priority.max(self.scanned_rt_priority) > 0
            && busy.len() < self.allowed.len())
        .then(|| ThreadStat::of(self.timer_tid).and_then(|t| t.core))
        .flatten()
        .filter(|c| self.allowed.contains(c));
        // The guard keeps to the timer thread's core too: woken elsewhere, above the CPU
        // threads, it would preempt one (seen: 80 migrations a second of the CPU thread).
        r.sampler_state
            .guard_core
            .store(timer_core.map_or(u32::MAX, |c| c as u32), Ordering::Relaxed);
        self.spare = self.below || !free.is_empty();
        let want = if self.below || free.is_empty() {
            self.allowed.clone()
        } else if let Some(c) = timer_core {
            vec![c]
        } else {
            free.clone()
        };
        if self.policy == Policy::AsNeeded && !free.is_empty() {
            self.measure_load(&want);
        }
        // Cores widened before the priority changes, narrowed after. Moved below the CPU
        // threads while still kept to the timer thread's core, where the CPU thread ran, the
        // sampler waited there until its guard raised it, 20 ms later: at every run's first
        // move below and after every hold (docs/benchmarks.md, 2026-11-27 11:59). Kept to a
        // new core first and raised after, it could wait there the same way.
        let widening = self.current.iter().all(|c| want.contains(c));
        if widening {
            self.keep_to(&want);
        }
        let recently_late = self.realtime_until.is_some_and(|t| Instant::now() < t);
        self.set_realtime(match self.policy {
            Policy::Always => true,
            Policy::Never => false,
            Policy::AsNeeded => {
                free.is_empty() || self.allowed.len() < 2 || recently_late || !self.cores_quiet
            }
        });
        if !widening {
            self.keep_to(&want);
        }
    }

    /// May the sampler spin a short wait (`host::sampler`)? Only where that takes no CPU
    /// thread's time: on a core of its own, or below the real-time CPU threads, which preempt
    /// it. With more CPU threads than cores it would spin on a core a CPU thread needs.
    pub fn may_spin(&self) -> bool {
        self.spare
    }

    /// Keep the sampler to the host cores `want` (with two or more allowed).
    fn keep_to(&mut self, want: &[usize]) {
        if self.allowed.len() >= 2 && want != self.current && set_affinity(want) {
            self.current = want.to_vec();
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

    /// Other processes' use of the cores the sampler may run on, `busy` of them running CPU
    /// threads: end the window when it is LOAD_WINDOW_MS old, start the next.
    fn measure_room(&mut self, busy: usize) {
        if let Some(w) = &self.room {
            if w.age() < Duration::from_millis(LOAD_WINDOW_MS) {
                return;
            }
            let n = self.allowed.len();
            self.room_below = w
                .others_permille(&self.allowed)
                .is_some_and(|p| room_below(p.saturating_mul(n as u64), n, busy));
        }
        self.room = Some(OthersLoad::start_for(&self.allowed, Own::Process));
    }

    /// Add the time since the last switch (or look) to the real-time or ordinary total.
    fn account_policy_time(&mut self) {
        let now = Instant::now();
        let ns = u64::try_from(now.duration_since(self.since).as_nanos()).unwrap_or(0);
        self.since = now;
        let st = &rt().sampler_state;
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
        bump(&rt().sampler_state.holds, 1);
        self.realtime_until = Some(Instant::now() + self.hold);
        self.hold = (self.hold * 2).min(HOLD_MAX);
        self.set_realtime(true);
    }

    /// The sampler thread was woken `late_ns` after the time it asked for.
    pub fn woke(&mut self, late_ns: u64) {
        if self.policy == Policy::AsNeeded && !self.realtime && late_ns > LATE_NS {
            self.hold_realtime();
        }
        // Below the CPU threads a late wake-up alone is no reason to go above them: the
        // sampling clocks catch up (MAX_CATCH_UP), and the guard raises a starved sampler.
        if st_rescued(rt()) {
            self.hold_above();
        }
    }

    /// Above the CPU threads for a hold, on every core until the next look places it: twice
    /// the last hold (up to HOLD_MAX) when starvation came back within that hold's length of
    /// its end, ABOVE_FIRST otherwise.
    fn hold_above(&mut self) {
        bump(&rt().sampler_state.holds, 1);
        let now = Instant::now();
        let last = self.above_hold;
        let hold = match self.above_until {
            Some(t) if now.saturating_duration_since(t) <= last => (last * 2).min(HOLD_MAX),
            _ => ABOVE_FIRST,
        };
        self.above_hold = hold;
        self.above_until = Some(now + hold);
        self.below = false;
        rt().sampler_state.below.store(false, Ordering::Release);
        if self.realtime {
            // The guard may have set the priority already: say it again, so that what this
            // placement believes and what the thread has agree.
            self.priority = -1;
            self.set_realtime(true);
        }
    }
}

/// Do `missed` intervals against `taken` samples since the last look say that a sampler
/// below the CPU threads is starved? Only when a CPU's clock gave up catching up (more than
/// MAX_CATCH_UP intervals behind) and a quarter of the intervals due were missed. Fewer are
/// not starvation: an activation that ends while its sample is due counts that interval
/// missed, and a sampler below the timer thread, some hundreds of microseconds late now and
/// then, meets that at the end of an activation. Taken for starvation (a quarter of a look
/// that saw only an activation's end), they held the sampler above the CPU threads in 4 of
/// 5 bench-ab runs at 20,000/s, which cost the CPU thread 3-12% of its work per CPU-second.
fn starved_below(missed: u64, taken: u64) -> bool {
    missed > MAX_CATCH_UP && missed.saturating_mul(4) > missed + taken
}

/// Do other processes, using `others_milli` thousandths of a core in all of `cores` host
/// cores, `busy` of which run our CPU threads, leave a sampler below the real-time CPU threads
/// room to run? Only with ROOM_MILLI of a core free of both. A core that another process
/// fills (a second Hercules whose real-time CPU threads take the cores ours leave, seen
/// where two Hyperion runs as root share 2 cores) starves the sampler below until its guard
/// raises it (GUARD_PERIOD and more: 260 intervals of a CPU sampling at 20,000/s missed at
/// once), so the sampler stays above the CPU threads there. Other processes' load may be of
/// ordinary threads, which a real-time sampler would not wait for: this errs towards above.
fn room_below(others_milli: u64, cores: usize, busy: usize) -> bool {
    (cores.saturating_sub(busy) as u64 * 1000).saturating_sub(others_milli) >= ROOM_MILLI
}

/// A core's worth of room below the real-time CPU threads, less what a few other threads
/// (an editor, a shell, the kernel's own work) use now and then.
const ROOM_MILLI: u64 = 700;

/// Did the guard raise the sampler since this was last asked?
fn st_rescued(r: &Runtime) -> bool {
    r.sampler_state.rescued.swap(false, Ordering::AcqRel)
}

/// How often the sampler looks where the CPU threads run (a read of /proc per running CPU):
/// a CPU thread that migrates to the sampler's core is preempted at every wake-up until then
/// (measured at 13,333 samples/s with 100 ms: over 1,000 times a second).
const REVIEW_MS: u64 = 20;

#[cfg(test)]
mod tests;
