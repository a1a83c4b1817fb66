//! The data entries: basic-sampling (format 0001) and the emulator's diagnostic-sampling entry.

use crate::cpu::CpuView;
use crate::model::MachineModel;

/// Data-entry format code of the basic-sampling data entry.
pub const BSDE_FORMAT: u16 = 0x0001;
/// Data-entry format code of the plugin's diagnostic-sampling data entry.
pub const DSDE_FORMAT: u16 = 0x8001;

/// The basic-sampling data entry, format 0001 (Figure 2-17), of the CPU state in `view`.
/// `h` is the host indicator; the program parameter goes to the guest- or host-program-
/// parameter field per the host-indicator rules at the logical-partition level.
pub fn basic_entry_bytes(view: &CpuView, gpp: u64, hpp: u64, h: bool) -> [u8; 32] {
    let mut e = [0u8; 32];
    e[0..2].copy_from_slice(&BSDE_FORMAT.to_be_bytes());
    // U: an emulated CPU completes one instruction at the sampling point when busy.
    e[2] = if view.wait { 0 } else { 1 };
    let mut b3 = 0u8;
    if view.dat {
        b3 |= 0x20; // T, bit 26
    }
    if view.wait {
        b3 |= 0x10; // W, bit 27
    }
    if view.problem_state {
        b3 |= 0x08; // P, bit 28
    }
    b3 |= (view.asc & 3) << 1; // AS, bits 29-30
    e[3] = b3;
    // CL = 1 (logical-partition level), H, LS = 0.
    e[4] = 0x40 | if h { 0x20 } else { 0 };
    e[6..8].copy_from_slice(&view.primary_asn().to_be_bytes());
    e[8..16].copy_from_slice(&view.ia.to_be_bytes());
    e[16..24].copy_from_slice(&gpp.to_be_bytes());
    e[24..32].copy_from_slice(&hpp.to_be_bytes());
    e
}

/// The plugin's diagnostic-sampling data entry, format 8001, `m.dsdes` (64) bytes. The
/// architecture leaves the content after the 4-byte header model dependent; the emulator's:
///
/// | bytes | content |
/// |---|---|
/// | 0-1 | format code 8001 |
/// | 2-3 | reserved bits, I (bit 31) = 0 |
/// | 4-5 | length of the sampled instruction |
/// | 6-7 | CPU address |
/// | 8-13 | instruction text (zero-padded) |
/// | 16-23 | instructions the CPU executed so far (the meter) |
/// | 24-31 | CPU time in nanoseconds so far |
/// | 32-39 | TOD clock at the sample |
/// | 40-47 | control register 0 |
/// | 48-55 | problem-state instructions so far |
/// | 56-63 | zero |
pub fn diagnostic_entry_bytes(m: &MachineModel, view: &CpuView) -> Vec<u8> {
    let mut d = vec![0u8; usize::from(m.dsdes).max(64)];
    d[0..2].copy_from_slice(&DSDE_FORMAT.to_be_bytes());
    d[4..6].copy_from_slice(&u16::from(view.ilen).to_be_bytes());
    d[6..8].copy_from_slice(&view.cpu.to_be_bytes());
    let n = usize::from(view.ilen).min(6);
    d[8..8 + n].copy_from_slice(&view.inst[..n]);
    d[16..24].copy_from_slice(&view.meter.instructions.to_be_bytes());
    d[24..32].copy_from_slice(&view.meter.cpu_ns.to_be_bytes());
    d[32..40].copy_from_slice(&view.tod.to_be_bytes());
    d[40..48].copy_from_slice(&view.cr0.to_be_bytes());
    d[48..56].copy_from_slice(&view.meter.problem_instructions.to_be_bytes());
    d.truncate(usize::from(m.dsdes));
    d
}
