//! The architecture: SA23-2260's facilities as pure Rust, with no threads, no globals and no
//! Hercules. Every decision an instruction, a sample or an alert needs is made here and
//! unit-tested against in-memory guest storage; `host` applies it inside Hercules.
//!
//! | module | SA23-2260 / Principles of Operation |
//! |---|---|
//! | [`counter`] | CPU-Measurement Counter Facility: counter sets, QCTRI, LCCTL, ECCTR, SCCTR, STCCTM; peripheral (coprocessor-group) sets: LPCTL, EPCTR, SPCTR, ECPGA |
//! | [`sampling`] | CPU-Measurement Sampling Facility: sampling controls, QSI, LSCTL, TEAR, DEAR, SDBT, SDB, BSDE, DSDE, trailer, the sample-data-block update process |
//! | [`program_param`] | Load-Program-Parameter Facility: LPP |
//! | [`alerts`] | Measurement Alert: the external interruption 1407, its parameter, its priority |
//! | [`instructions`] | the opcodes, operand decoding, operation and privileged-operation checks |
//! | [`crypto`] | which coprocessor function a CPACF instruction uses (crypto-activity counters) |
//! | [`model`] | the machine model: version numbers, set sizes, CPU speed, sampling limits, authorizations |
//! | [`cpu`] | the issuing CPU at an instruction boundary (PSW bits, control registers, meter) |
//! | [`pgm`] | program exceptions and condition codes |
//! | [`storage`] | typed, bounds-checked absolute guest storage |
//!
//! [`facility_list`] is the STORE FACILITY LIST EXTENDED contribution (bits 40, 67, 68, 142).

pub mod alerts;
pub mod counter;
pub mod cpu;
pub mod crypto;
pub mod instructions;
pub mod model;
pub mod pgm;
pub mod program_param;
pub mod sampling;
pub mod storage;

use cpu::Arch;

/// STFLE: facilities 40 (load program parameter), 67 (counter), 68 (sampling) and 142
/// (store CPU counter multiple), z/Architecture only.
pub fn facility_list(buf: &mut [u8], len: usize, arch: Arch) -> usize {
    if arch != Arch::Z {
        return len;
    }
    let mut len = len;
    for bit in [40usize, 67, 68, 142] {
        let byte = bit / 8;
        if byte < buf.len() {
            buf[byte] |= 0x80 >> (bit % 8);
            len = len.max(byte + 1);
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facility_bits_40_67_68_142() {
        let mut buf = [0u8; 32];
        let n = facility_list(&mut buf, 16, Arch::Z);
        assert_eq!(n, 18);
        assert_eq!(buf[5], 0x80); // bit 40
        assert_eq!(buf[8], 0x18); // bits 67, 68
        assert_eq!(buf[17], 0x02); // bit 142
        let mut other = [0u8; 32];
        assert_eq!(facility_list(&mut other, 16, Arch::Esa390), 16);
        assert_eq!(other, [0u8; 32]);
    }
}
