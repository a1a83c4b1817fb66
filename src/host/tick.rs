//! The tick: control on a CPU's own thread at an instruction boundary, after the sampler
//! thread armed the CPU's opcode table (`host::sampler`). It reads top-down:
//!
//! 1. [`tick`]: the CPU's state: its CPU time now and its measurements up to here;
//! 2. [`guest_sample`]: the guest's sampling (LSCTL): a sample entry into the guest's own
//!    sample-data blocks, with the update process of SA23-2260;
//! 3. `run::sample`: a HIS run's sampling: an entry into the run's own block;
//! 4. the next accounting point, a pending measurement alert to present, the next deadline.

use crate::host::deadline::{host_core, reschedule_at, thread_id, wall_of};
use crate::host::meter::{bump, mono_ns, RawCounts, ARM_TRUST_NS};
use crate::host::services::tod_or_now;
use crate::host::state::{self, CpuState};
use crate::host::storage::HostStorage;
use crate::host::{model, run};
use hcpumf_arch::cpu::CpuView;
use hcpumf_arch::model::CounterSets;
use hcpumf_arch::sampling::SamplingControls;
use std::sync::atomic::Ordering;

/// The tick on the CPU's own thread: account, take the samples that are due, decide whether
/// to present a pending measurement alert now. Returns the interruption parameter to present.
/// `timer_due`: a timer interruption is about to switch the state (see [`Meter::account`]).
///
/// [`Meter::account`]: crate::host::meter::Meter::account
pub fn tick(view: &CpuView, raw: RawCounts, prefix: u64, cr1: u64, timer_due: bool) -> Option<u32> {
    let st = state::cpu(view.cpu)?;
    let _held = st.exclusive.take();
    let s = &st.schedule;
    s.shared.armed.store(false, Ordering::Release);
    bump(&s.ticks, 1);
    let core = host_core();
    if s.shared.core.load(Ordering::Relaxed) != core {
        s.shared.core.store(core, Ordering::Relaxed);
    }
    let tid = thread_id();
    if s.thread_id.load(Ordering::Relaxed) != tid {
        s.thread_id.store(tid, Ordering::Relaxed);
    }
    let mono = mono_ns();
    let now_ns = cpu_time_now(st, raw, mono);
    let timer_due = state::rt().sampler_state.interruption_follows(timer_due);
    let now = st.meter.account(raw, now_ns, view.problem_state, timer_due);
    // The samples carry the CPU's measurements at this point (the diagnostic entry's
    // instruction count and CPU time), as the counter instructions' view does. The glue
    // leaves the TOD clock unread (it takes Hercules' TOD lock): diagnostic entries carry
    // it, a trailer reads it when its block gets full.
    let diagnostic = st.sampling.controls().contains(SamplingControls::CD)
        || s.host_diagnostic.load(Ordering::Relaxed);
    let view = &CpuView {
        meter: now,
        tod: if diagnostic {
            tod_or_now(view.tod)
        } else {
            view.tod
        },
        ..*view
    };

    let stalls = [&s.guest, &s.host].map(|c| c.stalls.load(Ordering::Relaxed));
    guest_sample(st, view, now_ns);
    run::sample(st, view, prefix, cr1, now_ns, None);
    // A sample put off here waits for Hercules' count to move, not for the next instruction.
    for (c, before) in [&s.guest, &s.host].into_iter().zip(stalls) {
        if c.stalls.load(Ordering::Relaxed) != before {
            c.retry_later(now_ns);
        }
    }

    if s.next_account_ns.load(Ordering::Relaxed) != 0 {
        let d = s.jitter(st.meter.account_period(now_ns));
        s.next_account_ns.store(now_ns + d, Ordering::Relaxed);
    }
    update_accounting(st, now_ns);
    let param = st.alerts.take_deliverable(view);
    reschedule_at(view.cpu, now_ns, wall_of(mono));
    param
}

/// Problem-state attribution needs accounting points while the problem-state set is active
/// or a HIS run collects counters.
pub fn update_accounting(st: &CpuState, now_ns: u64) {
    st.schedule.update_accounting(
        st.counters.active().contains(CounterSets::PROBLEM_STATE),
        st.meter.account_period(now_ns),
        now_ns,
    );
}

/// The CPU thread's CPU time at this tick. The sampler usually read it just before arming
/// the CPU: that reading plus the wall time since is the time now (within the wall time
/// since, which is short unless the host did not run the thread, and then the tick reads it
/// itself). Never before the time the CPU's measurements are at: the samples' clocks see the
/// time the measurements stored in the samples are at.
fn cpu_time_now(st: &CpuState, raw: RawCounts, mono: u64) -> u64 {
    let s = &st.schedule;
    let armed = s.shared.armed_cpu_ns.swap(0, Ordering::Acquire);
    let since = mono.saturating_sub(s.shared.armed_mono_ns.load(Ordering::Relaxed));
    let now = if armed != 0 && since <= ARM_TRUST_NS {
        let n = armed + since;
        st.meter.adopt(n, mono, raw.waitsig);
        n
    } else {
        unread_cpu_time(st, raw)
    };
    now.max(st.meter.time())
}

/// The CPU time at a tick the sampler did not read it for. A sampling clock compares the
/// CPU time with its due time, so a tick that may take a sample reads it (a wall-clock
/// extrapolation counts time the host did not run the CPU thread: samples would come early
/// and then bunch). The extrapolation is never behind the real CPU time, so when even it has
/// not reached a running clock's due time no sample is due and the read (a system call) is
/// skipped.
fn unread_cpu_time(st: &CpuState, raw: RawCounts) -> u64 {
    let s = &st.schedule;
    match st.meter.estimate_now(raw.waitsig) {
        Some(est)
            if ![&s.guest, &s.host]
                .iter()
                .any(|c| c.running() && est >= c.wake_at()) =>
        {
            est
        }
        _ => st.meter.read_now(raw.waitsig),
    }
}

/// The guest's sampling (SA23-2260, "Sampling Functions"): when the guest's clock says a
/// sample is due, store the data entry and run the sample-data-block update process in
/// guest storage; alerts it recognizes become pending.
pub(crate) fn guest_sample(st: &CpuState, view: &CpuView, now_ns: u64) {
    let clock = &st.schedule.guest;
    if !st.sampling.any_active() {
        clock.stop();
        return;
    }
    let stretch = clock.poll(now_ns, view.meter.instructions);
    count_missed(st);
    let Some(stretch) = stretch else {
        return;
    };
    let unique = clock.unique(stretch, model::current().cpu_speed);
    store_guest_entry(st, view, unique);
}

/// Intervals of the guest's sampling that the host did not sample in time (`SampleClock`):
/// while the current block is still full a real CPU would have discarded and counted each
/// of those samples (`CpuSampling::count_lost`), and so does the emulator.
pub(crate) fn count_missed(st: &CpuState) {
    let lost = st.schedule.guest.take_missed();
    if lost != 0 {
        if let Some(storage) = HostStorage::current() {
            st.sampling.count_lost(&storage, lost);
        }
    }
}

/// Store the guest's data entry of the CPU `view` describes with `unique` instructions at the
/// sampling point, running the update process in guest storage; alerts it recognizes become
/// pending, and a sampling it placed in the inactive state stops the guest's clock.
pub(crate) fn store_guest_entry(st: &CpuState, view: &CpuView, unique: u8) {
    if let Some(storage) = HostStorage::current() {
        let m = model::current();
        let pp = st.program_parameter.get();
        let tod = || tod_or_now(view.tod);
        let out = st
            .sampling
            .take_sample_timed(m, &storage, view, unique, pp, &tod);
        if !out.alerts.is_empty() {
            st.alerts.raise(out.alerts);
        }
    }
    if !st.sampling.any_active() {
        // The update process placed the functions in the inactive state.
        st.schedule.guest.stop();
    }
}
