//! Executing a CPU-measurement instruction on the issuing CPU's own thread: account the
//! CPU's measurements up to this boundary, let the facility decide (`arch`), and keep the
//! CPU's sampling clock and accounting schedule in step with what the instruction changed.

use crate::host::deadline::reschedule;
use crate::host::meter::RawCounts;
use crate::host::tick::{count_missed, update_accounting};
use crate::host::{model, state};
use hcpumf_arch::alerts::AlertBits;
use hcpumf_arch::cpu::CpuView;
use hcpumf_arch::instructions::{be_u64, op, Operands, Outcome};
use hcpumf_arch::model::CounterSets;
use hcpumf_arch::pgm::{Cc, ProgramException};

/// Execute an instruction after its operand was fetched. `raw` are Hercules' counts (for
/// metering).
pub fn execute(
    opcode: u32,
    view: &CpuView,
    ops: &Operands,
    operand: &[u8],
    raw: RawCounts,
) -> Result<Outcome, ProgramException> {
    let Some(st) = state::cpu(view.cpu) else {
        return Ok(Outcome::cc(Cc::Three));
    };
    // Kept until the instruction is done: the sampler takes no sample from outside while
    // the instruction changes the sampling state.
    let _held = st.exclusive.take();
    let m = model::current();
    let (now, now_ns) =
        st.meter
            .account_now(raw, view.problem_state, true, Some(view.problem_state));
    let measured = CpuView {
        meter: now,
        ..*view
    };
    let view = &measured;
    let rt = state::rt();
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
            reschedule(view.cpu, now_ns);
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
            // Intervals that ended while sampling was active but whose sample the host had not
            // taken yet are missed (`hcpumf status`), not stored: the clock is stopped or
            // restarted below and would forget them (see `SampleClock`: the guest sees a
            // longer interval, or, while the block is still full, samples counted as lost).
            if st.sampling.any_active() {
                st.schedule.guest.skip_owed(now_ns);
                count_missed(st);
            }
            let res = st.sampling.lsctl(m, &block)?;
            st.alerts.clear(res.clear_alerts);
            if !st.sampling.any_active() {
                st.schedule.guest.stop();
            } else {
                // A new interval starts now.
                let interval = model::cycles_to_ns(st.sampling.interval());
                st.schedule.guest.start(interval, now_ns, now.instructions);
                // Waits from here on are sampling time of a dedicated CPU.
                st.schedule.guest.mark_wait(raw.waitsig);
            }
            reschedule(view.cpu, now_ns);
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
