//! Counting the CPACF instructions the glue wraps (KIMD, KLMD, KM, KMC, KMAC, passed through
//! to Hercules' own implementation): the function and the CPU time it took go to the CPU's
//! crypto-activity set, the coprocessor group and the totals a HIS run reads.

use crate::host::{model, state};
use hcpumf_arch::crypto::classify;
use hcpumf_arch::crypto::CryptoFunction;

/// A CPACF instruction starts (nothing to do: the emulated coprocessor is never busy with
/// another CPU's work, so no function is ever blocked).
pub fn begin(_cpu: u16, _opcode: u32, _fc: u32) {}

/// A CPACF instruction took `ns` nanoseconds of CPU time.
pub fn end(cpu: u16, opcode: u32, fc: u32, ns: u64) {
    let Some(kind) = classify(opcode, fc) else {
        return;
    };
    let Some(st) = state::cpu(cpu) else { return };
    let speed = u128::from(model::current().cpu_speed);
    let cycles = (u128::from(ns) * speed / 1000).min(u128::from(u64::MAX)) as u64;
    st.counters.crypto_event(kind, cycles, false, 0);
    // Host-side totals (HIS runs) in crypto-counter order: four counters per function.
    let base = match kind {
        CryptoFunction::Prng => 0,
        CryptoFunction::Sha => 4,
        CryptoFunction::Dea => 8,
        CryptoFunction::Aes => 12,
        CryptoFunction::Ecc => 16,
    };
    st.crypto_totals[base].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    st.crypto_totals[base + 1].fetch_add(cycles, std::sync::atomic::Ordering::Relaxed);
    state::rt().groups.crypto_event(0, kind, cycles, false, 0);
}
