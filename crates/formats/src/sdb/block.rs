//! Sample-data blocks (SA23-2260, "Maximum-Buffer-Size Indicator", "Sample-Data Block"): their
//! size and alignment, and a 4-KB block filled entry by entry.

use super::trailer::{Timestamp, Trailer, TrailerFlags, TrailerHeader, TRAILER_SIZE};

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
    use crate::sdb::entry::{Bsde, DataEntry, Dsde, CL_LOGICAL_PARTITION};

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
