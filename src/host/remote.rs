//! Basic samples taken by the sampler thread from outside a running CPU, without stopping it
//! (the guest's, LSCTL, and a HIS run's), and accounting points made the same way.
//!
//! A basic-sampling data entry (SA23-2260, "Basic-Sampling Data Entry", Figure 2-17)
//! describes the instruction the CPU is executing and a few PSW and control-register fields.
//! All of them can be read from the CPU's registers while its thread runs on (the glue's
//! `peek`), so when basic samples are all a due tick would take, the sampler stores the
//! entries itself: the guest's with the sample-data-block update process in guest storage,
//! a HIS run's into the run's block (with the program parameter MVS awareness reads). The
//! CPU's thread then pays nothing for the sample: no opcode table rewritten from another
//! core, no trap, no tick (`scripts/bench-cost.sh` measures the difference).
//!
//! Problem-state accounting points (the counters' split of instructions and cycles between
//! the problem and the supervisor state, `host::meter`) are made from here too: Hercules'
//! counts and the PSW's P bit, read together.
//!
//! Everything else still goes through the tick on the CPU's own thread: diagnostic entries
//! (they describe the instruction's text and the CPU's measurements at a boundary),
//! presenting a measurement alert, a CPU that waits or is stopped, and a CPU that executed
//! nothing since the last sample (the clock's rule that no two samples describe the same
//! instruction). One sample in
//! [`TICK_EVERY`] also goes through the tick, so that the CPU's meter folds Hercules' counts
//! and the sampler learns the core the CPU thread runs on.
//!
//! While the sampler stores a sample it holds the CPU (`host::exclusive`): the CPU's own
//! LOAD SAMPLING CONTROLS, QUERY SAMPLING INFORMATION, resets and ticks wait for it.
//!
//! Dedicated CPUs (`dedicated=yes`, [`dedicated`]): a CPU in the wait state has no thread
//! running to tick, so the samples of its wait (W = 1) are stored from here too, one per
//! interval of wall time it waits.

use crate::host::clock::{SampleClock, MAX_CATCH_UP};
use crate::host::deadline::{reschedule_at, reschedule_waiting, wall_ns};
use crate::host::glue::{hcpumf_host, hcpumf_peek, hcpumf_wait_peek};
use crate::host::meter::{bump, RawCounts};
use crate::host::run;
use crate::host::services::tod_now;
use crate::host::state::CpuState;
use crate::host::tick::{count_missed, guest_sample, store_guest_entry, update_accounting};
use hcpumf_arch::cpu::{Arch, CpuView, MeterReading};
use hcpumf_arch::sampling::SamplingControls;
use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::sync::OnceLock;

/// Was the sampler thread held up since its last pass (its run delay, the time it was
/// runnable but waited for a core, grew)? Then the accounting point due now is not made but
/// put off to a fresh jittered time. What holds the sampler up is a thread of higher priority
/// on its core, and on SDL Hyperion run as root, with the sampler below the CPU threads
/// (`host::placement`), that is Hercules' timer thread, which makes a due CPU-timer or
/// clock-comparator interruption pending as it runs: a point made right after it falls just
/// after the switch into the supervisor state more often than chance, and the even split of
/// the interval it ends gives the supervisor state half of it. Measured with 1,700-2,100
/// CPU-timer interruptions a second (`counter_accuracy`, interruption-driven): the problem
/// state 0.017-0.018 low with every such point made, within 0.0012 with them put off (about
/// 3 in 10 were). Points must fall at times that do not depend on the CPU's state.
fn held_up() -> bool {
    match (run_delay_ns(), RUN_DELAY_AT_PASS_END.with(Cell::get)) {
        (Some(now), Some(then)) => now.saturating_sub(then) > HELD_UP_NS,
        _ => false,
    }
}

/// More run delay than this since the last pass, and the sampler was held up. A wake-up on a
/// free core has some (1-2 us measured, under Hercules 3.13, whose threads are ordinary and
/// never hold up the real-time sampler); Hyperion's timer thread, run first on the
/// sampler's core, gives 5-50 us.
const HELD_UP_NS: u64 = 5_000;

thread_local! {
    /// The sampler thread's own schedstat, kept open (a read costs ~1 us).
    static SCHEDSTAT: Option<std::fs::File> = std::fs::File::open("/proc/thread-self/schedstat").ok();
    /// Its run delay when its last pass ended.
    static RUN_DELAY_AT_PASS_END: Cell<Option<u64>> = const { Cell::new(None) };
}

/// The calling thread's run delay: the time it has been runnable but waited for a core
/// (the second field of its schedstat; None when the kernel does not keep it).
fn run_delay_ns() -> Option<u64> {
    use std::os::unix::fs::FileExt;
    SCHEDSTAT.with(|f| {
        let f = f.as_ref()?;
        let mut buf = [0u8; 96];
        let n = f.read_at(&mut buf, 0).ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        text.split_whitespace().nth(1)?.parse::<u64>().ok()
    })
}

/// The sampler thread's pass ends (it is about to sleep): later points compare its run
/// delay with now.
pub fn pass_ends() {
    RUN_DELAY_AT_PASS_END.with(|c| c.set(run_delay_ns()));
}

/// An accounting point is put off at most this many times in a row ([`held_up`]).
const PUT_OFF_MAX: u32 = 3;

/// One sample in this many goes through the tick on the CPU's own thread.
pub const TICK_EVERY: u32 = 512;

/// Remote samples are on unless `HCPUMF_SAMPLE_REMOTE=0` is in Hercules' environment (every
/// sample then goes through the tick, for comparison).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("HCPUMF_SAMPLE_REMOTE").map_or(true, |v| v.trim() != "0"))
}

/// What a tick of this CPU would do at CPU time `cpu_ns`, when the sampler can do all of
/// it from outside; None when the tick is needed (a diagnostic entry, a pending alert) or
/// nothing is due.
fn due_outside(st: &CpuState, cpu_ns: u64) -> Option<Due> {
    let s = &st.schedule;
    let due = |c: &SampleClock| c.running() && c.accept_at() <= cpu_ns;
    let c = st.sampling.controls();
    let guest = due(&s.guest);
    let run = due(&s.host);
    let account = s.next_account_ns.load(Ordering::Relaxed);
    let account = account != 0 && account <= cpu_ns;
    let ok = (guest || run || account)
        && (!guest || (c.contains(SamplingControls::CS) && !c.contains(SamplingControls::CD)))
        && (!run || !s.host_diagnostic.load(Ordering::Relaxed))
        && st.alerts.pending().is_empty();
    ok.then_some(Due {
        guest,
        run,
        account,
    })
}

/// What is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Due {
    /// The guest's sample (LSCTL).
    guest: bool,
    /// A HIS run's sample.
    run: bool,
    /// A problem-state accounting point.
    account: bool,
}

/// Take CPU `cpu`'s due samples (and make its due accounting point) from the sampler thread,
/// its thread's CPU time being `cpu_ns` (just read). True when done and the CPU's next
/// deadline posted (a measurement alert it raised is still the tick's to present); false
/// when not for here: arm the CPU as before.
pub fn sample(h: &hcpumf_host, cpu: u16, st: &CpuState, cpu_ns: u64) -> bool {
    let private = &st.schedule.private;
    if !enabled() {
        return false;
    }
    let Some(first) = due_outside(st, cpu_ns) else {
        return false;
    };
    if private.remote_streak.load(Ordering::Relaxed) >= TICK_EVERY {
        private.remote_streak.store(0, Ordering::Relaxed);
        return false;
    }
    let Some(peek) = h.peek else {
        return false;
    };
    let points = st.meter.points();
    let loads = st.program_parameter.changes();
    let mut p = hcpumf_peek::default();
    // The timer state (a read of Hercules' clock, under its TOD lock) only where a point can
    // use it.
    let timers = first.account
        && crate::host::state::rt()
            .sampler_state
            .interruption_follows(true);
    // SAFETY: the glue reads the CPU's registers under the CPU's lock and fills `p`, which
    // outlives the call.
    if unsafe { peek(cpu, i32::from(timers), &mut p) } == 0 {
        return false;
    }
    let Some(_held) = st.exclusive.try_take() else {
        return false;
    };
    // A LOAD PROGRAM PARAMETER between the peek and now (z/OS's dispatcher loads one for
    // each work unit it dispatches; Linux keeps the task's pid there): the entry would pair
    // the registers from before it with the parameter from after it. The tick takes it.
    if st.program_parameter.changes() != loads {
        return false;
    }
    // Again, now that the CPU's own thread cannot change it.
    let Some(due) = due_outside(st, cpu_ns) else {
        return false;
    };
    if due.account && !first.account {
        // The peek did not read `timer_due`: the tick makes this point.
        return false;
    }
    // A HIS run's program parameter (MVS awareness) comes from the PSA, read now, after the
    // peek read the registers while the CPU ran on: if it switched address spaces in
    // between, the PSA names the next one, and the sample would go to the wrong job (seen
    // beside another Hercules run as root, which held this thread up: 39% of the samples
    // for a job with 30% of the work). The tick, on the CPU's own thread, takes it instead.
    let run_gpp = if due.run {
        let regs = CpuView {
            cpu,
            arch: Arch::from_u32(u32::from(p.arch)),
            dat: p.dat != 0,
            cr0: p.cr0,
            cr4: p.cr4,
            ..CpuView::default()
        };
        let Some(gpp) = run::program_parameter_checked(st, &regs, p.prefix, p.cr1) else {
            bump(&private.space_switches, 1);
            return false;
        };
        Some(gpp)
    } else {
        None
    };
    let s = &st.schedule;
    // Put off to a fresh jittered time (not made by the tick either: that would be now) when
    // the sampler was held up, at most PUT_OFF_MAX times in a row: a sampler held up at
    // every pass (a host whose cores are full) still makes the CPU's points.
    let account =
        due.account && (private.put_off.load(Ordering::Relaxed) >= PUT_OFF_MAX || !held_up());
    if due.account && !account {
        bump(&private.held_up_points, 1);
        private.put_off.fetch_add(1, Ordering::Relaxed);
        let d = s.jitter(st.meter.account_period(cpu_ns));
        s.next_account_ns.store(cpu_ns + d, Ordering::Relaxed);
    } else if account {
        private.put_off.store(0, Ordering::Relaxed);
    }
    let instructions = if account {
        // The accounting point, as the tick makes it (`tick::tick`): Hercules' counts and
        // the PSW's problem-state bit at this moment, the next point a jittered period on.
        let raw = RawCounts {
            instcount: p.instcount,
            prevcount: p.prevcount,
            waitsig: 0,
        };
        // Not from a reading older than the last point (the CPU's own point at an SVC or
        // LOAD PSW, made between the peek and taking the CPU), nor from one taken between
        // such a point and the PSW its instruction loads: either would start the next
        // interval in the state the CPU just left, and the exact split at SVC, LPSW and
        // LPSWE would be lost (tests/counter_accuracy.rs: problem_state_share). The tick
        // makes this point instead.
        if st.meter.points() != points || !st.meter.counted_since_last_point(raw) {
            return false;
        }
        let interruption_follows = crate::host::state::rt()
            .sampler_state
            .interruption_follows(p.timer_due != 0);
        let now = st
            .meter
            .account(raw, cpu_ns, p.problem != 0, interruption_follows);
        let d = s.jitter(st.meter.account_period(cpu_ns));
        s.next_account_ns.store(cpu_ns + d, Ordering::Relaxed);
        update_accounting(st, cpu_ns);
        now.instructions
    } else {
        match st.meter.instructions_at(p.instcount, p.prevcount) {
            Some(i) => i,
            None => return false,
        }
    };
    let view = CpuView {
        cpu,
        arch: Arch::from_u32(u32::from(p.arch)),
        problem_state: p.problem != 0,
        wait: false,
        dat: p.dat != 0,
        asc: p.asc,
        ia: p.ia,
        cr0: p.cr0,
        cr4: p.cr4,
        meter: MeterReading {
            instructions,
            ..st.meter.reading()
        },
        ..CpuView::default()
    };
    if s.host_accounting.load(Ordering::Relaxed) && !due.run {
        // What the CPU looks like, for the run's map (`run::sample` notes it otherwise).
        st.run.seen(&view, p.prefix, p.cr1);
    }
    let stalls = s.both(|c| &c.stalls);
    let taken = s.both(|c| &c.taken);
    if due.guest {
        guest_sample(st, &view, cpu_ns);
    }
    if due.run {
        run::sample(st, &view, p.prefix, p.cr1, cpu_ns, run_gpp);
    }
    if s.both(|c| &c.stalls) != stalls {
        // The CPU executed nothing since the last sample: its next instruction ticks.
        return false;
    }
    bump(&private.remote_samples, s.both(|c| &c.taken) - taken);
    if account {
        bump(&private.remote_accounting, 1);
    }
    private.remote_streak.fetch_add(1, Ordering::Relaxed);
    reschedule_at(cpu, cpu_ns, wall_ns());
    true
}

/// A dedicated CPU's look (`dedicated=yes`; SA23-2260, BSDE programming note 5: "One may
/// observe the wait-state (W) bit in sample data being set to one for dedicated CPUs"): its
/// sampling timers run on while it waits. The wait time the CPU had since the last look
/// (Hercules' count, read by the glue's `peek_wait`) moves its clocks' due times back
/// ([`SampleClock::credit_wait`]). If the CPU sits in the wait state now, the samples due
/// are stored from here, each with W = 1 and U = 0, the wait PSW's T, P and AS, CR4's
/// primary ASN and the program parameter (the instruction address is the architecture's
/// decision: `hcpumf_arch::sampling::entry::basic_entry`), and the CPU's next deadline is
/// posted for the next one: true, nothing to arm. False when the CPU is not waiting (or
/// cannot be read, or its own thread holds it): the usual look follows, against due times
/// that now count its waits.
pub fn dedicated(h: &hcpumf_host, cpu: u16, st: &CpuState) -> bool {
    let s = &st.schedule;
    if !s.guest.running() && !s.host.running() {
        return false;
    }
    let (Some(peek_wait), Some(cputime)) = (h.peek_wait, h.thread_cputime_ns) else {
        return false;
    };
    let mut w = hcpumf_wait_peek::default();
    // SAFETY: the glue reads the CPU under the CPU's lock and fills `w`, which outlives the
    // call.
    if unsafe { peek_wait(cpu, &mut w) } == 0 {
        return false;
    }
    let Some(_held) = st.exclusive.try_take() else {
        return false;
    };
    // SAFETY: the glue reads the clock of the CPU's thread under the CPU's lock and returns
    // 0 when the CPU is offline.
    let c = unsafe { cputime(cpu) };
    if c == 0 {
        return false;
    }
    // Never before the time the CPU's measurements are at (as the tick's reading).
    let c = c.max(st.meter.time());
    if w.waiting != 0 {
        // Intervals that ended before the wait began (its CPU time stands where the wait
        // began) were the running CPU's, which the host did not sample in time: missed, as
        // the clock counts them (`SampleClock`), not samples of the wait.
        s.guest.skip_owed(c);
        s.host.skip_owed(c);
    }
    let credited = s.guest.credit_wait(w.waited_ns) + s.host.credit_wait(w.waited_ns);
    count_missed(st);
    if w.waiting == 0 {
        if credited != 0 {
            reschedule_at(cpu, c, wall_ns());
        }
        return false;
    }
    let instructions = st
        .meter
        .instructions_at(w.instcount, w.prevcount)
        .unwrap_or_else(|| st.meter.reading().instructions);
    // A diagnostic entry (combined sampling) carries the TOD clock, as the tick's do.
    let diagnostic = st.sampling.controls().contains(SamplingControls::CD)
        || s.host_diagnostic.load(Ordering::Relaxed);
    let view = CpuView {
        cpu,
        arch: Arch::from_u32(u32::from(w.arch)),
        problem_state: w.problem != 0,
        wait: true,
        tod: if diagnostic { tod_now() } else { 0 },
        dat: w.dat != 0,
        asc: w.asc & 3,
        cr0: w.cr0,
        cr4: w.cr4,
        meter: MeterReading {
            instructions,
            ..st.meter.reading()
        },
        ..CpuView::default()
    };
    if s.guest.running() && !st.sampling.any_active() {
        // Made inactive while the clock ran: the tick would stop the clock.
        s.guest.stop();
    }
    for _ in 0..=MAX_CATCH_UP {
        let due = s.guest.poll_wait(c, instructions);
        count_missed(st);
        if !due {
            break;
        }
        store_guest_entry(st, &view, 0);
    }
    for _ in 0..=MAX_CATCH_UP {
        if !s.host.poll_wait(c, instructions) {
            break;
        }
        let gpp = run::program_parameter(st, &view, w.prefix, w.cr1);
        run::store(st, &view, 0, gpp);
    }
    reschedule_waiting(cpu, c, wall_ns());
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use hcpumf_arch::alerts::AlertBits;
    use hcpumf_arch::model::MachineModel;
    use hcpumf_arch::sampling::{Dear, LsctlRequest, Tear};

    /// The run delay is read from this thread's schedstat and only grows; a thread that
    /// waits for a core while others hold every one of them is seen as held up.
    #[test]
    fn a_thread_held_up_by_others_is_seen_so() {
        let Some(first) = run_delay_ns() else {
            // A kernel without schedstats: held_up() always answers no.
            assert!(!held_up());
            crate::host::meter::tests::record_skip(
                "kernel",
                "the kernel keeps no /proc/thread-self/schedstat",
            );
            return;
        };
        pass_ends();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinners: Vec<_> = (0..cores * 2)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        // Sleep and wake a few hundred times while the spinners fill every core.
        let t = std::time::Instant::now();
        while t.elapsed() < std::time::Duration::from_millis(300) && !held_up() {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let held = held_up();
        stop.store(true, Ordering::Relaxed);
        for s in spinners {
            let _ = s.join();
        }
        let last = run_delay_ns().unwrap_or(0);
        assert!(last >= first, "the run delay went back: {first} -> {last}");
        if last == 0 {
            // A kernel built without CONFIG_SCHED_INFO shows "0 0 0": held_up() answers no.
            crate::host::meter::tests::record_skip(
                "kernel",
                "the kernel's schedstat reads 0 (no CONFIG_SCHED_INFO)",
            );
            return;
        }
        assert!(
            held,
            "never held up for {HELD_UP_NS} ns with every core busy"
        );
    }

    /// A CPU whose guest sampling is active (basic, and diagnostic when `cd`), its clock
    /// started at CPU time 0 with a 75 us interval.
    fn sampling_cpu(cd: bool) -> CpuState {
        let m = MachineModel::for_machine_type(0x2097);
        let st = CpuState::default();
        st.sampling.set_authorization(true, true);
        let r = LsctlRequest {
            es: true,
            cs: true,
            ed: cd,
            cd,
            interval: m.min_sampling_interval,
            tear: Tear(0x10_0000),
            dear: Dear(0x10_1000),
            ..Default::default()
        };
        assert!(st.sampling.lsctl(&m, &r.encode()).is_ok());
        st.schedule.guest.start(75_000, 0, 0);
        st
    }

    fn due(guest: bool, run: bool, account: bool) -> Option<Due> {
        Some(Due {
            guest,
            run,
            account,
        })
    }

    #[test]
    fn only_basic_samples_and_accounting_points_are_done_from_outside() {
        let at = 80_000;
        let guest = due(true, false, false);
        let st = sampling_cpu(false);
        assert_eq!(due_outside(&st, at), guest);
        // Nothing due yet.
        assert_eq!(due_outside(&st, 10_000), None);
        // Diagnostic entries carry the CPU's measurements at a boundary: the tick's.
        assert_eq!(due_outside(&sampling_cpu(true), at), None);
        // An accounting point is made from here too when it is due, alone or with a sample.
        st.schedule.next_account_ns.store(at + 1, Ordering::Relaxed);
        assert_eq!(due_outside(&st, at), guest);
        st.schedule.next_account_ns.store(at, Ordering::Relaxed);
        assert_eq!(due_outside(&st, at), due(true, false, true));
        assert_eq!(due_outside(&st, 10_000), None);
        st.schedule.next_account_ns.store(5_000, Ordering::Relaxed);
        assert_eq!(due_outside(&st, 10_000), due(false, false, true));
        st.schedule.next_account_ns.store(0, Ordering::Relaxed);
        // A HIS run's basic sample: taken from here too when due, with the guest's or alone.
        st.schedule.host.start(1_000_000, 0, 0);
        assert_eq!(due_outside(&st, at), guest);
        st.schedule.host.start(75_000, 0, 0);
        assert_eq!(due_outside(&st, at), due(true, true, false));
        st.schedule.host_diagnostic.store(true, Ordering::Relaxed);
        assert_eq!(due_outside(&st, at), None);
        st.schedule.host_diagnostic.store(false, Ordering::Relaxed);
        st.schedule.guest.stop();
        assert_eq!(due_outside(&st, at), due(false, true, false));
        st.schedule.guest.start(75_000, 0, 0);
        st.schedule.host.stop();
        // A pending alert is the tick's to present.
        st.alerts.raise(AlertBits::PROGRAM_REQUEST);
        assert_eq!(due_outside(&st, at), None);
        st.alerts.clear_all();
        assert_eq!(due_outside(&st, at), guest);
        // Sampling made inactive while its clock still runs: the tick stops the clock.
        st.sampling.cpu_reset();
        assert_eq!(due_outside(&st, at), None);
    }
}
