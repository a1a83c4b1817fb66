//! The sampling buffer structure (SA23-2260, "Sampling Buffer Structure", "Sample-Data-Block
//! Table", "Sample-Data Block", "Trailer Entries"): the maximum buffer size, the
//! table-entry-address and data-entry-address registers, the two kinds of
//! sample-data-block-table (SDBT) entry and the trailer entry of a sample-data block (SDB).
//!
//! Every layout here is encoded and decoded explicitly, big-endian, as the architecture stores
//! it; the update process ([`super::update`]) only works with these types.

use crate::storage::AbsAddr;
use bitflags::bitflags;
use thiserror::Error;

/// Size of a trailer entry, the last 64 bytes of every sample-data block ("Trailer Entries").
pub const TRAILER_SIZE: u64 = 64;
/// Size of a sample-data-block-table entry ("Sample-Data-Block Table": "Each entry is 8 bytes").
pub const SDBT_ENTRY_SIZE: u64 = 8;
/// Entry addresses 0-8191 are invalid ("Sample-Data-Block Update Process").
pub const LOW_INVALID: u64 = 8192;

/// The maximum buffer size the maximum-buffer-size indicator S selects (SA23-2260,
/// "Maximum-Buffer-Size Indicator"): the exact size and alignment of every sample-data block
/// and the boundary no sample-data-block table crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BufferSize {
    /// S = 0: 4K-byte blocks.
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
        self.bytes() - TRAILER_SIZE
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

/// Why an entry address is invalid (SA23-2260, "Sample-Data-Block Update Process": "An entry
/// address is invalid if the address is in the range 0-8191, if the designated
/// sample-data-block entry is inside the trailer entry, or if the designated storage location is
/// not available in the configuration").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum InvalidAddress {
    /// In the range 0-8191.
    #[error("in the range 0-8191")]
    LowStorage,
    /// The designated data entry is inside the trailer entry.
    #[error("inside the trailer entry")]
    InsideTrailer,
    /// Not available in the configuration.
    #[error("not available in the configuration")]
    NotAvailable,
}

/// Why a sample-data-block-table entry is incorrect (SA23-2260, "Sample-Data-Block Update
/// Process", and Measurement Alert: "Incorrect Sample-Data-Block-Table Entry").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum IncorrectEntry {
    /// A table-link entry designates another table-link entry (step 3.a.2.x).
    #[error("a table-link entry designates another table-link entry")]
    LinkToLink,
    /// The last entry before the maximum-buffer-size boundary is a block-link entry (3.a.1).
    #[error("the last table entry is a block-link entry")]
    LastIsBlockLink,
}

/// Contents of the table-entry-address register (SA23-2260, "Table-Entry-Address Register
/// (TEAR)"): the address of the current SDBT entry. The emulator treats it as absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Tear(pub u64);

impl Tear {
    /// The entry's address in guest storage.
    pub fn addr(self) -> AbsAddr {
        AbsAddr(self.0)
    }
    /// "Incremented by the SDB table entry size so that the next entry in the SDB table becomes
    /// the current SDB table entry" (step 3); a carry out of bit 0 is ignored.
    pub fn next(self) -> Tear {
        Tear(self.0.wrapping_add(SDBT_ENTRY_SIZE))
    }
    /// Is this "the last entry in the SDB table before the table crosses an integral boundary
    /// of the maximum buffer size" (step 3.a)?
    pub fn is_last_before_boundary(self, bs: BufferSize) -> bool {
        bs.offset_of(self.0) == bs.bytes() - SDBT_ENTRY_SIZE
    }
    /// Check the entry address: 0-8191 is invalid; availability is checked by the access.
    pub fn check(self) -> Result<AbsAddr, InvalidAddress> {
        if self.0 < LOW_INVALID {
            Err(InvalidAddress::LowStorage)
        } else {
            Ok(self.addr())
        }
    }
}

/// Contents of the data-entry-address register (SA23-2260, "Data-Entry-Address Register
/// (DEAR)"): the address of the next data entry. The emulator treats it as absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dear(pub u64);

/// Where a data-entry address lies in its sample-data block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataEntrySlot {
    /// Address of the next data entry.
    pub entry: AbsAddr,
    /// Address of the block's trailer entry.
    pub trailer: AbsAddr,
    /// Bytes left for data entries before the trailer (0 when DEAR is at the trailer's first
    /// byte: the block was filled exactly and is full, not an invalid address).
    pub room: u64,
}

impl Dear {
    /// The sample-data-block origin of this address.
    pub fn block_origin(self, bs: BufferSize) -> AbsAddr {
        AbsAddr(bs.floor(self.0))
    }
    /// The trailer entry of this address's block.
    pub fn trailer(self, bs: BufferSize) -> AbsAddr {
        self.block_origin(bs).offset(bs.trailer_offset())
    }
    /// "Incremented by the data-entry size"; a carry out of bit 0 is ignored.
    pub fn advance(self, by: u64) -> Dear {
        Dear(self.0.wrapping_add(by))
    }
    /// Check the address of the next data entry (SA23-2260, Process Steps, preamble): 0-8191
    /// and the inside of the trailer are invalid. DEAR exactly at the trailer's first byte
    /// designates no data entry of the trailer: it is where an exactly filled block leaves it,
    /// and the inner loop finds that block full (step 3). Availability is checked by the access.
    pub fn check(self, bs: BufferSize) -> Result<DataEntrySlot, InvalidAddress> {
        if self.0 < LOW_INVALID {
            return Err(InvalidAddress::LowStorage);
        }
        let off = bs.offset_of(self.0);
        if off > bs.trailer_offset() {
            return Err(InvalidAddress::InsideTrailer);
        }
        Ok(DataEntrySlot {
            entry: AbsAddr(self.0),
            trailer: self.trailer(bs),
            room: bs.trailer_offset() - off,
        })
    }
}

/// One sample-data-block-table entry (SA23-2260, "Sample-Data-Block Table", Figures 2-14 to
/// 2-16). Bit 63 tells the kinds apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SdbtEntry {
    /// Block-link entry: a sample-data-block origin (bits 0-51 with S = 0, bits 0-43 with
    /// S = 1; the other bits up to 62 are ignored).
    BlockLink {
        /// The block origin, appended with 12 or 20 zeros.
        sdb: AbsAddr,
    },
    /// Table-link entry: a sample-data-block-table origin (bits 0-59; bits 60-62 ignored).
    TableLink {
        /// The table origin, appended with four zeros.
        sdbt: AbsAddr,
    },
}

impl SdbtEntry {
    /// Bit 63: one for a table-link entry.
    pub const TABLE_LINK_BIT: u64 = 1;

    /// Decode an entry as fetched (big-endian doubleword already converted).
    pub fn decode(raw: u64, bs: BufferSize) -> SdbtEntry {
        if raw & Self::TABLE_LINK_BIT != 0 {
            SdbtEntry::TableLink {
                sdbt: AbsAddr(raw & !0xF),
            }
        } else {
            SdbtEntry::BlockLink {
                sdb: AbsAddr(bs.floor(raw)),
            }
        }
    }
    /// Encode the entry (ignored bits zero).
    pub fn encode(self) -> u64 {
        match self {
            SdbtEntry::BlockLink { sdb } => sdb.0,
            SdbtEntry::TableLink { sdbt } => sdbt.0 | Self::TABLE_LINK_BIT,
        }
    }
    /// Decode eight big-endian bytes.
    pub fn from_be_bytes(b: [u8; 8], bs: BufferSize) -> SdbtEntry {
        Self::decode(u64::from_be_bytes(b), bs)
    }
}

/// The sample-data-block origin a block-link entry designates (Figures 2-14, 2-15).
pub fn block_origin(entry: u64, s: bool) -> u64 {
    BufferSize::from_s(s).floor(entry)
}

/// The table origin a table-link entry designates (Figure 2-16).
pub fn table_origin(entry: u64) -> u64 {
    entry & !0xF
}

/// Is an SDBT entry a table-link entry (bit 63)?
pub fn is_table_link(entry: u64) -> bool {
    entry & SdbtEntry::TABLE_LINK_BIT != 0
}

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
    /// Bytes 8-15: sample overflow count.
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

/// Offset of the timestamp field (bytes 16-31) in a trailer entry.
pub const TIMESTAMP_OFFSET: u64 = 16;

/// The trailer's timestamp: "the TOD clock value at the time when the sample-data block
/// becomes full", in the format the T bit names ("Trailer Entries", Timestamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Timestamp {
    /// T = 0: STORE CLOCK format in bytes 16-23; bytes 24-31 are reserved (left unchanged).
    Stck(u64),
    /// T = 1: STORE CLOCK EXTENDED format in bytes 16-31.
    Stcke([u8; 16]),
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
    /// The T bit this format sets.
    pub fn is_extended(&self) -> bool {
        matches!(self, Timestamp::Stcke(_))
    }
    /// The bytes stored at trailer offset 16 (8 for STCK, 16 for STCKE).
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Timestamp::Stck(t) => t.to_be_bytes().to_vec(),
            Timestamp::Stcke(b) => b.to_vec(),
        }
    }
    /// TOD clock bits 0-63 of the timestamp.
    pub fn tod(&self) -> u64 {
        match self {
            Timestamp::Stck(t) => *t,
            Timestamp::Stcke(b) => {
                let mut t = [0u8; 8];
                t.copy_from_slice(&b[1..9]);
                u64::from_be_bytes(t)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_sizes_of_the_s_indicator() {
        assert_eq!(BufferSize::from_s(false).bytes(), 4096);
        assert_eq!(BufferSize::from_s(true).bytes(), 1 << 20);
        assert_eq!(BufferSize::K4.trailer_offset(), 4032);
        assert_eq!(BufferSize::M1.trailer_offset(), (1 << 20) - 64);
        assert!(BufferSize::M1.s() && !BufferSize::K4.s());
    }

    #[test]
    fn sdbt_entries_decode_with_the_ignored_bits() {
        // Figure 2-14: bits 52-62 ignored with S = 0.
        assert_eq!(
            SdbtEntry::decode(0x0012_3FFE, BufferSize::K4),
            SdbtEntry::BlockLink {
                sdb: AbsAddr(0x0012_3000)
            }
        );
        // Figure 2-15: bits 44-62 ignored with S = 1.
        assert_eq!(
            SdbtEntry::decode(0x0012_3FFE, BufferSize::M1),
            SdbtEntry::BlockLink {
                sdb: AbsAddr(0x0010_0000)
            }
        );
        // Figure 2-16: bits 60-62 ignored, bit 63 one.
        assert_eq!(
            SdbtEntry::decode(0x0004_567F, BufferSize::K4),
            SdbtEntry::TableLink {
                sdbt: AbsAddr(0x0004_5670)
            }
        );
        let e = SdbtEntry::TableLink {
            sdbt: AbsAddr(0x9000),
        };
        assert_eq!(
            SdbtEntry::from_be_bytes(e.encode().to_be_bytes(), BufferSize::K4),
            e
        );
        assert_eq!(block_origin(0x0012_3FFE, false), 0x0012_3000);
        assert_eq!(table_origin(0x0004_567F), 0x0004_5670);
        assert!(is_table_link(1) && !is_table_link(0x2000));
    }

    #[test]
    fn tear_increments_and_knows_the_last_entry_before_the_boundary() {
        assert_eq!(Tear(0x10FF0).next(), Tear(0x10FF8));
        assert_eq!(
            Tear(u64::MAX - 3).next(),
            Tear(4),
            "carry out of bit 0 ignored"
        );
        assert!(Tear(0x10FF8).is_last_before_boundary(BufferSize::K4));
        assert!(!Tear(0x10FF0).is_last_before_boundary(BufferSize::K4));
        assert!(!Tear(0x10FF8).is_last_before_boundary(BufferSize::M1));
        assert!(Tear(0x1FFFF8).is_last_before_boundary(BufferSize::M1));
        assert_eq!(Tear(0x1FF8).check(), Err(InvalidAddress::LowStorage));
        assert_eq!(Tear(0x2000).check(), Ok(AbsAddr(0x2000)));
    }

    #[test]
    fn dear_positions_in_a_block() {
        let bs = BufferSize::K4;
        assert_eq!(Dear(0x1FE0).check(bs), Err(InvalidAddress::LowStorage));
        let s = Dear(0x20000).check(bs).unwrap();
        assert_eq!((s.trailer, s.room), (AbsAddr(0x20FC0), 4032));
        // At the trailer's first byte: the block is full, not an invalid address.
        assert_eq!(Dear(0x20FC0).check(bs).unwrap().room, 0);
        for off in [0xFC1u64, 0xFC8, 0xFFF] {
            assert_eq!(
                Dear(0x20000 + off).check(bs),
                Err(InvalidAddress::InsideTrailer),
                "{off:#x}"
            );
        }
        // 1 MB blocks: a block at 0 is usable above 8191; 0x20FC8 is a data entry there.
        let m = BufferSize::M1;
        assert_eq!(Dear(0x20FC8).check(m).unwrap().trailer, AbsAddr(0xFFFC0));
        assert_eq!(Dear(0x2000).check(m).unwrap().room, 0xFFFC0 - 0x2000);
        assert_eq!(Dear(0xFFFC8).check(m), Err(InvalidAddress::InsideTrailer));
        assert_eq!(Dear(8).advance(u64::MAX), Dear(7));
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
        assert_eq!(t.bytes(), 0x1122_3344_5566_7788u64.to_be_bytes().to_vec());
        let e = Timestamp::of_tod(0x1122_3344_5566_7788, true);
        assert!(e.is_extended());
        assert_eq!(
            e.bytes(),
            vec![0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(e.tod(), t.tod());
    }
}
