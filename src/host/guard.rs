//! The sampler's guard: a thread that raises the sampler above the CPU threads when it
//! cannot run.
//!
//! Where Hercules' CPU threads are real-time (SDL Hyperion run as root) and leave a core
//! free, the sampler runs just below them (`host::placement`): it then never preempts a CPU
//! thread, which costs that thread a migration at every wake-up. Below them it cannot run
//! while real-time threads fill every core (a CPU that starts working, another real-time
//! process), and a thread that cannot run cannot notice it. The guard can: it sleeps
//! GUARD_PERIOD at a time, above the CPU threads, while the sampler is below them (and
//! sleeps without end otherwise), and when the sampler is more than STARVED_NS past the
//! wake-up it asked for, and still has not run when the guard has slept CONFIRM to make way
//! for it, raises it above them. The sampler then holds that priority for a while
//! (`SamplerPlacement::hold_above`). One found asleep that late, or run as soon as the guard
//! made way, was held by the host, not starved: the guard lets it be (and wakes one
//! asleep). `hcpumf status` counts both.

use crate::host::deadline::{wake_sampler, wall_ns};
use crate::host::meter::bump;
use crate::host::placement::{runnable, set_affinity};
use crate::host::state::rt;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// How often the guard looks while the sampler is below the CPU threads (50 wake-ups a
/// second, each a few microseconds). Every 5 ms it raised a starved sampler within about
/// the 64 intervals the CPUs' clocks catch up, which kept more samples where two Hyperion
/// runs as root filled the cores (0.90-1.00 of a region's intervals sampled against
/// 0.73-0.95), but it also caught passing starvations of a few milliseconds on a quiet
/// host, each holding the sampler above the CPU thread for a second: bench-ab at 20,000/s
/// 0.9698 against 0.9909 (docs/benchmarks.md, 2026-11-27).
const GUARD_PERIOD: Duration = Duration::from_millis(20);
/// A sampler this late (past the later of its last wake-up and the wake-up it asked for) is
/// starved, if it has still not run when the guard has made way for CONFIRM.
const STARVED_NS: u64 = 2_000_000;
/// How long the guard makes way for a late sampler before it raises it: a sampler waiting
/// only for its core to come back from the host runs within it.
const CONFIRM: Duration = Duration::from_micros(300);

/// Start the guard thread (with the sampler).
pub fn start() {
    let r = rt();
    match std::thread::Builder::new()
        .name("hcpumf-guard".into())
        .spawn(|| {
            // No panic may end the plugin's threads silently: the guard says so and ends
            // (the sampler then stays where it is).
            if let Err(p) = std::panic::catch_unwind(guard_loop) {
                crate::host::services::log(&format!(
                    "HHCMF097E hcpumf the sampler's guard thread ended by a panic {}",
                    crate::host::panics::describe(&*p)
                ));
            }
        }) {
        Ok(h) => {
            if let Ok(mut g) = r.guard.lock() {
                *g = Some(h);
            }
        }
        Err(e) => crate::host::services::log(&format!(
            "HHCMF096W hcpumf cannot start the sampler's guard thread ({e}): the sampler \
             stays above real-time CPU threads"
        )),
    }
}

/// Stop and join the guard thread (after the sampler's stop flag is set).
pub fn stop() {
    let r = rt();
    let h = r.guard.lock().ok().and_then(|mut g| g.take());
    if let Some(h) = h {
        h.thread().unpark();
        let _ = h.join();
    }
}

fn guard_loop() {
    let r = rt();
    let st = &r.sampler_state;
    let mut priority = 0;
    let mut core = u32::MAX;
    while !r.stop.load(Ordering::Acquire) {
        if !st.below.load(Ordering::Acquire) {
            std::thread::park_timeout(Duration::from_secs(1));
            continue;
        }
        let want = st.rescue_priority.load(Ordering::Relaxed);
        if want != priority {
            priority = if set_fifo(0, want) { want } else { 0 };
        }
        let c = st.guard_core.load(Ordering::Relaxed);
        if c != core && c != u32::MAX && set_affinity(&[c as usize]) {
            core = c;
        }
        std::thread::park_timeout(GUARD_PERIOD);
        if !st.below.load(Ordering::Acquire) || r.stop.load(Ordering::Acquire) {
            continue;
        }
        let since = st
            .beat
            .load(Ordering::Acquire)
            .max(st.sleep_target.load(Ordering::SeqCst));
        let tid = st.tid.load(Ordering::Relaxed);
        if tid == 0 || wall_ns() <= since.saturating_add(STARVED_NS) {
            continue;
        }
        // Late is not always starved. Asleep past its wake-up, the sampler was woken late by
        // the host; runnable but run as soon as the guard makes way, it was waiting for its
        // core to come back from the host (a virtual machine's idle vCPU, descheduled by the
        // hypervisor, runs the guard's timer, then the sampler: seen on the development VM
        // at the start of bench-ab's B phases, the CPU thread running on the other core). A
        // priority above the CPU threads would have made neither earlier; it only costs the
        // CPU thread a migration at every wake-up for the hold a rescue starts
        // (docs/benchmarks.md, 2026-11-28 13:36). Only a sampler still not run after the
        // guard has slept CONFIRM is starved by threads above it.
        if runnable(tid) == Some(false) {
            wake_sampler(r);
            bump(&st.guard_passes, 1);
            continue;
        }
        let beat = st.beat.load(Ordering::Acquire);
        std::thread::sleep(CONFIRM);
        if st.beat.load(Ordering::Acquire) != beat || !st.below.load(Ordering::Acquire) {
            bump(&st.guard_passes, 1);
        } else if set_fifo(tid, want) {
            st.below.store(false, Ordering::Release);
            st.rescued.store(true, Ordering::Release);
            bump(&st.rescues, 1);
        }
    }
}

/// SCHED_FIFO at `priority` for thread `tid` (0: the calling thread). False when refused.
fn set_fifo(tid: u32, priority: i32) -> bool {
    if priority < 1 {
        return false;
    }
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: changes the scheduling policy of a thread of this process (or of the calling
    // thread for tid 0); `param` outlives the call.
    let rc = unsafe { libc::sched_setscheduler(tid as libc::pid_t, libc::SCHED_FIFO, &param) };
    rc == 0
}
