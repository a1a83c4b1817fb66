//! The sample-data block of SA23-2260 ("Sampling Buffer Structure", "Sample-Data Block",
//! "Data Entry", "Trailer Entries", Figures 2-17 and 2-25): the one codec of its data entries
//! and its trailer entry. The architecture stores them into guest storage with it, a HIS run
//! builds its 4-KB blocks with it ([`BlockWriter`]) and the .SMP reader decodes them with it.
//!
//! Everything is encoded and decoded explicitly, big-endian, at the offsets the architecture
//! gives; nothing else in the workspace knows an offset of these layouts.

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
/// Size of a trailer entry, the last 64 bytes of every sample-data block ("Trailer Entries").
pub const TRAILER_SIZE: usize = 64;
/// Offset of the timestamp field (bytes 16-31) in a trailer entry.
pub const TIMESTAMP_OFFSET: usize = 16;

/// The maximum buffer size the maximum-buffer-size indicator S selects (SA23-2260,
/// "Maximum-Buffer-Size Indicator"): the exact size and alignment of every sample-data block
/// and the boundary no sample-data-block table crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BufferSize {
    /// S = 0: 4K-byte blocks (the only size in a .SMP file).
    #[default]
    K4,
    /// S = 1: 1M-byte blocks.
    M1,
}

impl BufferSize {
    /// From the maximum-buffer-size indicator.
    pub fn from_s(s: bool) -> BufferSize {
        if s {
            BufferSize::M1
        } else {
            BufferSize::K4
        }
    }
    /// The maximum-buffer-size indicator.
    pub fn s(self) -> bool {
        self == BufferSize::M1
    }
    /// The size in bytes.
    pub const fn bytes(self) -> u64 {
        match self {
            BufferSize::K4 => 1 << 12,
            BufferSize::M1 => 1 << 20,
        }
    }
    /// Offset of the trailer entry within a block.
    pub const fn trailer_offset(self) -> u64 {
        self.bytes() - TRAILER_SIZE as u64
    }
    /// Offset of `addr` within its integral boundary of this size.
    pub const fn offset_of(self, addr: u64) -> u64 {
        addr & (self.bytes() - 1)
    }
    /// `addr` rounded down to an integral boundary of this size.
    pub const fn floor(self, addr: u64) -> u64 {
        addr & !(self.bytes() - 1)
    }
}

/// Size of a 4-KB sample-data block (S = 0), the blocks of a .SMP file.
pub const BLOCK_4K: usize = BufferSize::K4.bytes() as usize;
/// Offset of the trailer entry in a 4-KB block (4032).
pub const TRAILER_4K: usize = BLOCK_4K - TRAILER_SIZE;

// ---------------------------------------------------------------- data entries --------

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

#[inline(always)]
fn be64(b: &[u8], k: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[k..k + 8]);
    u64::from_be_bytes(x)
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

// ---------------------------------------------------------------- trailer entry -------

bitflags! {
    /// Byte 0 of a trailer entry (Figure 2-25). Bits 3-7 are reserved and "remain unchanged":
    /// decode with `from_bits_retain` so that they survive.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct TrailerFlags: u8 {
        /// Bit 0, F: block-full indicator.
        const F = 0x80;
        /// Bit 1, A: alert-request control.
        const A = 0x40;
        /// Bit 2, T: timestamp format (one: STORE CLOCK EXTENDED).
        const T = 0x20;
    }
}

/// Bytes 0-15 of a trailer entry (Figure 2-25): flags, BSDES, DSDES and the sample overflow
/// count. A program resets F, A and the count with COMPARE DOUBLE AND SWAP while sampling
/// continues ("Trailer Entries", programming note), so the update process changes these 16
/// bytes only with an interlocked update of the whole doubleword pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TrailerHeader {
    /// Byte 0 (reserved bits 3-7 retained).
    pub flags: TrailerFlags,
    /// Bytes 1-3, reserved ("remain unchanged").
    pub reserved: [u8; 3],
    /// Bytes 4-5: basic-sampling data-entry size.
    pub bsdes: u16,
    /// Bytes 6-7: diagnostic-sampling data-entry size.
    pub dsdes: u16,
    /// Bytes 8-15: sample overflow count, "the number of sample data that has been lost
    /// because the sample-data block is full".
    pub overflow: u64,
}

impl TrailerHeader {
    /// Decode bytes 0-15 of a trailer entry.
    pub fn decode(b: &[u8; 16]) -> TrailerHeader {
        let [f, r1, r2, r3, b4, b5, b6, b7, o @ ..] = *b;
        TrailerHeader {
            flags: TrailerFlags::from_bits_retain(f),
            reserved: [r1, r2, r3],
            bsdes: u16::from_be_bytes([b4, b5]),
            dsdes: u16::from_be_bytes([b6, b7]),
            overflow: u64::from_be_bytes(o),
        }
    }
    /// Encode bytes 0-15 of a trailer entry.
    pub fn encode(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0] = self.flags.bits();
        b[1..4].copy_from_slice(&self.reserved);
        b[4..6].copy_from_slice(&self.bsdes.to_be_bytes());
        b[6..8].copy_from_slice(&self.dsdes.to_be_bytes());
        b[8..16].copy_from_slice(&self.overflow.to_be_bytes());
        b
    }
}

/// The trailer's timestamp: "the TOD clock value at the time when the sample-data block
/// becomes full", in the format the T bit names ("Trailer Entries", Timestamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timestamp {
    /// T = 0: STORE CLOCK format in bytes 16-23; bytes 24-31 are reserved (left unchanged).
    Stck(u64),
    /// T = 1: STORE CLOCK EXTENDED format in bytes 16-31.
    Stcke([u8; 16]),
}

impl Default for Timestamp {
    fn default() -> Self {
        Timestamp::Stck(0)
    }
}

impl Timestamp {
    /// The timestamp of TOD clock bits 0-63 in the chosen format. In the STCKE format, byte 0
    /// is the epoch index (zero), bytes 1-8 hold TOD bits 0-63 and the rest is zero (the
    /// emulated clock has no more bits; the programmable field is zero).
    pub fn of_tod(tod: u64, stcke: bool) -> Timestamp {
        if stcke {
            let mut b = [0u8; 16];
            b[1..9].copy_from_slice(&tod.to_be_bytes());
            Timestamp::Stcke(b)
        } else {
            Timestamp::Stck(tod)
        }
    }
    /// Decode bytes 16-31 of a trailer entry in the format its T bit names.
    pub fn decode(b: &[u8; 16], extended: bool) -> Timestamp {
        if extended {
            Timestamp::Stcke(*b)
        } else {
            Timestamp::Stck(be64(b, 0))
        }
    }
    /// The T bit this format sets.
    pub fn is_extended(&self) -> bool {
        matches!(self, Timestamp::Stcke(_))
    }
    /// The bytes stored at trailer offset 16, in `out`; returns how many (8 or 16).
    pub fn encode_into(&self, out: &mut [u8; 16]) -> usize {
        match self {
            Timestamp::Stck(t) => {
                out[..8].copy_from_slice(&t.to_be_bytes());
                8
            }
            Timestamp::Stcke(b) => {
                *out = *b;
                16
            }
        }
    }
    /// TOD clock bits 0-63 of the timestamp.
    pub fn tod(&self) -> u64 {
        match self {
            Timestamp::Stck(t) => *t,
            Timestamp::Stcke(b) => be64(b, 1),
        }
    }
}

/// Bytes 0-31 of a trailer entry: the header and the timestamp (bytes 32-63 are reserved;
/// Linux keeps its own bookkeeping there, so no writer here touches them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Trailer {
    /// Bytes 0-15.
    pub header: TrailerHeader,
    /// Bytes 16-31, in the format of the T bit.
    pub timestamp: Timestamp,
}

impl Trailer {
    /// Decode a trailer entry (at least its first 32 bytes; fewer decode as zeros).
    pub fn decode(t: &[u8]) -> Trailer {
        let mut b = [0u8; 32];
        let n = t.len().min(32);
        b[..n].copy_from_slice(&t[..n]);
        let mut head = [0u8; 16];
        head.copy_from_slice(&b[..16]);
        let mut ts = [0u8; 16];
        ts.copy_from_slice(&b[16..]);
        let header = TrailerHeader::decode(&head);
        Trailer {
            header,
            timestamp: Timestamp::decode(&ts, header.flags.contains(TrailerFlags::T)),
        }
    }
    /// Encode bytes 0-31 into a trailer entry (T set from the timestamp's format).
    pub fn encode_into(&self, t: &mut [u8]) {
        let mut h = self.header;
        h.flags.set(TrailerFlags::T, self.timestamp.is_extended());
        t[..16].copy_from_slice(&h.encode());
        let mut ts = [0u8; 16];
        let n = self.timestamp.encode_into(&mut ts);
        t[16..16 + n].copy_from_slice(&ts[..n]);
    }
    /// F: the block is full.
    pub fn full(&self) -> bool {
        self.header.flags.contains(TrailerFlags::F)
    }
    /// A: the program asked for an alert when the block becomes full.
    pub fn alert(&self) -> bool {
        self.header.flags.contains(TrailerFlags::A)
    }
    /// T: the timestamp is in the STORE CLOCK EXTENDED format.
    pub fn extended(&self) -> bool {
        self.header.flags.contains(TrailerFlags::T)
    }
    /// TOD clock bits 0-63 of the timestamp.
    pub fn tod(&self) -> u64 {
        self.timestamp.tod()
    }
}

// ---------------------------------------------------------------- building blocks -----

/// A 4-KB sample-data block being filled from offset 0, as the update process fills one
/// (data entries one after the other, a combined entry never split across blocks), for a
/// HIS run's .SMP file and for test and benchmark input.
#[derive(Clone, Debug)]
pub struct BlockWriter {
    block: Vec<u8>,
    used: usize,
    /// Sample data that could not be stored because the block was full.
    pub overflow: u64,
}

impl Default for BlockWriter {
    fn default() -> Self {
        BlockWriter {
            block: vec![0; BLOCK_4K],
            used: 0,
            overflow: 0,
        }
    }
}

impl BlockWriter {
    /// Bytes of data entries stored so far.
    pub fn used(&self) -> usize {
        self.used
    }
    /// Is there room for an entry of `len` bytes before the trailer?
    pub fn fits(&self, len: usize) -> bool {
        self.used + len <= TRAILER_4K
    }
    /// Store a data entry; false (and nothing stored) when it does not fit.
    pub fn push(&mut self, entry: &[u8]) -> bool {
        if !self.fits(entry.len()) {
            return false;
        }
        self.block[self.used..self.used + entry.len()].copy_from_slice(entry);
        self.used += entry.len();
        true
    }
    /// Finish the block with its trailer entry (F as given, BSDES, DSDES, the overflow count
    /// and the timestamp) and start a new, empty one.
    pub fn seal(&mut self, full: bool, bsdes: u16, dsdes: u16, timestamp: Timestamp) -> Vec<u8> {
        let mut block = std::mem::replace(&mut self.block, vec![0; BLOCK_4K]);
        let mut flags = TrailerFlags::empty();
        flags.set(TrailerFlags::F, full);
        Trailer {
            header: TrailerHeader {
                flags,
                reserved: [0; 3],
                bsdes,
                dsdes,
                overflow: self.overflow,
            },
            timestamp,
        }
        .encode_into(&mut block[TRAILER_4K..]);
        self.used = 0;
        self.overflow = 0;
        block
    }
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
    fn buffer_sizes_of_the_s_indicator() {
        assert_eq!(BufferSize::from_s(false).bytes(), 4096);
        assert_eq!(BufferSize::from_s(true).bytes(), 1 << 20);
        assert_eq!(BufferSize::K4.trailer_offset(), 4032);
        assert_eq!(BufferSize::M1.trailer_offset(), (1 << 20) - 64);
        assert!(BufferSize::M1.s() && !BufferSize::K4.s());
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

    #[test]
    fn trailer_header_round_trip_keeps_reserved_bits() {
        let raw = [0xE7, 1, 2, 3, 0, 32, 0, 64, 0, 0, 0, 0, 0, 0, 1, 2];
        let h = TrailerHeader::decode(&raw);
        assert!(h
            .flags
            .contains(TrailerFlags::F | TrailerFlags::A | TrailerFlags::T));
        assert_eq!(h.flags.bits() & 0x07, 0x07, "reserved bits 5-7 retained");
        assert_eq!((h.reserved, h.bsdes, h.dsdes), ([1, 2, 3], 32, 64));
        assert_eq!(h.overflow, 0x102);
        assert_eq!(h.encode(), raw);
    }

    #[test]
    fn timestamps_in_stck_and_stcke_format() {
        let t = Timestamp::of_tod(0x1122_3344_5566_7788, false);
        assert!(!t.is_extended());
        let mut b = [0xEE; 16];
        assert_eq!(t.encode_into(&mut b), 8);
        assert_eq!(&b[..8], &0x1122_3344_5566_7788u64.to_be_bytes());
        assert_eq!(&b[8..], &[0xEE; 8], "bytes 24-31 are left as they were");
        let e = Timestamp::of_tod(0x1122_3344_5566_7788, true);
        assert!(e.is_extended());
        assert_eq!(e.encode_into(&mut b), 16);
        assert_eq!(
            b,
            [0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(e.tod(), t.tod());
    }

    /// A trailer as Figure 2-25 lays it out: F, A, T in byte 0, BSDES and DSDES in bytes 4-7,
    /// the overflow count in 8-15, the timestamp from byte 16 in the T bit's format.
    #[test]
    fn trailers_decode_in_the_format_of_their_t_bit() {
        let mut t = [0u8; 64];
        t[0] = 0xC0; // F, A; T = 0: STCK
        t[5] = 32;
        t[7] = 64;
        t[15] = 3;
        t[16..24].copy_from_slice(&0xAABB_CCDD_0000_0001u64.to_be_bytes());
        let d = Trailer::decode(&t);
        assert!(d.full() && d.alert() && !d.extended());
        assert_eq!(
            (d.header.bsdes, d.header.dsdes, d.header.overflow),
            (32, 64, 3)
        );
        assert_eq!(d.tod(), 0xAABB_CCDD_0000_0001);
        t[0] = 0x20; // T = 1: STCKE, epoch index in byte 16
        assert_eq!(
            Trailer::decode(&t).tod(),
            0xBBCC_DD00_0000_0100,
            "bytes 17-24"
        );
        let mut back = [0u8; 64];
        Trailer::decode(&t).encode_into(&mut back);
        assert_eq!(&back[..32], &t[..32]);
    }

    #[test]
    fn a_block_fills_with_126_basic_entries_and_keeps_combined_ones_whole() {
        let mut w = BlockWriter::default();
        let e = bsde().encode();
        for _ in 0..126 {
            assert!(w.push(&e));
        }
        assert!(!w.fits(1), "126 x 32 = 4032 bytes: the trailer's offset");
        w.overflow = 2;
        let b = w.seal(true, 32, 64, Timestamp::of_tod(9, true));
        let t = Trailer::decode(&b[TRAILER_4K..]);
        assert!(t.full() && t.extended());
        assert_eq!((t.header.overflow, t.tod()), (2, 9));
        assert_eq!(w.used(), 0);
        assert_eq!(w.overflow, 0, "a new block starts its own count");
        // 42 combined entries of 96 bytes fill the 4032 exactly; a 43rd is not split.
        let c = DataEntry::new(Some(&bsde()), Some((&Dsde::default(), 64)));
        for _ in 0..42 {
            assert!(w.push(&c));
        }
        assert_eq!(w.used(), 4032);
        assert!(!w.push(&c), "a combined entry is never split");
        let mut x = BlockWriter::default();
        x.push(&[1; 4000]);
        assert!(!x.push(&c) && x.used() == 4000, "nothing of it is stored");
    }
}
