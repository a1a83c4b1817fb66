//! The sampler thread: it sleeps until the earliest deadline a CPU posted, confirms on the
//! CPU thread's CPU clock that the due time has come, and then either takes the basic samples
//! and accounting points itself from the running CPU (`host::remote`: the CPU's thread pays
//! nothing) or arms the CPU's opcode table so that the CPU runs its tick at its next instruction
//! boundary (the mechanism of `shared/reference/hercules-integration.md`). CPUs post their
//! deadlines with `deadline::reschedule` (or `deadline::schedule`), waking the thread only
//! when it would sleep past them.

use crate::host::clock::EARLY_NS;
use crate::host::deadline::{wake_sampler, wall_ns, ALERT_POLL_NS};
use crate::host::glue::{hcpumf_host, ArmMode};
use crate::host::meter::{bump, mono_ns};
use crate::host::panics;
use crate::host::placement::SamplerPlacement;
use crate::host::remote;
use crate::host::schedule::{SchedPrivate, SchedShared, TickSchedule};
use crate::host::services::{host, log};
use crate::host::state::{rt, Runtime, SamplerState, LATE_STEPS_US};
use crate::host::timer_duty::{self, TimerDuty};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Start the sampler thread.
pub fn start() {
    panics::install();
    let r = rt();
    r.stop.store(false, Ordering::Release);
    trouble(r, String::new());
    // Running from here (a `hcpumf status` right after the load must not find it ended);
    // the thread clears it when it ends.
    r.sampler_state.running.store(true, Ordering::Release);
    let handle = std::thread::Builder::new()
        .name("hcpumf-sampler".into())
        .spawn(supervise);
    match handle {
        Ok(h) => {
            if let Ok(mut g) = r.sampler.write() {
                *g = Some(h.thread().clone());
            }
            if let Ok(mut g) = r.sampler_join.lock() {
                *g = Some(h);
            }
            crate::host::guard::start();
        }
        Err(e) => {
            r.sampler_state.running.store(false, Ordering::Release);
            trouble(r, format!("could not start: {e}"));
            log(&format!("HHCMF090E cannot start the sampler thread: {e}"));
        }
    }
}

/// Stop and join the sampler thread; a panic that ended it (one [`supervise`] did not catch)
/// is reported.
pub fn stop() {
    let r = rt();
    r.stop.store(true, Ordering::Release);
    r.sampler_state.sleep_target.store(0, Ordering::SeqCst);
    wake_sampler(r);
    crate::host::guard::stop();
    let h = r.sampler_join.lock().ok().and_then(|mut g| g.take());
    if let Some(h) = h {
        h.thread().unpark();
        if let Err(p) = h.join() {
            log(&format!(
                "HHCMF093E hcpumf the sampler thread had ended by a panic {}",
                panics::describe(&*p)
            ));
        }
    }
    if let Ok(mut g) = r.sampler.write() {
        *g = None;
    }
}

/// What went wrong with the sampler thread last, in words, for `hcpumf status` (empty:
/// nothing).
fn trouble(r: &Runtime, what: String) {
    if let Ok(mut t) = r.sampler_state.trouble.lock() {
        *t = what;
    }
}

/// Panics of the sampler thread after which its loop is started again: the first. A second
/// ends the thread, so that a panic that recurs cannot fill the console; sampling then stops
/// on every CPU until `rmmod` and `ldmod hcpumf` start the thread afresh.
const RESTARTS: u32 = 1;

/// The sampler thread: its loop, started again after a panic (at most RESTARTS times). Each
/// panic is said on the console (HHCMF091E, HHCMF092E), and so is a loop that ends while the
/// plugin is loaded (HHCMF095E); `hcpumf status` says it again (HHCMF094E).
fn supervise() {
    let r = rt();
    let started = wall_ns();
    let returned = run_supervised(
        &mut SamplerPlacement::new(),
        sampler_loop,
        |placement, n, what| {
            let secs = wall_ns().saturating_sub(started) as f64 / 1e9;
            let what = format!("{what} ({secs:.1} s after the thread started)");
            trouble(
                r,
                match n {
                    1 => format!("ended by a panic {what}"),
                    n => format!("ended by {n} panics, the latest {what}"),
                },
            );
            let again = n <= RESTARTS && !r.stop.load(Ordering::Acquire);
            if again {
                log(&format!(
                    "HHCMF091E hcpumf the sampler thread ended by a panic {what}; started \
                     again: sampling goes on"
                ));
                // From its start state: every core it was allowed at first, its policy
                // chosen afresh (the panic may have come in the middle of a change).
                *placement = placement.afresh();
            } else {
                // Hercules' timer thread makes the TOD-clock updates again.
                if let Some(h) = host() {
                    timer_duty::give_back_timerint(h, &r.sampler_state);
                }
                log(&format!(
                    "HHCMF092E hcpumf the sampler thread ended by a panic {what}, its panic \
                     {n} since the load; not started again: sampling has stopped on every CPU \
                     (rmmod and ldmod hcpumf start it afresh)"
                ));
            }
            again
        },
    );
    if returned && !r.stop.load(Ordering::Acquire) {
        let secs = wall_ns().saturating_sub(started) as f64 / 1e9;
        trouble(
            r,
            format!("its loop ended {secs:.1} s after the thread started, not asked to stop"),
        );
        log(&format!(
            "HHCMF095E hcpumf the sampler thread's loop ended {secs:.1} s after the thread \
             started, while the plugin is loaded: sampling has stopped on every CPU (rmmod and \
             ldmod hcpumf start it afresh)"
        ));
    }
    r.sampler_state.running.store(false, Ordering::Release);
}

/// Run `body` on `state` until it returns; when it panics, call `panicked` with the state,
/// the number of panics so far and the panic in words, and run it again if that answers true.
/// True: `body` returned; false: it panicked and was not run again.
fn run_supervised<S>(
    state: &mut S,
    mut body: impl FnMut(&mut S),
    mut panicked: impl FnMut(&mut S, u32, String) -> bool,
) -> bool {
    let mut n = 0;
    loop {
        match catch_unwind(AssertUnwindSafe(|| body(state))) {
            Ok(()) => return true,
            Err(p) => {
                n += 1;
                if !panicked(state, n, panics::describe(&*p)) {
                    return false;
                }
            }
        }
    }
}

fn sampler_loop(placement: &mut SamplerPlacement) {
    // Ask the kernel for precise wake-ups: the default 50 us timer slack would smear
    // intervals at high sampling rates.
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0u64, 0u64, 0u64) };
    let r = rt();
    r.sampler_state
        .tid
        .store(crate::host::deadline::thread_id(), Ordering::Relaxed);
    let st = &r.sampler_state;
    let mut pass = wall_ns();
    // The last wait was spun (see SPIN_NS).
    let mut spun = false;
    let mut duty = TimerDuty::new();
    while !r.stop.load(Ordering::Acquire) {
        // For the guard (`host::guard`): the sampler runs.
        st.beat.store(pass, Ordering::Release);
        placement.review(r);
        // Scanning: CPUs that post deadlines now are seen by the scan below or by the
        // re-scan after the sleep target is published; a CPU whose deadline the re-scan
        // misses sees the published target and unparks us (SeqCst on both sides), and an
        // unpark that comes before the park makes the park return at once.
        r.sampler_state.sleep_target.store(0, Ordering::SeqCst);
        st.woken_for.store(u64::MAX, Ordering::Relaxed);
        let now = wall_ns();
        let (mut next, not_yet) = scan(r, now);
        r.sampler_state.sleep_target.store(next, Ordering::SeqCst);
        next = next.min(earliest(r));
        let now2 = wall_ns();
        // How long this pass kept the sampler from the CPUs' deadlines.
        let held = now2.saturating_sub(pass);
        if held > st.pass_max.load(Ordering::Relaxed) {
            st.pass_max.store(held, Ordering::Relaxed);
        }
        stall(st, held);
        if let Some(h) = host() {
            duty.pass(h, st, now2, placement.may_spin());
        }
        // At the latest when Hercules' timer thread would have updated its clock, while the
        // sampler makes those updates.
        let cap = duty.longest_sleep(st, now2).map(|d| now2 + d);
        let forced = cap.is_some_and(|c| c < next);
        if let Some(c) = cap.filter(|_| forced) {
            next = c;
        }
        // A spin that found the CPU not yet due (its thread did not run: it may share the
        // sampler's core) is not repeated at once: the sampler sleeps and lets it run.
        let spin = next > now2
            && next - now2 <= SPIN_NS
            && !(spun && not_yet)
            && placement.may_spin()
            && catching_up_at(r, next);
        spun = spin;
        if next > now2 && !r.stop.load(Ordering::Acquire) {
            r.sampler_state.sleep_target.store(next, Ordering::SeqCst);
            remote::pass_ends();
            if !forced {
                duty.own_wake();
            }
            if spin {
                bump(&st.spins, 1);
                // A CPU that posts an earlier deadline clears the sleep target (and unparks
                // the thread, whose next park then returns at once).
                while wall_ns() < next
                    && st.sleep_target.load(Ordering::SeqCst) != 0
                    && !r.stop.load(Ordering::Relaxed)
                {
                    std::hint::spin_loop();
                }
                pass = wall_ns();
                continue;
            }
            std::thread::park_timeout(Duration::from_nanos(next - now2));
            let woke = wall_ns();
            st.beat.store(woke, Ordering::Release);
            let late = lateness(woke, next, st.woken_for.load(Ordering::Relaxed), now2);
            bump(&st.sleeps, 1);
            if late > st.oversleep_max.load(Ordering::Relaxed) {
                st.oversleep_max.store(late, Ordering::Relaxed);
            }
            stall(st, late);
            placement.woke(late);
        }
        pass = wall_ns();
    }
    if let Some(h) = host() {
        duty.end(h, st, wall_ns);
    }
}

/// How late the sampler woke at `woke`, having gone to sleep at `slept` until `next`: after
/// that, or after the deadline `woken_for` of a CPU that woke it earlier (u64::MAX: none),
/// whichever came first. A sampler the host does not run once a CPU woke it leaves that CPU
/// unsampled from its deadline on, however far its own target lay. Never counting the time
/// before it went to sleep (the pass's own, counted as held up).
fn lateness(woke: u64, next: u64, woken_for: u64, slept: u64) -> u64 {
    woke.saturating_sub(next.min(woken_for).max(slept))
}

/// Count a late wake-up, or a pass that took long, of `ns` by the steps it exceeds, and its
/// time when it exceeds the first.
fn stall(st: &SamplerState, ns: u64) {
    for (n, us) in st.stalls.iter().zip(LATE_STEPS_US) {
        if ns > us * 1000 {
            bump(n, 1);
        }
    }
    if ns > LATE_STEPS_US[0] * 1000 {
        bump(&st.stalled_ns, ns);
    }
}

/// A wait of at most this long for a CPU whose sampling clock is catching up is spun, not
/// slept. The clock then asks for a sample a quarter interval after the last (12.5 us at
/// the maximum rate, 18.75 at 13,333/s), and a timed sleep that short comes back 20-40 us
/// late on a virtual machine, with its own 15-20 us of the sampler's CPU (`scripts/bench-wake.sh`):
/// catching up then took a sample every 45-55 us, no faster than the 50-us interval itself,
/// so a CPU 3 ms behind stayed behind until a late wake-up took it past MAX_CATCH_UP and its
/// intervals were missed (SDL Hyperion, `sampling_attribution`: 433 of 8,016 in one run).
/// Spun, the wait costs at most this long, no more than the wake-up it saves.
const SPIN_NS: u64 = 20_000;

/// Is the deadline `at` (the earliest) that of a CPU whose clock is catching up?
fn catching_up_at(r: &Runtime, at: u64) -> bool {
    r.cpus.iter().any(|st| {
        let s = &st.schedule.shared;
        s.catching_up.load(Ordering::Relaxed) && s.wall_deadline.load(Ordering::SeqCst) <= at
    })
}

/// The earliest deadline any CPU has posted.
fn earliest(r: &Runtime) -> u64 {
    r.cpus
        .iter()
        .map(|st| st.schedule.shared.wall_deadline.load(Ordering::SeqCst))
        .min()
        .unwrap_or(u64::MAX)
}

/// A CPU armed because its thread's time stood still is first looked at again 2^this quarter
/// intervals on (4 intervals), then twice as late each time its thread still has not run.
/// Its predicted arming traps the instruction at its instruction pointer, which its thread
/// executes first when the host runs it again, so that looks before then only cost wake-ups:
/// with 4 CPUs on 2 host cores, looking again a quarter interval on (as at a fresh arming of
/// a running CPU) made 40% of the sampler's wake-ups (docs/benchmarks.md, 2026-11-27 05:00).
/// A thread that runs without meeting its armed entries is escalated at that look, and the
/// intervals it ran meanwhile are caught up.
const STOOD_STILL_LOOKS: u32 = 4;

/// What the sampler does about a CPU whose wall-clock deadline came.
enum DueCheck {
    /// Its CPU time has not reached the due time while its thread runs: look again then.
    Wait(u64),
    /// Arm it, handing the tick the CPU time read just before (None: not read, and the
    /// tick reads its own).
    Arm(Option<u64>),
    /// Arm it, its thread's time having stood still since the sampler's last look (it
    /// waits, is stopped or the host does not run it): the tick reads its own time.
    Stale,
}

/// A CPU's wall-clock deadline came: confirm on its thread's CPU clock (read from here, so
/// that the CPU thread makes no system call for it) that its clocks' due time has come, and
/// hand the reading to the tick. The time has not come when the host did not run the thread
/// all the time since the deadline was set; a thread whose time stands still (it waits, is
/// stopped or was preempted) is armed, so that its first instruction ticks and reads its own
/// time.
fn confirm_due(h: &hcpumf_host, cpu: u16, sh: &SchedShared, own: &SchedPrivate) -> DueCheck {
    // The clocks take a tick as due that far before the due time: their early window, but
    // never before a clock's spacing limit (its tick or remote sample would be refused, and
    // the CPU, armed or looked at again for nothing, could go unsampled for milliseconds).
    let early = u64::from(sh.accept_gap_ns.load(Ordering::Relaxed));
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
    } else if c.saturating_add(early) >= due {
        // A stale reading left by an earlier arming is harmless: the tick checks its age.
        sh.armed_mono_ns.store(mono_ns(), Ordering::Relaxed);
        sh.armed_cpu_ns.store(c, Ordering::Release);
        DueCheck::Arm(Some(c))
    } else if c != seen {
        DueCheck::Wait(due - c)
    } else {
        DueCheck::Stale
    }
}

/// CPU time a CPU's thread must have run before the sampler takes it for running (a reading
/// of its clock differs by a few microseconds from one that stood still: the read itself).
const RAN_NS: u64 = 5_000;

/// CPU `cpu`'s thread's CPU time now (None: the glue cannot read it; 0: the CPU is offline).
fn thread_cpu_ns(h: &hcpumf_host, cpu: usize) -> Option<u64> {
    // SAFETY: the glue reads the clock of the CPU's thread under the CPU's lock and returns 0
    // when the CPU is offline.
    h.thread_cputime_ns.map(|read| unsafe { read(cpu as u16) })
}

/// Has the CPU's thread run (RAN_NS of CPU time or more) since the sampler armed it, its time
/// being `now`? Without a reading of its clock at the arming, or now, assume it has.
fn ran_since_armed(now: Option<u64>, s: &TickSchedule) -> bool {
    let seen = s.private.seen_cpu_ns.load(Ordering::Relaxed);
    match now {
        Some(now) if seen != 0 => now > seen + RAN_NS,
        _ => true,
    }
}

/// How much CPU time a CPU's thread may run with every opcode-table entry trapped and still
/// not tick before the arming counts as lost (an instruction of the guest is far shorter;
/// Hercules' own synchronous work on the thread, I/O, can be longer, and then the re-arming
/// is merely redundant).
const LOST_ARMING_NS: u64 = 2_000_000;

/// A full arming is in place: has the CPU's thread run LOST_ARMING_NS since it was made
/// without ticking, its time being `now`? Then something put the entries back without a tick
/// (the CPU would otherwise never sample again), and the arming is made again.
fn full_arming_lost(now: Option<u64>, s: &TickSchedule) -> bool {
    let at = s.private.escalated_cpu_ns.load(Ordering::Relaxed);
    let now = now.unwrap_or(0);
    if now == 0 {
        return false;
    }
    if at == 0 {
        s.private.escalated_cpu_ns.store(now, Ordering::Relaxed);
        return false;
    }
    if now > at + LOST_ARMING_NS {
        s.private.escalated_cpu_ns.store(now, Ordering::Relaxed);
        return true;
    }
    false
}

/// Arm the CPUs whose deadline has come; return when to look again. A wake-up that arms one
/// CPU also arms those whose deadline is less than EARLY_NS away, which the sampling clocks
/// take as due: with several CPUs sampling, one wake-up (~15-20 us of CPU on a virtual machine)
/// then serves several samples.
fn scan(r: &Runtime, now: u64) -> (u64, bool) {
    let mut next = now + 100_000_000;
    // A CPU catching up whose deadline came before its CPU time reached the due time.
    let mut not_yet = false;
    let Some(h) = host() else {
        return (next, not_yet);
    };
    let horizon = if earliest(r) <= now {
        now + EARLY_NS
    } else {
        now
    };
    for (i, st) in r.cpus.iter().enumerate() {
        let s = &st.schedule;
        let d = s.shared.wall_deadline.load(Ordering::SeqCst);
        if d == u64::MAX {
            continue;
        }
        if d > horizon {
            next = next.min(d);
            continue;
        }
        // A dedicated CPU in the wait state: its wait samples are stored from here, and
        // there is no instruction to arm for (a pending alert is presented to the waiting
        // CPU directly).
        if crate::host::model::current().dedicated && remote::dedicated(h, i as u16, st) {
            if !st.alerts.pending().is_empty() {
                if let Some(kick) = h.kick_waiting {
                    // SAFETY: the glue checks the CPU under the interrupt lock.
                    unsafe { kick(i as u16) };
                }
            }
            next = next.min(s.shared.wall_deadline.load(Ordering::SeqCst));
            continue;
        }
        let mut read = None;
        let mut stood_still = false;
        if !s.shared.armed.load(Ordering::Acquire) && st.alerts.pending().is_empty() {
            match confirm_due(h, i as u16, &s.shared, &s.private) {
                DueCheck::Wait(wait) => {
                    not_yet |= s.shared.catching_up.load(Ordering::Relaxed);
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
                DueCheck::Stale => stood_still = true,
            }
        }
        // A running CPU whose due tick would only take basic samples or make an accounting
        // point: do it from here, and the CPU's thread pays nothing for it.
        if let Some(c) = read {
            // Otherwise (declined, or it raised an alert the tick must present) arm below.
            if remote::sample(h, i as u16, st, c) && st.alerts.pending().is_empty() {
                s.private.stale_looks.store(0, Ordering::Relaxed);
                next = next.min(s.shared.wall_deadline.load(Ordering::SeqCst));
                continue;
            }
        }
        let already = s.shared.armed.swap(true, Ordering::AcqRel);
        // Still armed: the CPU's thread time now, read once for this look.
        let now_c = if already { thread_cpu_ns(h, i) } else { None };
        if !already {
            s.private.escalated.store(false, Ordering::Relaxed);
            s.private.escalated_cpu_ns.store(0, Ordering::Relaxed);
            s.private
                .looked_cpu_ns
                .store(read.unwrap_or(0), Ordering::Relaxed);
            // Predicted: only the entries of the instructions the CPU is executing.
            // SAFETY: the glue arms under the CPU's lock and checks it is online.
            let ok = h
                .arm
                .map(|a| unsafe { a(i as u16, ArmMode::HCPUMF_ARM_PREDICTED) } == 0)
                .unwrap_or(false);
            if !ok {
                // Offline CPU, or the previous arming not yet consumed.
                s.shared.armed.store(false, Ordering::Release);
            }
        } else if !s.private.escalated.load(Ordering::Relaxed) && ran_since_armed(now_c, s) {
            // The CPU ran on without meeting a predicted entry: arm every entry, so that its
            // next instruction ticks. (A CPU that waits, is stopped or whose thread the host
            // did not run keeps the predicted arming.)
            if let Some(a) = h.arm {
                s.private.escalated.store(true, Ordering::Relaxed);
                bump(&s.private.escalations, 1);
                // SAFETY: as above.
                unsafe { a(i as u16, ArmMode::HCPUMF_ARM_EVERY) };
            }
        } else if s.private.escalated.load(Ordering::Relaxed) && full_arming_lost(now_c, s) {
            if let Some(a) = h.arm {
                bump(&s.private.rearms, 1);
                // SAFETY: as above.
                unsafe { a(i as u16, ArmMode::HCPUMF_ARM_AGAIN) };
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
        // time it is still armed and its thread has not run since the last look, up to 10
        // ms: its tick, when it comes soon, then still need not wake us, and a waiting CPU
        // costs few wake-ups. A thread that ran and still has not ticked has an arming that
        // does not work (escalated above, made again when lost): backing off from it would
        // leave the CPU unsampled for up to 10 ms, and carry that into its next activation
        // (issue 21), so it is looked at again a quarter period on.
        let hint = s.shared.period_hint.load(Ordering::Relaxed);
        let stale = if already {
            let now_c = now_c.unwrap_or(0);
            let looked = s.private.looked_cpu_ns.swap(now_c, Ordering::Relaxed);
            if now_c != 0 && looked != 0 && now_c > looked + RAN_NS {
                s.private.stale_looks.store(0, Ordering::Relaxed);
                0
            } else {
                s.private
                    .stale_looks
                    .fetch_add(1, Ordering::Relaxed)
                    .min(16)
            }
        } else if stood_still {
            s.private
                .stale_looks
                .store(STOOD_STILL_LOOKS + 1, Ordering::Relaxed);
            STOOD_STILL_LOOKS
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
    (next, not_yet)
}

#[cfg(test)]
mod tests;
