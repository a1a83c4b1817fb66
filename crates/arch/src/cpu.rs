//! What a CPU looks like to the facilities at one instruction boundary.
//!
//! The Hercules glue captures this on the CPU's own thread (operands, PSW bits, control
//! registers, the instruction count) so that every architectural decision can be made here, in
//! Rust, and unit-tested with made-up views.

/// Architecture mode of the CPU issuing an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Arch {
    /// System/370 (MVS 3.8J, VM/370).
    S370 = 0,
    /// ESA/390.
    Esa390 = 1,
    /// z/Architecture.
    #[default]
    Z = 2,
}

impl Arch {
    /// From the glue's architecture number.
    pub fn from_u32(v: u32) -> Arch {
        match v {
            0 => Arch::S370,
            1 => Arch::Esa390,
            _ => Arch::Z,
        }
    }
}

/// Measurements of one CPU, monotonic while the CPU is not reset. Counter values are
/// differences of two readings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MeterReading {
    /// Instructions executed by the CPU.
    pub instructions: u64,
    /// Host CPU time given to the CPU while it was not waiting or stopped (nanoseconds).
    pub cpu_ns: u64,
    /// Of those instructions, the ones executed in the problem state.
    pub problem_instructions: u64,
    /// Of that time, the part spent in the problem state (nanoseconds).
    pub problem_cpu_ns: u64,
}

/// The state of the issuing CPU at an instruction boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CpuView {
    /// CPU address.
    pub cpu: u16,
    /// Architecture mode.
    pub arch: Arch,
    /// PSW problem-state bit (P).
    pub problem_state: bool,
    /// PSW wait-state bit (W).
    pub wait: bool,
    /// PSW DAT-mode bit (T).
    pub dat: bool,
    /// PSW address-space control (AS), 0-3.
    pub asc: u8,
    /// PSW external-interruption mask.
    pub ext_mask: bool,
    /// An external interruption of higher priority than the measurement alert is pending and
    /// the CPU is enabled for it (SA23-2260, External Interruption: priorities).
    pub higher_external_pending: bool,
    /// Address of the instruction being executed.
    pub ia: u64,
    /// Control register 0 (in S/370 and ESA/390 the 32-bit value in the low half).
    pub cr0: u64,
    /// Control register 4 (primary ASN in bits 48-63).
    pub cr4: u64,
    /// The instruction text (up to 6 bytes) and its length.
    pub inst: [u8; 6],
    /// Length of the instruction in bytes (2, 4 or 6).
    pub ilen: u8,
    /// Measurements up to this boundary.
    pub meter: MeterReading,
    /// TOD clock (bits 0-63, STORE CLOCK format) at this boundary.
    pub tod: u64,
}

impl CpuView {
    /// CR0 bit 15 (z/Architecture numbering): measurement-counter-extraction authorization.
    pub fn counter_extraction_authorized(&self) -> bool {
        self.cr0 & (1 << (63 - 15)) != 0
    }
    /// CR0 bit 58: measurement-alert subclass mask (0x20 in the low word, the same bit
    /// position as the S/370 and ESA/390 external-signal subclass mask).
    pub fn measurement_alert_enabled(&self) -> bool {
        self.cr0 & 0x20 != 0
    }
    /// Primary ASN from CR4 bits 48-63.
    pub fn primary_asn(&self) -> u16 {
        (self.cr4 & 0xFFFF) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr0_bits_use_msb0_numbering() {
        let v = CpuView {
            cr0: 0x0001_0000_0000_0020,
            ..Default::default()
        };
        assert!(v.counter_extraction_authorized());
        assert!(v.measurement_alert_enabled());
        let w = CpuView::default();
        assert!(!w.counter_extraction_authorized());
        assert!(!w.measurement_alert_enabled());
    }
}
