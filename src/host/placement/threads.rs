//! What the sampler's placement reads of Hercules' threads (`/proc`), and the calls that keep
//! the calling thread to host cores.

/// What the sampler reads of a thread of this process (its /proc stat line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ThreadStat {
    /// Runnable (state R, field 3: running, or waiting for a core) rather than asleep.
    pub(super) runnable: bool,
    /// The core it last ran on (field 39).
    pub(super) core: Option<usize>,
    /// Its real-time priority (field 40), 0 for an ordinary thread.
    pub(super) rt_priority: i32,
}

impl ThreadStat {
    pub(super) fn of(tid: u32) -> Option<ThreadStat> {
        if tid == 0 {
            return None;
        }
        let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).ok()?;
        // The command name (field 2) is in parentheses and may hold spaces and parentheses
        // itself: count after the last one.
        let mut rest = stat[stat.rfind(')')? + 1..].split_whitespace();
        let runnable = rest.next()? == "R";
        let mut rest = rest.skip(35);
        let core = rest.next().and_then(|f| f.parse().ok());
        let rt_priority = rest.next().and_then(|f| f.parse().ok()).unwrap_or(0);
        Some(ThreadStat {
            runnable,
            core,
            rt_priority,
        })
    }
}

/// Is thread `tid` of this process runnable (running, or waiting for a core), rather than
/// asleep? None when /proc cannot say.
pub fn runnable(tid: u32) -> Option<bool> {
    ThreadStat::of(tid).map(|t| t.runnable)
}

/// The highest real-time priority of the process's CPU threads (SDL Hyperion names them
/// "Processor CPnn"), found before the sampler has seen a CPU run; where no thread has such
/// a name, of every thread but the calling one (0: none is real-time, or /proc cannot be
/// read). Only the CPU threads: a sampler above Hyperion's timer thread (SCHED_RR 8, woken
/// about 2,300 times a second) keeps it from its core while the sampler runs, so the timer
/// thread preempts the CPU thread on the other core instead, and the kernel then pushes the
/// CPU thread across: measured 2,200 migrations a second of the CPU thread (none without
/// the plugin) and 3.7% of its time in the kernel with the counters alone. Also the thread
/// id of Hyperion's timer thread (0: none), whose core the sampler keeps to, and the number
/// of CPU threads found by name.
pub(super) fn cpu_threads_rt_priority() -> (i32, usize, u32) {
    // SAFETY: gettid has no preconditions.
    let me = unsafe { libc::gettid() };
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return (0, 0, 0);
    };
    let (mut named, mut all, mut timer, mut n) = (None::<i32>, 0, 0, 0);
    for tid in dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&tid| tid as libc::pid_t != me)
    {
        let Some(t) = ThreadStat::of(tid) else {
            continue;
        };
        all = all.max(t.rt_priority);
        let comm =
            std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).unwrap_or_default();
        if comm.trim_end() == "timer_thread" {
            timer = tid;
        }
        if comm.starts_with("Processor ") {
            n += 1;
            named = Some(named.unwrap_or(0).max(t.rt_priority));
        }
    }
    (named.unwrap_or(all), n, timer)
}

/// The host cores the calling thread may run on.
pub(super) fn affinity() -> Option<Vec<usize>> {
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
pub fn set_affinity(cores: &[usize]) -> bool {
    // SAFETY: a zeroed cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cores {
        // SAFETY: CPU_SET only writes within `set` for c < CPU_SETSIZE (checked by libc).
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; `set` outlives the call.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
}
