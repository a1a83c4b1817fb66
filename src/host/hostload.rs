//! How much of the host's cores other processes use: the sampler thread's test of whether
//! the cores it keeps to are really free (`host::sampler`, `HCPUMF_SAMPLER_RT=auto`). A core
//! no CPU thread of ours runs on may still run another process, which then delays an
//! ordinary-thread sampler by a time slice at a time (milliseconds: tens of intervals).

use crate::host::meter::{process_cpu_ns, thread_cpu_ns};
use std::time::Instant;

/// Busy time of the listed cores, in the kernel's clock ticks, from the text of /proc/stat
/// (`cpuN user nice system idle iowait irq softirq steal ...`): user, nice, system, irq and
/// softirq (time stolen by a hypervisor is not: no process of this host ran then).
pub fn busy_ticks(stat: &str, cores: &[usize]) -> u64 {
    let mut busy = 0u64;
    for line in stat.lines() {
        let mut f = line.split_whitespace();
        let Some(name) = f.next() else { continue };
        let Some(n) = name
            .strip_prefix("cpu")
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if !cores.contains(&n) {
            continue;
        }
        let v: Vec<u64> = f.take(7).map(|x| x.parse().unwrap_or(0)).collect();
        if v.len() < 7 {
            continue;
        }
        busy += v[0] + v[1] + v[2] + v[5] + v[6];
    }
    busy
}

/// The kernel's clock tick in ns (USER_HZ, the unit of /proc/stat).
fn tick_ns() -> u64 {
    // SAFETY: sysconf has no memory effects.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    1_000_000_000 / u64::try_from(hz).ok().filter(|&h| h > 0).unwrap_or(100)
}

/// A measurement window, on the sampler thread: the cores' busy time less the calling
/// thread's own CPU time (the sampler runs on those cores), as a share of the window per
/// core. Other threads of ours that ran there count as others' (Hercules' timer thread: a
/// few percent; a CPU thread that migrated there: the sampler should move anyway).
pub struct OthersLoad {
    at: Instant,
    busy_ticks: u64,
    own_ns: u64,
    tick_ns: u64,
    whose: Own,
}

/// Whose CPU time a window takes for our own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Own {
    /// The calling thread's (the sampler's): other threads of Hercules count as others'.
    Thread,
    /// The whole process's (Hercules): only other processes' count.
    Process,
}

impl Own {
    fn cpu_ns(self) -> u64 {
        match self {
            Own::Thread => thread_cpu_ns(),
            Own::Process => process_cpu_ns(),
        }
    }
}

impl OthersLoad {
    /// Start a window over `cores` now, the sampler's own time not others'.
    pub fn start(cores: &[usize]) -> Self {
        Self::start_for(cores, Own::Thread)
    }

    /// Start a window over `cores` now, `whose` time not others'.
    pub fn start_for(cores: &[usize], whose: Own) -> Self {
        let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        OthersLoad {
            at: Instant::now(),
            busy_ticks: busy_ticks(&stat, cores),
            own_ns: whose.cpu_ns(),
            tick_ns: tick_ns(),
            whose,
        }
    }

    /// How long the window has run.
    pub fn age(&self) -> std::time::Duration {
        self.at.elapsed()
    }

    /// End the window: other processes' use of `cores` since the start, in thousandths of
    /// one core per core (None: /proc/stat not readable).
    pub fn others_permille(&self, cores: &[usize]) -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let busy = busy_ticks(&stat, cores);
        let wall = u64::try_from(self.at.elapsed().as_nanos()).unwrap_or(u64::MAX);
        Some(others(
            busy.saturating_sub(self.busy_ticks) * self.tick_ns,
            self.whose.cpu_ns().saturating_sub(self.own_ns),
            wall,
            cores.len(),
        ))
    }
}

/// Others' share, in thousandths of a core per core: the cores' busy time `busy_ns` less our
/// own `own_ns` (all of which may have run there), over `wall_ns` on `n` cores.
pub fn others(busy_ns: u64, own_ns: u64, wall_ns: u64, n: usize) -> u64 {
    let span = wall_ns.saturating_mul(n.max(1) as u64).max(1);
    busy_ns.saturating_sub(own_ns).saturating_mul(1000) / span
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  300 0 100 5000 10 0 5 7 0 0\n\
                        cpu0 100 0 50 2500 5 0 2 3 0 0\n\
                        cpu1 200 0 50 2500 5 0 3 4 0 0\n\
                        intr 12345\n";

    #[test]
    fn the_listed_cores_busy_ticks_are_summed() {
        assert_eq!(busy_ticks(STAT, &[0]), 152);
        assert_eq!(busy_ticks(STAT, &[1]), 253);
        assert_eq!(busy_ticks(STAT, &[0, 1]), 405);
        assert_eq!(busy_ticks(STAT, &[2]), 0, "no such core");
        assert_eq!(busy_ticks("cpu0 1 2\n", &[0]), 0, "short line");
    }

    #[test]
    fn our_own_time_is_not_others_load() {
        // 200 ms on one core: 150 ms busy, 140 ms of it ours.
        assert_eq!(others(150_000_000, 140_000_000, 200_000_000, 1), 50);
        // All ours: nobody else.
        assert_eq!(others(100_000_000, 120_000_000, 200_000_000, 1), 0);
        // Two cores, another process using one of them fully: half a core per core.
        assert_eq!(others(200_000_000, 0, 200_000_000, 2), 500);
    }

    #[test]
    fn a_process_window_takes_every_thread_of_ours_for_ours() {
        let w = OthersLoad::start_for(&[0], Own::Process);
        let t0 = process_cpu_ns();
        // Burn 20 ms of CPU on another thread of this process (its own CPU time, so that a
        // loaded host only makes it take longer).
        std::thread::spawn(|| {
            let start = thread_cpu_ns();
            while thread_cpu_ns() < start + 20_000_000 {}
        })
        .join()
        .ok();
        assert!(
            process_cpu_ns() >= t0 + 20_000_000,
            "another thread's time is ours"
        );
        assert!(w.others_permille(&[0]).is_some());
    }

    #[test]
    fn this_host_can_be_measured() {
        let w = OthersLoad::start(&[0]);
        // (The share of a window this short says nothing: a tick may fall into it.)
        assert!(w.others_permille(&[0]).is_some());
        assert!(w.age() < std::time::Duration::from_secs(60));
    }
}
