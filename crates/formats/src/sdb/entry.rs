//! Data entries of a sample-data block (SA23-2260, "Data Entry", "Basic-Sampling Data
//! Entry" (Figure 2-17), "Diagnostic-Sampling Data Entry", "Combined-Sampling Data Entry"):
//! the BSDE of format 0001, the emulator's DSDE of format 8001 and the entry the active
//! functions store.

use bitflags::bitflags;
use thiserror::Error;

/// Data-entry format code of the basic-sampling data entry (Figure 2-17).
pub const BSDE_FORMAT: u16 = 0x0001;
/// Data-entry format code of the emulator's diagnostic-sampling data entry ("Diagnostic-
/// Sampling Data Entry": bit 0 of the format code is one, the rest is model dependent).
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

/// Configuration-level code of the BSDE (bits 32-33): logical partition.
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
    /// The 32 bytes of the entry.
    pub fn encode(&self) -> [u8; BSDE_SIZE] {
        let mut e = [0u8; BSDE_SIZE];
        e[0..2].copy_from_slice(&BSDE_FORMAT.to_be_bytes());
        e[2] = self.unique & 0x0F;
        let mut st = BsdeStateBits::from_bits_retain((self.asc & 3) << 1);
        st.set(BsdeStateBits::T, self.dat);
        st.set(BsdeStateBits::W, self.wait);
        st.set(BsdeStateBits::P, self.problem_state);
        st.set(BsdeStateBits::I, self.invalid);
        e[3] = st.bits();
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

    /// Is this the format code of a basic-sampling data entry?
    #[inline(always)]
    pub fn is_bsde(b: &[u8; BSDE_SIZE]) -> bool {
        u16::from_be_bytes([b[0], b[1]]) == BSDE_FORMAT
    }

    /// Decode 32 bytes known to hold a format-0001 entry ([`Bsde::is_bsde`]); the .SMP
    /// reader calls this for every entry of a file, so it is one fixed-size read.
    #[inline(always)]
    pub fn decode_bsde(b: &[u8; BSDE_SIZE]) -> Bsde {
        let st = BsdeStateBits::from_bits_retain(b[3]);
        let lv = BsdeLevelBits::from_bits_retain(b[4]);
        Bsde {
            unique: b[2] & 0x0F,
            dat: st.contains(BsdeStateBits::T),
            wait: st.contains(BsdeStateBits::W),
            problem_state: st.contains(BsdeStateBits::P),
            asc: (st & BsdeStateBits::AS).bits() >> 1,
            invalid: st.contains(BsdeStateBits::I),
            configuration_level: (lv & BsdeLevelBits::CL).bits() >> 6,
            host: lv.contains(BsdeLevelBits::H),
            limited: lv.contains(BsdeLevelBits::LS),
            primary_asn: u16::from_be_bytes([b[6], b[7]]),
            ia: be64(b, 8),
            gpp: be64(b, 16),
            hpp: be64(b, 24),
        }
    }

    /// Decode a format-0001 entry.
    pub fn decode(b: &[u8]) -> Result<Bsde, EntryError> {
        let b: &[u8; BSDE_SIZE] = b
            .get(..BSDE_SIZE)
            .and_then(|s| s.try_into().ok())
            .ok_or(EntryError::Short(b.len()))?;
        if !Bsde::is_bsde(b) {
            return Err(EntryError::Format(u16::from_be_bytes([b[0], b[1]])));
        }
        Ok(Bsde::decode_bsde(b))
    }
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
    /// Is this the first halfword of a diagnostic-sampling data entry (format-code bit 0)?
    #[inline(always)]
    pub fn is_dsde_format(format: u16) -> bool {
        format & 0x8000 != 0
    }

    /// The entry in `size` bytes (the model's DSDES), written into `out[..size]`: zero-padded
    /// beyond the 64 bytes of content, cut short below. `out` must hold `size` bytes.
    pub fn encode_into(&self, out: &mut [u8]) {
        let mut d = [0u8; DSDE_CONTENT_SIZE];
        d[0..2].copy_from_slice(&DSDE_FORMAT.to_be_bytes());
        d[4..6].copy_from_slice(&self.ilen.to_be_bytes());
        d[6..8].copy_from_slice(&self.cpu.to_be_bytes());
        d[8..14].copy_from_slice(&self.inst);
        d[16..24].copy_from_slice(&self.instructions.to_be_bytes());
        d[24..32].copy_from_slice(&self.cpu_ns.to_be_bytes());
        d[32..40].copy_from_slice(&self.tod.to_be_bytes());
        d[40..48].copy_from_slice(&self.cr0.to_be_bytes());
        d[48..56].copy_from_slice(&self.problem_instructions.to_be_bytes());
        let n = out.len().min(DSDE_CONTENT_SIZE);
        out[..n].copy_from_slice(&d[..n]);
        out[n..].fill(0);
    }

    /// The entry in `size` bytes (the model's DSDES).
    pub fn encode(&self, size: usize) -> Vec<u8> {
        let mut d = vec![0u8; size];
        self.encode_into(&mut d);
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
        let mut inst = [0u8; 6];
        inst.copy_from_slice(&b[8..14]);
        Ok(Dsde {
            ilen: u16::from_be_bytes([b[4], b[5]]),
            cpu: u16::from_be_bytes([b[6], b[7]]),
            inst,
            instructions: be64(b, 16),
            cpu_ns: be64(b, 24),
            tod: be64(b, 32),
            cr0: be64(b, 40),
            problem_instructions: be64(b, 48),
        })
    }
}

/// Bytes a data entry can have here: a BSDE and the emulator's DSDE (DSDES up to 128).
pub const MAX_ENTRY: usize = BSDE_SIZE + 128;

/// A data entry as stored ("Data Entry"): a BSDE, a DSDE, or the combined-sampling data
/// entry, a BSDE followed by a DSDE, stored as one piece. Built without a heap allocation
/// (one is stored per sample).
#[derive(Clone, Copy, Debug)]
pub struct DataEntry {
    bytes: [u8; MAX_ENTRY],
    len: usize,
}

impl DataEntry {
    /// The entry the active functions store: `basic` and/or `diagnostic` (in `dsdes` bytes).
    pub fn new(basic: Option<&Bsde>, diagnostic: Option<(&Dsde, usize)>) -> DataEntry {
        let mut e = DataEntry {
            bytes: [0; MAX_ENTRY],
            len: 0,
        };
        if let Some(b) = basic {
            e.bytes[..BSDE_SIZE].copy_from_slice(&b.encode());
            e.len = BSDE_SIZE;
        }
        if let Some((d, dsdes)) = diagnostic {
            let n = dsdes.min(MAX_ENTRY - e.len);
            d.encode_into(&mut e.bytes[e.len..e.len + n]);
            e.len += n;
        }
        e
    }
}

impl std::ops::Deref for DataEntry {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[inline(always)]
fn be64(b: &[u8], k: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[k..k + 8]);
    u64::from_be_bytes(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bsde() -> Bsde {
        Bsde {
            unique: 1,
            dat: true,
            problem_state: true,
            asc: 3,
            configuration_level: CL_LOGICAL_PARTITION,
            host: true,
            primary_asn: 0x42,
            ia: 0x0000_7FFF_1234_5678,
            gpp: 0x11,
            hpp: 0x22,
            ..Default::default()
        }
    }

    #[test]
    fn bsde_bits_sit_where_figure_2_17_puts_them() {
        let e = bsde().encode();
        assert_eq!(&e[0..2], &[0, 1], "format 0001");
        assert_eq!(e[2], 0x01, "R (bits 16-19) zero, U (20-23) = 1");
        // bits 24-25 zero, T=1 (26), W=0 (27), P=1 (28), AS=3 (29-30), I=0 (31).
        assert_eq!(e[3], 0b0010_1110);
        // CL = 01 (32-33), H = 1 (34), LS = 0 (35), reserved 36-39.
        assert_eq!(e[4], 0b0110_0000);
        assert_eq!(e[5], 0, "reserved bits 40-47");
        assert_eq!(&e[6..8], &[0, 0x42], "primary ASN");
        assert_eq!(&e[8..16], &0x0000_7FFF_1234_5678u64.to_be_bytes());
        assert_eq!(&e[16..24], &0x11u64.to_be_bytes());
        assert_eq!(&e[24..32], &0x22u64.to_be_bytes());
        assert_eq!(Bsde::decode(&e), Ok(bsde()));
        let w = Bsde {
            wait: true,
            limited: true,
            invalid: true,
            unique: 0,
            ..bsde()
        };
        let e = w.encode();
        assert_eq!((e[3] & 0x11, e[4] & 0x10), (0x11, 0x10), "W, I and LS");
        assert_eq!(Bsde::decode(&e), Ok(w));
    }

    #[test]
    fn bsde_decode_rejects_other_formats_and_short_input() {
        let mut e = bsde().encode();
        assert_eq!(Bsde::decode(&e[..31]), Err(EntryError::Short(31)));
        e[1] = 2;
        assert_eq!(Bsde::decode(&e), Err(EntryError::Format(2)));
    }

    #[test]
    fn dsde_pads_and_cuts_to_the_model_size() {
        let d = Dsde {
            ilen: 4,
            cpu: 3,
            inst: [0xB2, 0x87, 0x10, 0, 0, 0],
            instructions: 1000,
            cpu_ns: 2000,
            tod: 7,
            cr0: 0xE0,
            problem_instructions: 300,
        };
        let b = d.encode(85);
        assert_eq!(&b[0..4], &[0x80, 0x01, 0, 0], "format 8001, R and I zero");
        assert!(b[64..].iter().all(|&x| x == 0));
        assert_eq!(Dsde::decode(&b), Ok(d));
        assert_eq!(d.encode(48).len(), 48);
        assert_eq!(Dsde::decode(&[0x80, 1]), Err(EntryError::Short(2)));
        let c = DataEntry::new(Some(&bsde()), Some((&d, 64)));
        assert_eq!(
            (c.len(), &c[0..2], &c[32..34]),
            (96, &[0u8, 1][..], &[0x80u8, 1][..])
        );
    }
}
