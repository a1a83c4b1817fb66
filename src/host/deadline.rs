//! Deadlines: how CPUs tell the sampler thread (`host::sampler`) when they next need it, in
//! wall time since the plugin's epoch, and the constants both sides agree on. Kept apart
//! from the sampler's loop so that what the sampler calls (`host::remote`, through it the
//! tick's sampling) can post deadlines without importing the loop.

use crate::host::clock::early_window;
use crate::host::meter::mono_ns;
use crate::host::state::{cpu, rt, Runtime};
use std::sync::atomic::Ordering;

/// Nanoseconds since the sampler epoch.
pub fn wall_ns() -> u64 {
    wall_of(mono_ns())
}

/// The wall time (ns since the sampler epoch) of a monotonic-clock reading.
pub fn wall_of(mono: u64) -> u64 {
    mono.saturating_sub(rt().epoch_mono_ns)
}

/// How often a CPU with a masked pending alert is looked at again.
pub const ALERT_POLL_NS: u64 = 1_000_000;

/// A deadline at most this much before the sampler's planned wake-up does not wake it: it
/// comes that much late (the sampling clocks learn such lateness and ask earlier), and the
/// CPU thread makes no system call. The sampler plans its wake-up for a CPU's next
/// deadline from the CPU's posted follow-on due time, which the deadline the tick then
/// posts misses by the few microseconds between the sampler's clock reading and the tick.
pub const WAKE_TOLERANCE_NS: u64 = 10_000;

/// Ask the sampler to arm `cpu` at wall time `deadline`. The sampler is only woken when
/// it would otherwise sleep past the deadline: in steady sampling it already expects the
/// CPU's next tick (see `sampler_loop`), so the CPU thread makes no system call here.
pub fn schedule(cpu_no: u16, deadline: u64) {
    let Some(st) = cpu(cpu_no) else { return };
    st.schedule
        .shared
        .wall_deadline
        .store(deadline, Ordering::SeqCst);
    let r = rt();
    if deadline.saturating_add(WAKE_TOLERANCE_NS)
        < r.sampler_state.sleep_target.load(Ordering::SeqCst)
    {
        r.sampler_state
            .woken_for
            .fetch_min(deadline, Ordering::Relaxed);
        r.sampler_state.sleep_target.store(0, Ordering::SeqCst);
        wake_sampler(r);
    }
}

/// Unpark the sampler thread (its next park returns at once if it is not parked yet).
pub fn wake_sampler(r: &Runtime) {
    if let Ok(g) = r.sampler.read() {
        if let Some(t) = g.as_ref() {
            t.unpark();
        }
    }
}

/// Work out when `cpu` next needs a tick and tell the sampler.
pub fn reschedule(cpu_no: u16, now_cpu_ns: u64) {
    reschedule_at(cpu_no, now_cpu_ns, wall_ns());
}

/// [`reschedule`] with the wall time `wall` (the tick has just read the clock).
pub fn reschedule_at(cpu_no: u16, now_cpu_ns: u64, wall: u64) {
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
    // Where the clocks take a tick as due: the sampler's test (`confirm_due`). An accounting
    // point keeps the early window of the shortest period.
    let mut accept = u64::MAX;
    for a in [s.guest.accept_at(), s.host.accept_at()] {
        if a != 0 {
            accept = accept.min(a);
        }
    }
    let acc = s.next_account_ns.load(Ordering::Relaxed);
    if acc != 0 && hint != u64::MAX {
        accept = accept.min(acc.saturating_sub(early_window(hint)));
    }
    let gap = if due == u64::MAX || accept == u64::MAX {
        0
    } else {
        due.saturating_sub(accept)
    };
    s.shared
        .accept_gap_ns
        .store(u32::try_from(gap).unwrap_or(u32::MAX), Ordering::Relaxed);
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
    s.shared.catching_up.store(
        s.guest.catching_up(now_cpu_ns) || s.host.catching_up(now_cpu_ns),
        Ordering::Relaxed,
    );
    s.shared.follow_cpu_ns.store(
        if follow == u64::MAX { 0 } else { follow },
        Ordering::Relaxed,
    );
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

/// [`reschedule_at`] for a dedicated CPU in the wait state, its CPU time standing at
/// `now_cpu_ns`: the sampler looks at it again when its next wait sample is due (in wall
/// time, which the wait turns into sampling time), or sooner for a pending alert. An
/// accounting point is not made while the CPU waits (its CPU time does not reach it): one
/// that is due must not bring the sampler back at once, again and again.
pub fn reschedule_waiting(cpu_no: u16, now_cpu_ns: u64, wall: u64) {
    reschedule_at(cpu_no, now_cpu_ns, wall);
    let Some(st) = cpu(cpu_no) else { return };
    let s = &st.schedule;
    let due = [s.guest.wake_at(), s.host.wake_at()]
        .into_iter()
        .filter(|&d| d != 0)
        .min();
    // Without a running clock the CPU is looked at again as a waiting CPU is (10 ms).
    let mut deadline = due.map_or(wall.saturating_add(10_000_000), |d| {
        wall.saturating_add(d.saturating_sub(now_cpu_ns))
    });
    if !st.alerts.pending().is_empty() {
        deadline = deadline.min(wall + ALERT_POLL_NS);
    }
    schedule(cpu_no, deadline);
}

/// The host core the calling thread runs on (u32::MAX if unknown).
pub fn host_core() -> u32 {
    // SAFETY: sched_getcpu takes no arguments (a vDSO call); it returns -1 on failure.
    let c = unsafe { libc::sched_getcpu() };
    u32::try_from(c).unwrap_or(u32::MAX)
}

/// The calling thread's Linux thread id (a system call once per thread).
pub fn thread_id() -> u32 {
    thread_local! {
        static TID: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    TID.with(|t| {
        if t.get() == 0 {
            // SAFETY: gettid takes no arguments and cannot fail.
            let id = unsafe { libc::syscall(libc::SYS_gettid) };
            t.set(u32::try_from(id).unwrap_or(0));
        }
        t.get()
    })
}
