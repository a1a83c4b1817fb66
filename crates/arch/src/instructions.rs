//! The CPU-measurement instructions as the glue hands them over (SA23-2260, section 2 and
//! the Load Program Parameter facility): opcodes, decoded operands, what the glue must do
//! afterwards, and the checks made before any operand is touched.
//!
//! Exception priority follows the z/Architecture Principles of Operation: operation,
//! privileged operation (both in [`precheck`], before the operand is fetched); then the glue
//! fetches the operand (access exceptions, Hercules' DAT); then the specification checks on
//! the operand's contents, made by the facility that executes the instruction.

use crate::cpu::{Arch, CpuView};
use crate::model::MachineModel;
use crate::pgm::{Cc, ProgramException};

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
    /// Only a condition code.
    pub fn cc(cc: Cc) -> Outcome {
        Outcome {
            cc: Some(cc),
            ..Default::default()
        }
    }
}

/// Facilities offered to the CPU's architecture mode: z/Architecture always; S/370 and
/// ESA/390 only when the operator allowed it (MVS 3.8J, VM/370 guests).
fn offered(m: &MachineModel, view: &CpuView) -> bool {
    view.arch == Arch::Z || m.all_architectures
}

/// Checks made before any operand access: operation and privileged-operation exceptions.
pub fn precheck(m: &MachineModel, opcode: u32, view: &CpuView) -> Result<(), ProgramException> {
    if !offered(m, view) {
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

/// A big-endian operand of up to 8 bytes (shorter ones are padded on the right).
pub fn be_u64(operand: &[u8]) -> u64 {
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
