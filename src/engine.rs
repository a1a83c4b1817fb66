//! Instruction dispatch and the per-CPU tick: the architectural decisions the glue asks for.
//!
//! Exception priority follows the z/Architecture Principles of Operation: operation,
//! privileged operation (both before any operand is touched, in [`precheck`]); then the glue
//! fetches the operand (access exceptions); then the specification checks on the operand's
//! contents and the execution itself ([`execute`]).

use crate::alerts::AlertBits;
use crate::cpu::{Arch, CpuView};
use crate::model::{self, CounterSets};
use crate::pgm::{Cc, ProgramException};
use crate::runtime::{self, CpuState, RawCounts};
use std::sync::atomic::Ordering;

/// Opcodes the glue hands over.
pub mod op {
    pub const LPP: u32 = 0xB280;
    pub const LCCTL: u32 = 0xB284;
    pub const LPCTL: u32 = 0xB285;
    pub const QSI: u32 = 0xB286;
    pub const LSCTL: u32 = 0xB287;
    pub const QCTRI: u32 = 0xB28E;
    pub const SCCTR: u32 = 0xB2E0;
    pub const SPCTR: u32 = 0xB2E1;
    pub const ECCTR: u32 = 0xB2E4;
    pub const EPCTR: u32 = 0xB2E5;
    pub const ECPGA: u32 = 0xB2ED;
    pub const STCCTM: u32 = 0xEB17;
}

/// What the glue must do after an instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Condition code to set (None: unchanged).
    pub cc: Option<Cc>,
    /// New contents of general register R1.
    pub r1: Option<u64>,
    /// Bytes to store at the second-operand address.
    pub store: Vec<u8>,
}

impl Outcome {
    fn cc(cc: Cc) -> Outcome {
        Outcome {
            cc: Some(cc),
            ..Default::default()
        }
    }
}

/// Facilities offered to the CPU's architecture mode: z/Architecture always; S/370 and
/// ESA/390 only when the operator allowed it (MVS 3.8J, VM/370 guests).
fn offered(view: &CpuView) -> bool {
    view.arch == Arch::Z || model::current().all_architectures
}

/// Checks made before any operand access: operation and privileged-operation exceptions.
pub fn precheck(opcode: u32, view: &CpuView) -> Result<(), ProgramException> {
    if !offered(view) {
        return Err(ProgramException::Operation);
    }
    match opcode {
        // ECCTR and STCCTM may run in the problem state under CR0 bit 15; the counter
        // facility decides (it also owns their specification checks).
        op::ECCTR | op::STCCTM => Ok(()),
        op::LPP
        | op::LCCTL
        | op::LPCTL
        | op::QSI
        | op::LSCTL
        | op::QCTRI
        | op::SCCTR
        | op::SPCTR
        | op::EPCTR
        | op::ECPGA => {
            if view.problem_state {
                Err(ProgramException::PrivilegedOperation)
            } else {
                Ok(())
            }
        }
        _ => Err(ProgramException::Operation),
    }
}

fn be_u64(operand: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = operand.len().min(8);
    b[..n].copy_from_slice(&operand[..n]);
    u64::from_be_bytes(b)
}

/// Register and address operands of an instruction, decoded by the glue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Operands {
    /// Contents of general register R1.
    pub r1: u64,
    /// Contents of general register R2.
    pub r2: u64,
    /// The M3 field (STCCTM).
    pub m3: u8,
    /// Second-operand address.
    pub addr: u64,
}

/// Execute an instruction after its operand was fetched. `raw` are Hercules' counts (for
/// metering).
pub fn execute(
    opcode: u32,
    view: &CpuView,
    ops: &Operands,
    operand: &[u8],
    raw: RawCounts,
) -> Result<Outcome, ProgramException> {
    let Some(st) = runtime::cpu(view.cpu) else {
        return Ok(Outcome::cc(Cc::Three));
    };
    let m = model::current();
    let (now, now_ns) = runtime::account(view, raw, true);
    let measured = CpuView {
        meter: now,
        ..*view
    };
    let view = &measured;
    let rt = runtime::rt();
    let out = match opcode {
        op::LPP => {
            st.program_parameter
                .lpp(be_u64(operand), st.sampling.any_enabled());
            Outcome::default()
        }
        op::LCCTL => {
            let cc = st.counters.lcctl(m, be_u64(operand), &now)?;
            if !st.counters.any_enabled() {
                st.alerts.clear(AlertBits::CLEARED_WHEN_COUNTERS_DISABLED);
            }
            update_accounting(st, now_ns);
            runtime::reschedule(view.cpu, now_ns);
            Outcome::cc(cc)
        }
        op::LPCTL => {
            let authorized = st
                .counters
                .authorization()
                .contains(CounterSets::COPROCESSOR_GROUP);
            Outcome::cc(rt.groups.lpctl(m, be_u64(operand), authorized)?)
        }
        op::QSI => Outcome {
            store: st.sampling.qsi(m).to_vec(),
            ..Default::default()
        },
        op::LSCTL => {
            let mut block = [0u8; 64];
            let n = operand.len().min(64);
            block[..n].copy_from_slice(&operand[..n]);
            // Intervals that ended while sampling was active but whose tick the host had not
            // delivered yet are lost sample data of the current block, counted now: the
            // clock is stopped or restarted below and would forget them.
            if st.sampling.any_active() {
                count_lost(st, st.schedule.guest.resync_lost(now_ns));
            }
            let res = st.sampling.lsctl(m, &block)?;
            st.alerts.clear(res.clear_alerts);
            if !st.sampling.any_active() {
                st.schedule.guest.stop();
            } else {
                // A new interval starts now.
                let interval = runtime::cycles_to_ns(st.sampling.interval());
                st.schedule.guest.start(interval, now_ns);
            }
            runtime::reschedule(view.cpu, now_ns);
            Outcome::cc(res.cc)
        }
        op::QCTRI => Outcome {
            store: st.counters.qctri(m, &rt.groups).to_vec(),
            ..Default::default()
        },
        op::SCCTR => Outcome::cc(st.counters.scctr(m, view, ops.r1, ops.r2)?),
        op::ECCTR => match st.counters.ecctr(m, view, ops.r2)? {
            Some(v) => Outcome {
                cc: Some(Cc::Zero),
                r1: Some(v),
                store: Vec::new(),
            },
            None => Outcome::cc(Cc::Three),
        },
        op::EPCTR | op::SPCTR | op::ECPGA => {
            let authorized = st
                .counters
                .authorization()
                .contains(CounterSets::COPROCESSOR_GROUP);
            match opcode {
                op::EPCTR => match rt.groups.epctr(m, authorized, ops.r2)? {
                    Some(v) => Outcome {
                        cc: Some(Cc::Zero),
                        r1: Some(v),
                        store: Vec::new(),
                    },
                    None => Outcome::cc(Cc::Three),
                },
                op::SPCTR => Outcome::cc(rt.groups.spctr(m, authorized, ops.r1, ops.r2)?),
                _ => match rt.groups.ecpga(m, ops.r1, ops.r2)? {
                    Some(v) => Outcome {
                        cc: Some(Cc::Zero),
                        r1: Some(v),
                        store: Vec::new(),
                    },
                    None => Outcome::cc(Cc::Three),
                },
            }
        }
        op::STCCTM => {
            let r = st.counters.stcctm(m, view, ops.r1, ops.m3, ops.addr)?;
            let mut store = Vec::with_capacity(r.values.len() * 8);
            for v in &r.values {
                store.extend_from_slice(&v.to_be_bytes());
            }
            Outcome {
                cc: Some(r.cc),
                r1: None,
                store,
            }
        }
        _ => return Err(ProgramException::Operation),
    };
    Ok(out)
}

/// Problem-state attribution needs accounting points while the problem-state set is active
/// or a HIS run collects counters.
fn update_accounting(st: &CpuState, now_ns: u64) {
    let s = &st.schedule;
    if st.counters.active().contains(CounterSets::PROBLEM_STATE)
        || s.host_accounting.load(Ordering::Relaxed)
    {
        if s.next_account_ns.load(Ordering::Relaxed) == 0 {
            let d = runtime::jitter(st, st.meter.account_period(now_ns));
            s.next_account_ns.store(now_ns + d, Ordering::Relaxed);
        }
    } else {
        s.next_account_ns.store(0, Ordering::Relaxed);
    }
}

/// The tick on the CPU's own thread: account, take the sample that is due, decide whether
/// to present a pending measurement alert now. Returns the interruption parameter to present.
pub fn tick(view: &CpuView, raw: RawCounts, prefix: u64, cr1: u64) -> Option<u32> {
    let st = runtime::cpu(view.cpu)?;
    st.schedule.shared.armed.store(false, Ordering::Release);
    let s = &st.schedule;
    runtime::bump(&s.ticks, 1);
    let core = runtime::host_core();
    if s.shared.core.load(Ordering::Relaxed) != core {
        s.shared.core.store(core, Ordering::Relaxed);
    }
    // The scheduler usually read the thread's CPU time just before arming the CPU: that
    // reading plus the wall time since is the time now (within the wall time since, which
    // is short unless the host did not run the thread, and then the tick reads it itself).
    let armed = s.shared.armed_cpu_ns.swap(0, Ordering::Acquire);
    let mono = runtime::mono_ns();
    let since = mono.saturating_sub(s.shared.armed_mono_ns.load(Ordering::Relaxed));
    let now_ns = if armed != 0 && since <= runtime::ARM_TRUST_NS {
        let n = armed + since;
        st.meter.adopt(n, mono, raw.waitsig);
        n
    } else {
        tick_cpu_time(st, raw)
    }
    // The samples' clocks see the time the measurements stored in the samples are at.
    .max(st.meter.time());
    let now = st.meter.account(raw, now_ns, view.problem_state);
    // The samples carry the CPU's measurements at this point (the diagnostic entry's
    // instruction count and CPU time), as the counter instructions' view does. The glue
    // leaves the TOD clock unread (it takes Hercules' TOD lock): diagnostic entries carry
    // it, a trailer reads it when its block gets full.
    let diagnostic = st
        .sampling
        .controls()
        .contains(crate::sampling::SamplingControls::CD)
        || s.host_diagnostic.load(Ordering::Relaxed);
    let measured = CpuView {
        meter: now,
        tod: if diagnostic {
            runtime::tod_or_now(view.tod)
        } else {
            view.tod
        },
        ..*view
    };
    let view = &measured;
    let m = model::current();
    let tod = || runtime::tod_or_now(view.tod);

    if st.sampling.any_active() {
        if s.guest.poll(now_ns, now.instructions) {
            if let Some(storage) = runtime::host().and_then(crate::hoststore::HostStorage::new) {
                let pp = st.program_parameter.get();
                let out = st.sampling.take_sample_timed(m, &storage, view, pp, &tod);
                if !out.alerts.is_empty() {
                    st.alerts.raise(out.alerts);
                }
                // Intervals the host delayed too long to sample are lost sample data: they
                // go into the overflow count, where programs count lost samples.
                let lost = s.guest.take_unreported();
                if lost > 0 {
                    st.sampling.count_lost(&storage, lost);
                }
            }
            if !st.sampling.any_active() {
                // The update process placed the functions in the inactive state.
                s.guest.stop();
            }
        }
    } else {
        s.guest.stop();
    }

    crate::collect::host_tick(view.cpu, st, view, prefix, cr1, now_ns);

    if s.next_account_ns.load(Ordering::Relaxed) != 0 {
        let d = runtime::jitter(st, st.meter.account_period(now_ns));
        s.next_account_ns.store(now_ns + d, Ordering::Relaxed);
    }
    update_accounting(st, now_ns);

    let param = deliverable(st, view);
    runtime::reschedule(view.cpu, now_ns);
    param
}

/// The CPU time at a tick the scheduler did not read it for. A sampling clock compares the
/// CPU time with its due time, so a tick that may take a sample reads it (a wall-clock
/// extrapolation counts time the host did not run the CPU thread: samples would come early
/// and then bunch). The extrapolation is never behind the real CPU time, so when even it has
/// not reached a running clock's due time no sample is due and the read (a system call) is
/// skipped.
fn tick_cpu_time(st: &CpuState, raw: RawCounts) -> u64 {
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

/// Count `n` sampling intervals the host could not sample as lost sample data of the current
/// block (its overflow count).
fn count_lost(st: &CpuState, n: u64) {
    if n == 0 {
        return;
    }
    if let Some(storage) = runtime::host().and_then(crate::hoststore::HostStorage::new) {
        st.sampling.count_lost(&storage, n);
    }
}

/// Take the pending measurement alert if the CPU is enabled for it: PSW external mask and
/// CR0 bit 58 (SA23-2260, Measurement Alert), and no external interruption of higher
/// priority is pending and enabled (SA23-2260, External Interruption: the measurement alert
/// comes last). A deferred alert stays pending; the CPU's schedule polls for it again.
pub fn deliverable(st: &CpuState, view: &CpuView) -> Option<u32> {
    if st.alerts.pending().is_empty()
        || !view.ext_mask
        || !view.measurement_alert_enabled()
        || view.higher_external_pending
    {
        return None;
    }
    let bits = st.alerts.take();
    if bits.is_empty() {
        None
    } else {
        Some(bits.bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alerts::AlertBits;

    fn enabled() -> CpuView {
        CpuView {
            ext_mask: true,
            cr0: 0x20, // CR0 bit 58: measurement-alert subclass mask
            ..Default::default()
        }
    }

    /// SA23-2260, External Interruption: the measurement alert has the lowest priority, so
    /// a pending alert waits while a higher-priority external interruption is pending and
    /// enabled, and is taken (all events merged) once it is not.
    #[test]
    fn the_alert_waits_for_higher_priority_external_interruptions() {
        let st = CpuState::default();
        st.alerts.raise(AlertBits::PROGRAM_REQUEST);
        st.alerts.raise(AlertBits::LOSS_OF_SAMPLE_DATA);
        let busy = CpuView {
            higher_external_pending: true,
            ..enabled()
        };
        assert_eq!(deliverable(&st, &busy), None);
        assert_eq!(
            st.alerts.pending(),
            AlertBits::PROGRAM_REQUEST | AlertBits::LOSS_OF_SAMPLE_DATA
        );
        let param = deliverable(&st, &enabled()).expect("presented");
        assert_eq!(
            param,
            (AlertBits::PROGRAM_REQUEST | AlertBits::LOSS_OF_SAMPLE_DATA).bits()
        );
        assert!(st.alerts.pending().is_empty());
    }

    /// SA23-2260, Measurement Alert: held pending while the PSW external mask or CR0 bit 58
    /// is off.
    #[test]
    fn the_alert_needs_the_external_mask_and_the_subclass_mask() {
        let st = CpuState::default();
        st.alerts.raise(AlertBits::PROGRAM_REQUEST);
        let no_mask = CpuView {
            ext_mask: false,
            ..enabled()
        };
        let no_subclass = CpuView {
            cr0: 0,
            ..enabled()
        };
        assert_eq!(deliverable(&st, &no_mask), None);
        assert_eq!(deliverable(&st, &no_subclass), None);
        assert_eq!(st.alerts.pending(), AlertBits::PROGRAM_REQUEST);
    }
}
