//! Which coprocessor function a CPACF instruction uses (SA23-2260, Crypto-Activity Counter
//! Set and Coprocessor-Group Counter Set): the function code decides. The host counts the
//! instructions the glue wraps (`host::crypto`).

/// A CPACF function family (SA23-2260, Crypto-Activity Counter Set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CryptoFunction {
    Prng,
    Sha,
    Dea,
    Aes,
    Ecc,
}

impl CryptoFunction {
    /// Index of the function's four counters (function, cycles, blocked, blocked cycles)
    /// within the crypto-activity set (counter 64 + 4 × index).
    pub fn index(self) -> usize {
        match self {
            CryptoFunction::Prng => 0,
            CryptoFunction::Sha => 1,
            CryptoFunction::Dea => 2,
            CryptoFunction::Aes => 3,
            CryptoFunction::Ecc => 4,
        }
    }
}

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
