//! Crypto-activity counters fed by the CPACF instructions the guest issues (SA23-2260,
//! Crypto-Activity Counter Set and Coprocessor-Group Counter Set). The glue wraps KIMD, KLMD,
//! KM, KMC and KMAC and passes through to Hercules' own implementation; here the function
//! code decides which coprocessor function was used.

use crate::counter::CryptoFunction;
use crate::model;
use crate::runtime;

/// The coprocessor function of an instruction and function code (modifier bit masked off).
/// Query (function code 0) uses no coprocessor and is not counted.
pub fn classify(opcode: u32, fc: u32) -> Option<CryptoFunction> {
    let fc = fc & 0x7F;
    if fc == 0 {
        return None;
    }
    match opcode {
        // KIMD, KLMD: SHA-1/256/512; GHASH (65) is the Galois-field multiplier, counted as AES.
        0xB93E | 0xB93F => match fc {
            1..=3 => Some(CryptoFunction::Sha),
            65 => Some(CryptoFunction::Aes),
            _ => None,
        },
        // KMC function 67 is the PRNG function (programming note 2).
        0xB92F if fc == 67 => Some(CryptoFunction::Prng),
        // KM, KMC, KMAC: DEA/TDEA (and encrypted-key variants) or AES.
        0xB92E | 0xB92F | 0xB91E => match fc {
            1..=3 | 9..=11 => Some(CryptoFunction::Dea),
            18..=20 | 26..=28 | 50 | 52 | 58 | 60 => Some(CryptoFunction::Aes),
            _ => None,
        },
        _ => None,
    }
}

/// A CPACF instruction starts (nothing to do: the emulated coprocessor is never busy with
/// another CPU's work, so no function is ever blocked).
pub fn begin(_cpu: u16, _opcode: u32, _fc: u32) {}

/// A CPACF instruction took `ns` nanoseconds of CPU time.
pub fn end(cpu: u16, opcode: u32, fc: u32, ns: u64) {
    let Some(kind) = classify(opcode, fc) else {
        return;
    };
    let Some(st) = runtime::cpu(cpu) else { return };
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
    runtime::rt().groups.crypto_event(0, kind, cycles, false, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_codes_map_to_coprocessor_functions() {
        assert_eq!(classify(0xB93E, 2), Some(CryptoFunction::Sha));
        assert_eq!(classify(0xB93F, 0x83), Some(CryptoFunction::Sha));
        assert_eq!(classify(0xB93E, 65), Some(CryptoFunction::Aes));
        assert_eq!(classify(0xB92F, 67), Some(CryptoFunction::Prng));
        assert_eq!(classify(0xB92E, 1), Some(CryptoFunction::Dea));
        assert_eq!(classify(0xB92E, 18), Some(CryptoFunction::Aes));
        assert_eq!(classify(0xB91E, 0), None);
        assert_eq!(classify(0xB92E, 99), None);
    }
}
