//! Program-interruption conditions the facilities recognize, and the outcome of an
//! instruction handed back to the Hercules glue.

use thiserror::Error;

/// A program exception recognized by one of the CPU-measurement instructions. The value is the
/// program-interruption code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
#[repr(u16)]
pub enum ProgramException {
    /// The facility is not installed (or not offered in this architecture mode).
    #[error("operation exception")]
    Operation = 0x0001,
    /// Problem state where the instruction needs supervisor state or CR0 bit 15.
    #[error("privileged-operation exception")]
    PrivilegedOperation = 0x0002,
    /// Reserved bits, out-of-range values or a misaligned operand.
    #[error("specification exception")]
    Specification = 0x0006,
    /// STORE CPU COUNTER MULTIPLE with M3 = 9 in the problem state.
    #[error("special-operation exception")]
    SpecialOperation = 0x0013,
}

impl ProgramException {
    /// The program-interruption code.
    pub fn code(self) -> u16 {
        self as u16
    }
}

/// Condition code set by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cc {
    Zero = 0,
    One = 1,
    Two = 2,
    Three = 3,
}
