//! Delivering measurement alerts (SA23-2260, "Measurement Alert"): events raised on a CPU
//! from any thread reach it at its next tick, or through the glue when it waits.

use crate::host::deadline::{schedule, thread_id, wall_ns};
use crate::host::glue::ArmMode;
use crate::host::services::host;
use crate::host::state::{cpu, CpuState};
use hcpumf_arch::alerts::AlertBits;
use std::sync::atomic::Ordering;

/// Apply SA23-2260's clearing rules to the CPU's pending request (see
/// [`PendingAlerts::settle`](hcpumf_arch::alerts::PendingAlerts::settle)).
pub fn settle_alerts(st: &CpuState) {
    st.alerts
        .settle(st.sampling.any_enabled(), st.counters.any_enabled());
}

/// Raise alert events on a CPU and make sure it gets a chance to take them (running CPUs at
/// their next tick, CPUs in an enabled wait through the glue).
pub fn raise_alert(cpu_no: u16, bits: AlertBits) {
    let Some(st) = cpu(cpu_no) else { return };
    if bits.is_empty() {
        return;
    }
    st.alerts.raise(bits);
    settle_alerts(st);
    if st.alerts.pending().is_empty() {
        return;
    }
    schedule(cpu_no, wall_ns());
    // From another thread (the console's), arm the CPU here too rather than leave it to the
    // sampler: on a host whose real-time threads fill the cores (another Hercules run as
    // root) the sampler may not run for seconds, and the alert must not wait for it. On the
    // CPU's own thread a tick follows anyway.
    if st.schedule.thread_id.load(Ordering::Relaxed) != thread_id() {
        if let Some(arm) = host().and_then(|h| h.arm) {
            // SAFETY: the glue arms under the CPU's lock and checks it is online.
            unsafe { arm(cpu_no, ArmMode::HCPUMF_ARM_EVERY) };
        }
    }
    if let Some(kick) = host().and_then(|h| h.kick_waiting) {
        // SAFETY: the glue takes the interrupt lock and checks the CPU itself.
        unsafe { kick(cpu_no) };
    }
}
