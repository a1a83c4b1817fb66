//! Data entries (SA23-2260, "Data Entry", "Basic-Sampling Data Entry", "Diagnostic-Sampling
//! Data Entry", "Combined-Sampling Data Entry"): the basic-sampling data entry (BSDE) of format
//! 0001 and the emulator's diagnostic-sampling data entry (DSDE) of format 8001.

use crate::cpu::CpuView;
use crate::model::MachineModel;
use bitflags::bitflags;
use thiserror::Error;

/// Data-entry format code of the basic-sampling data entry (Figure 2-17).
pub const BSDE_FORMAT: u16 = 0x0001;
/// Data-entry format code of the emulator's diagnostic-sampling data entry (Figure 2-18).
pub const DSDE_FORMAT: u16 = 0x8001;
/// Size of a format-0001 basic-sampling data entry.
pub const BSDE_SIZE: usize = 32;
/// Size of the emulator's diagnostic content; the model's DSDES pads or cuts it.
pub const DSDE_CONTENT_SIZE: usize = 64;

bitflags! {
    /// Byte 3 (bits 24-31) of a BSDE: T, W, P, the AS field (bits 29-30) and I.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct BsdeStateBits: u8 {
        /// Bit 26, T: PSW DAT mode.
        const T = 0x20;
        /// Bit 27, W: PSW wait state.
        const W = 0x10;
        /// Bit 28, P: PSW problem state.
        const P = 0x08;
        /// Bits 29-30, AS: PSW address-space control.
        const AS = 0x06;
        /// Bit 31, I: invalid indication.
        const I = 0x01;
    }
}

bitflags! {
    /// Byte 4 (bits 32-39) of a BSDE: CL, H and LS.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct BsdeLevelBits: u8 {
        /// Bits 32-33, CL: configuration level.
        const CL = 0xC0;
        /// Bit 34, H: host indicator.
        const H = 0x20;
        /// Bit 35, LS: limited sample.
        const LS = 0x10;
    }
}

/// Configuration-level code of the BSDE (bits 32-33).
pub const CL_LOGICAL_PARTITION: u8 = 1;

/// A data entry that does not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum EntryError {
    /// The data-entry format code is not the one expected.
    #[error("data-entry format code {0:#06x}")]
    Format(u16),
    /// Too few bytes for the entry.
    #[error("{0} bytes are too few for the entry")]
    Short(usize),
}

/// The basic-sampling data entry, format 0001 (Figure 2-17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Bsde {
    /// Bits 20-23, U: unique instructions at the sampling point (bits 16-19, reserved for
    /// programming, are stored as zeros).
    pub unique: u8,
    /// Bit 26, T.
    pub dat: bool,
    /// Bit 27, W.
    pub wait: bool,
    /// Bit 28, P.
    pub problem_state: bool,
    /// Bits 29-30, AS.
    pub asc: u8,
    /// Bit 31, I.
    pub invalid: bool,
    /// Bits 32-33, CL.
    pub configuration_level: u8,
    /// Bit 34, H.
    pub host: bool,
    /// Bit 35, LS.
    pub limited: bool,
    /// Bytes 6-7: primary ASN (CR4 bits 48-63).
    pub primary_asn: u16,
    /// Bytes 8-15: instruction address.
    pub ia: u64,
    /// Bytes 16-23: guest program parameter.
    pub gpp: u64,
    /// Bytes 24-31: host program parameter.
    pub hpp: u64,
}

impl Bsde {
    /// The entry for the CPU state in `view` at the logical-partition level: CL = 1, LS = 0,
    /// with one unique instruction at the sampling point (see [`Bsde::at`]).
    pub fn of_view(view: &CpuView, gpp: u64, hpp: u64, h: bool) -> Bsde {
        Bsde::at(view, 1, gpp, hpp, h)
    }

    /// The entry for the CPU state in `view` with `unique` instructions completed at the
    /// sampling point (U, "Number of Unique Instructions": at most 15, the 4 bits of the
    /// field; zero in the wait state, when the sampling point is not busy).
    pub fn at(view: &CpuView, unique: u8, gpp: u64, hpp: u64, h: bool) -> Bsde {
        Bsde {
            unique: if view.wait { 0 } else { unique.min(15) },
            dat: view.dat,
            wait: view.wait,
            problem_state: view.problem_state,
            asc: view.asc & 3,
            invalid: false,
            configuration_level: CL_LOGICAL_PARTITION,
            host: h,
            limited: false,
            primary_asn: view.primary_asn(),
            ia: view.ia,
            gpp,
            hpp,
        }
    }

    /// The 32 bytes of the entry.
    pub fn encode(&self) -> [u8; BSDE_SIZE] {
        let mut e = [0u8; BSDE_SIZE];
        e[0..2].copy_from_slice(&BSDE_FORMAT.to_be_bytes());
        e[2] = self.unique & 0x0F;
        let mut st = BsdeStateBits::empty();
        st.set(BsdeStateBits::T, self.dat);
        st.set(BsdeStateBits::W, self.wait);
        st.set(BsdeStateBits::P, self.problem_state);
        st.set(BsdeStateBits::I, self.invalid);
        e[3] = st.bits() | ((self.asc & 3) << 1);
        let mut lv = BsdeLevelBits::from_bits_retain((self.configuration_level & 3) << 6);
        lv.set(BsdeLevelBits::H, self.host);
        lv.set(BsdeLevelBits::LS, self.limited);
        e[4] = lv.bits();
        e[6..8].copy_from_slice(&self.primary_asn.to_be_bytes());
        e[8..16].copy_from_slice(&self.ia.to_be_bytes());
        e[16..24].copy_from_slice(&self.gpp.to_be_bytes());
        e[24..32].copy_from_slice(&self.hpp.to_be_bytes());
        e
    }

    /// Decode a format-0001 entry.
    pub fn decode(b: &[u8]) -> Result<Bsde, EntryError> {
        let b: &[u8; BSDE_SIZE] = b
            .get(..BSDE_SIZE)
            .and_then(|s| s.try_into().ok())
            .ok_or(EntryError::Short(b.len()))?;
        let format = u16::from_be_bytes([b[0], b[1]]);
        if format != BSDE_FORMAT {
            return Err(EntryError::Format(format));
        }
        let st = BsdeStateBits::from_bits_retain(b[3]);
        let lv = BsdeLevelBits::from_bits_retain(b[4]);
        let d = |k: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&b[k..k + 8]);
            u64::from_be_bytes(x)
        };
        Ok(Bsde {
            unique: b[2] & 0x0F,
            dat: st.contains(BsdeStateBits::T),
            wait: st.contains(BsdeStateBits::W),
            problem_state: st.contains(BsdeStateBits::P),
            asc: (b[3] & BsdeStateBits::AS.bits()) >> 1,
            invalid: st.contains(BsdeStateBits::I),
            configuration_level: b[4] >> 6,
            host: lv.contains(BsdeLevelBits::H),
            limited: lv.contains(BsdeLevelBits::LS),
            primary_asn: u16::from_be_bytes([b[6], b[7]]),
            ia: d(8),
            gpp: d(16),
            hpp: d(24),
        })
    }
}

/// The basic-sampling data entry, format 0001 (Figure 2-17), of the CPU state in `view` with
/// `unique` instructions at the sampling point (U). `h` is the host indicator; the program
/// parameter goes to the guest- or host-program-parameter field per the host-indicator rules
/// at the logical-partition level.
pub fn basic_entry_bytes(view: &CpuView, unique: u8, gpp: u64, hpp: u64, h: bool) -> [u8; 32] {
    Bsde::at(view, unique, gpp, hpp, h).encode()
}

/// The emulator's diagnostic-sampling data entry, format 8001. SA23-2260 defines only the
/// 4-byte header (format code, reserved bits 16-30 stored as zeros, I in bit 31); the content
/// after it is model dependent. The emulator's:
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dsde {
    /// Length of the sampled instruction.
    pub ilen: u16,
    /// CPU address.
    pub cpu: u16,
    /// Instruction text, zero-padded.
    pub inst: [u8; 6],
    /// Instructions executed so far.
    pub instructions: u64,
    /// CPU time so far in nanoseconds.
    pub cpu_ns: u64,
    /// TOD clock at the sample.
    pub tod: u64,
    /// Control register 0.
    pub cr0: u64,
    /// Problem-state instructions so far.
    pub problem_instructions: u64,
}

impl Dsde {
    /// The entry of the CPU state in `view`.
    pub fn of_view(view: &CpuView) -> Dsde {
        let n = usize::from(view.ilen).min(6);
        let mut inst = [0u8; 6];
        inst[..n].copy_from_slice(&view.inst[..n]);
        Dsde {
            ilen: u16::from(view.ilen),
            cpu: view.cpu,
            inst,
            instructions: view.meter.instructions,
            cpu_ns: view.meter.cpu_ns,
            tod: view.tod,
            cr0: view.cr0,
            problem_instructions: view.meter.problem_instructions,
        }
    }

    /// The entry in `size` bytes (the model's DSDES): zero-padded beyond the 64 bytes of
    /// content, cut short below.
    pub fn encode(&self, size: usize) -> Vec<u8> {
        let mut d = vec![0u8; size.max(DSDE_CONTENT_SIZE)];
        d[0..2].copy_from_slice(&DSDE_FORMAT.to_be_bytes());
        d[4..6].copy_from_slice(&self.ilen.to_be_bytes());
        d[6..8].copy_from_slice(&self.cpu.to_be_bytes());
        d[8..14].copy_from_slice(&self.inst);
        d[16..24].copy_from_slice(&self.instructions.to_be_bytes());
        d[24..32].copy_from_slice(&self.cpu_ns.to_be_bytes());
        d[32..40].copy_from_slice(&self.tod.to_be_bytes());
        d[40..48].copy_from_slice(&self.cr0.to_be_bytes());
        d[48..56].copy_from_slice(&self.problem_instructions.to_be_bytes());
        d.truncate(size);
        d
    }

    /// Decode the 64 content bytes of a format-8001 entry.
    pub fn decode(b: &[u8]) -> Result<Dsde, EntryError> {
        if b.len() < DSDE_CONTENT_SIZE {
            return Err(EntryError::Short(b.len()));
        }
        let format = u16::from_be_bytes([b[0], b[1]]);
        if format != DSDE_FORMAT {
            return Err(EntryError::Format(format));
        }
        let d = |k: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&b[k..k + 8]);
            u64::from_be_bytes(x)
        };
        let mut inst = [0u8; 6];
        inst.copy_from_slice(&b[8..14]);
        Ok(Dsde {
            ilen: u16::from_be_bytes([b[4], b[5]]),
            cpu: u16::from_be_bytes([b[6], b[7]]),
            inst,
            instructions: d(16),
            cpu_ns: d(24),
            tod: d(32),
            cr0: d(40),
            problem_instructions: d(48),
        })
    }
}

/// The emulator's diagnostic-sampling data entry, `m.dsdes` bytes (see [`Dsde`]).
pub fn diagnostic_entry_bytes(m: &MachineModel, view: &CpuView) -> Vec<u8> {
    Dsde::of_view(view).encode(usize::from(m.dsdes))
}

/// Bytes a data entry can have here: a BSDE and the emulator's DSDE (the model's DSDES is
/// 64; larger ones are cut to fit).
pub const MAX_ENTRY: usize = BSDE_SIZE + 128;

/// A data entry as stored, built without a heap allocation (one is stored per sample).
#[derive(Clone, Copy, Debug)]
pub struct DataEntry {
    bytes: [u8; MAX_ENTRY],
    len: usize,
}

impl DataEntry {
    fn push(&mut self, b: &[u8]) {
        let n = b.len().min(MAX_ENTRY - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&b[..n]);
        self.len += n;
    }
}

impl std::ops::Deref for DataEntry {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The data entry the active functions store ("Data Entry"): a BSDE, a DSDE, or the
/// combined-sampling data entry, a BSDE followed by a DSDE, stored as one piece.
pub fn data_entry(
    m: &MachineModel,
    view: &CpuView,
    unique: u8,
    basic: bool,
    diagnostic: bool,
    pp: u64,
    h: bool,
) -> DataEntry {
    let mut e = DataEntry {
        bytes: [0; MAX_ENTRY],
        len: 0,
    };
    if basic {
        // Guest program parameter with H = 0, host program parameter with H = 1; the other
        // field zero (logical-partition level).
        let (gpp, hpp) = if h { (0, pp) } else { (pp, 0) };
        e.push(&basic_entry_bytes(view, unique, gpp, hpp, h));
    }
    if diagnostic {
        e.push(&diagnostic_entry_bytes(m, view));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> CpuView {
        CpuView {
            cpu: 3,
            ia: 0x0000_7FFF_1234_5678,
            problem_state: true,
            dat: true,
            asc: 3,
            cr0: 0xE0,
            cr4: 0x1_0042,
            tod: 0xAABB_CCDD_EEFF_0011,
            inst: [0xB2, 0x87, 0x10, 0x00, 0xEE, 0xEE],
            ilen: 4,
            meter: crate::cpu::MeterReading {
                instructions: 1000,
                cpu_ns: 2000,
                problem_instructions: 300,
                problem_cpu_ns: 400,
            },
            ..Default::default()
        }
    }

    #[test]
    fn bsde_bits_sit_where_figure_2_17_puts_them() {
        let e = basic_entry_bytes(&view(), 1, 0x11, 0x22, true);
        assert_eq!(&e[0..2], &[0, 1], "format 0001");
        assert_eq!(e[2], 0x01, "R (bits 16-19) zero, U (20-23) = 1");
        // bits 24-25 zero, T=1 (26), W=0 (27), P=1 (28), AS=3 (29-30), I=0 (31).
        assert_eq!(e[3], 0b0010_1110);
        // CL = 01 (32-33), H = 1 (34), LS = 0 (35), reserved 36-39.
        assert_eq!(e[4], 0b0110_0000);
        assert_eq!(e[5], 0, "reserved bits 40-47");
        assert_eq!(&e[6..8], &[0, 0x42], "primary ASN = CR4 bits 48-63");
        assert_eq!(&e[8..16], &0x0000_7FFF_1234_5678u64.to_be_bytes());
        assert_eq!(&e[16..24], &0x11u64.to_be_bytes());
        assert_eq!(&e[24..32], &0x22u64.to_be_bytes());
        let d = Bsde::decode(&e).unwrap();
        assert_eq!(d, Bsde::of_view(&view(), 0x11, 0x22, true));
        assert_eq!(d.encode(), e);
        // Wait state: W = 1 and U = 0.
        let w = CpuView {
            wait: true,
            ..view()
        };
        let e = basic_entry_bytes(&w, 1, 0, 0, false);
        assert_eq!((e[2], e[3] & 0x10, e[4]), (0, 0x10, 0x40));
    }

    #[test]
    fn bsde_decode_rejects_other_formats_and_short_input() {
        let mut e = basic_entry_bytes(&view(), 1, 0, 0, false);
        assert_eq!(Bsde::decode(&e[..31]), Err(EntryError::Short(31)));
        e[1] = 2;
        assert_eq!(Bsde::decode(&e), Err(EntryError::Format(2)));
    }

    #[test]
    fn dsde_header_and_content() {
        let mut m = MachineModel::for_machine_type(0x2097);
        let d = diagnostic_entry_bytes(&m, &view());
        assert_eq!(d.len(), usize::from(m.dsdes));
        assert_eq!(&d[0..4], &[0x80, 0x01, 0, 0], "format 8001, R and I zero");
        assert_eq!(
            &d[8..14],
            &[0xB2, 0x87, 0x10, 0x00, 0, 0],
            "ilen bytes only"
        );
        assert_eq!(Dsde::decode(&d).unwrap(), Dsde::of_view(&view()));
        // A larger DSDES pads with zeros (z196: 74, zEC12: 85).
        m.dsdes = 85;
        let d = diagnostic_entry_bytes(&m, &view());
        assert_eq!(d.len(), 85);
        assert!(d[64..].iter().all(|&b| b == 0));
        assert_eq!(Dsde::decode(&[0x80, 1]), Err(EntryError::Short(2)));
    }

    #[test]
    fn data_entries_per_active_function() {
        let m = MachineModel::for_machine_type(0x2097);
        let v = view();
        let b = data_entry(&m, &v, 1, true, false, 7, false);
        assert_eq!(b.len(), 32);
        assert_eq!(
            Bsde::decode(&b).unwrap().gpp,
            7,
            "H = 0: guest program parameter"
        );
        let b = data_entry(&m, &v, 1, true, false, 7, true);
        let d = Bsde::decode(&b).unwrap();
        assert_eq!(
            (d.gpp, d.hpp, d.host),
            (0, 7, true),
            "H = 1: host program parameter"
        );
        let d = data_entry(&m, &v, 1, false, true, 7, true);
        assert_eq!(&d[0..2], &[0x80, 0x01]);
        assert_eq!(d.len(), usize::from(m.dsdes));
        let c = data_entry(&m, &v, 1, true, true, 7, false);
        assert_eq!(
            c.len(),
            32 + usize::from(m.dsdes),
            "combined: BSDE then DSDE"
        );
        assert_eq!((&c[0..2], &c[32..34]), (&[0u8, 1][..], &[0x80u8, 1][..]));
    }
}
